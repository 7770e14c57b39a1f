"""Capture task kinds: one module each, registered with ``@hits.registry.kind``."""
