"""diagnostics stage."""
