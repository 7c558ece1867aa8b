"""Small JSON files in the cache folder, written whole or not at all: a temporary file
renamed over the old one, so a concurrent process never reads half a file."""
from __future__ import annotations

import json
import os
from pathlib import Path


def write_json(path: Path, data, indent: int | None = None) -> None:
    """Raises OSError (a read-only cache, a full disk); callers decide what that means."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".tmp{os.getpid()}")
    temporary.write_text(json.dumps(data, indent=indent) + ("\n" if indent is not None else ""))
    os.replace(temporary, path)
