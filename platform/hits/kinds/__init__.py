"""The work engine's own task kind (a small one to try the platform with)."""
