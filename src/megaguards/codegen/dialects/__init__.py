"""Per-target tables for the renderer."""
