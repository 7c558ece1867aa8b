"""Small files in the cache folder, written whole or not at all: a temporary file renamed
over the old one, so a concurrent process never reads half a file.  They are read on
every loop's first entry in a process, so reading takes the short way.

What people may read (decisions, the calibration, the compiler memo) is JSON.  What the
runtime alone reads at a loop's first entry (its rendered kernel, plan and template) is a
*record*: ``marshal``'s format, which Python decodes 3-4x faster than JSON (a 26 KB
kernel source holds hundreds of escaped newlines): 40-60 us a file instead of 120-200 us
in a fresh process on the development machine.  Like the compiled objects beside them,
records are trusted: the cache folder is the user's own."""
from __future__ import annotations

import json
import marshal
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
    _write(path, (json.dumps(data, indent=indent) + ("\n" if indent is not None else "")).encode())


def read_record(path: str):
    """A record's data (dicts, lists, strings, numbers); OSError as ``open`` raises it,
    ValueError for a file that is not a record (another Python's newer format included)."""
    with open(path, "rb", buffering=0) as handle:
        data = handle.readall()
    try:
        return marshal.loads(data)
    except EOFError as error:   # a truncated record
        raise ValueError(str(error)) from None


def write_record(path: str, data) -> None:
    """Raises OSError, as ``write_json``; ValueError for data marshal cannot hold."""
    _write(path, marshal.dumps(data))


def _write(path: str | Path, content: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".tmp{os.getpid()}")
    temporary.write_bytes(content)
    os.replace(temporary, path)
