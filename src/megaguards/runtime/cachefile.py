"""Small JSON files in the cache folder, written whole or not at all: a temporary file
renamed over the old one, so a concurrent process never reads half a file.  They are
read on every loop's first entry in a process, so reading takes the short way."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .. import config


def cache_path(folder: str, name: str) -> str:
    """``<cache dir>/<folder>/<name>`` as a string: two ``Path`` joins cost about 10 us each,
    once per loop and cache."""
    return f"{config.current().cache_dir}/{folder}/{name}"


def cache_folder(folder: str) -> str:
    """``<cache dir>/<folder>`` as a string."""
    return f"{config.current().cache_dir}/{folder}"


def read_json(path: str | Path):
    """The parsed file; OSError or ValueError as ``json.loads`` and ``open`` raise them.
    Unbuffered bytes: ``Path.read_text`` (a text wrapper, an isatty call) took 55-65 us a
    file on the development machine, this 10 us."""
    with open(path, "rb", buffering=0) as handle:
        return json.loads(handle.readall())


def write_json(path: str | Path, data, indent: int | None = None) -> None:
    """Raises OSError (a read-only cache, a full disk); callers decide what that means."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".tmp{os.getpid()}")
    temporary.write_text(json.dumps(data, indent=indent) + ("\n" if indent is not None else ""))
    os.replace(temporary, path)
