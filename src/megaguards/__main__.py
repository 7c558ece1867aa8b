"""``python -m megaguards script.py [args...]``: the same as ``megaguards run``."""
from .cli import main

raise SystemExit(main())
