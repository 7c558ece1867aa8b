"""The loop IR: frozen nodes and their types."""
