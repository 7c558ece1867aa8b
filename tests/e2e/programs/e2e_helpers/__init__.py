"""Helper modules imported by the e2e programs (their loops are rewritten too)."""
