"""guards stage."""
