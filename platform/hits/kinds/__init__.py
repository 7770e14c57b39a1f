"""Task kinds. Each kind is one class in one module; ``hits.registry`` lists them."""
