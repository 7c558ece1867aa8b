"""Small files in the cache folder, written whole or not at all: a temporary file renamed
over the old one, so a concurrent process never reads half a file.  They are read on
every loop's first entry in a process, so reading takes the short way.

What people may read (decisions, the calibration, the compiler memo) is JSON.  What the
runtime alone reads at a loop's first entry (its rendered kernel, plan and template) is a
*record*: ``marshal``'s format, which Python decodes 3-4x faster than JSON (a 26 KB
kernel source holds hundreds of escaped newlines): 40-60 us a file instead of 120-200 us
in a fresh process on the development machine.  Like the compiled objects beside them,
records are trusted: the cache folder is the user's own.

Code that the runtime executes (the rewrite cache's code objects, ``rewrites.py``) is kept
as a *verified record*: in a private folder (created mode 0700; one owned by someone else
or writable by others is not used; files written mode 0600), behind a header naming the
format, the payload's length and its CRC-32, checked before ``marshal`` reads a byte of it.
A damaged file is ignored (and written again by the caller); nothing here deletes a file."""
from __future__ import annotations

import functools
import marshal
import os
import stat
import zlib
from pathlib import Path

from .. import __version__, config


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
    import json

    with open(path, "rb", buffering=0) as handle:
        return json.loads(handle.readall())


def write_json(path: str | Path, data, indent: int | None = None) -> None:
    """Raises OSError (a read-only cache, a full disk); callers decide what that means."""
    import json

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


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """megaguards' own code: its version and each module's path, size and modification
    time (an edited module of a development checkout must not meet results of the old
    one), as 16 hex digits.  ``zlib``'s checksums, not ``hashlib``: importing that costs
    more than all of this, and the stamp guards against edits, not against an adversary."""
    stamps = [__version__]
    folders = [str(Path(__file__).resolve().parents[1])]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif entry.name.endswith((".py", ".h", ".c")):   # the C prelude and helper too
                    status = entry.stat()
                    stamps.append(f"{entry.path}:{status.st_size}:{status.st_mtime_ns}")
    return checksum("\n".join(stamps).encode("utf-8", "surrogateescape"))


def checksum(data: bytes) -> str:
    """16 hex digits that change when ``data`` does (CRC-32 and Adler-32: not a secure hash)."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def private_folder(folder: str) -> bool:
    """Whether ``folder`` is fit to hold code the runtime executes, creating it (mode 0700)
    if missing: a real folder, the user's own, that nobody else may write into."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        status = os.lstat(folder)
    except OSError:
        return False
    return (stat.S_ISDIR(status.st_mode) and not status.st_mode & 0o022
            and (not hasattr(os, "getuid") or status.st_uid == os.getuid()))


def read_verified(path: str, magic: bytes):
    """A verified record's data: OSError as ``open`` raises it, ValueError for a file that
    is not one or is damaged (its length or CRC-32 differs), a symbolic link, or a file that
    someone else owns or may write."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        if os.path.islink(path):
            raise ValueError(f"{path} is a symbolic link") from None
        raise
    with open(descriptor, "rb", buffering=0) as handle:
        status = os.fstat(descriptor)
        if status.st_mode & 0o022 or (hasattr(os, "getuid") and status.st_uid != os.getuid()):
            raise ValueError(f"{path} is not private")
        data = handle.readall()
    start = len(magic) + 12
    if (data[:len(magic)] != magic or int.from_bytes(data[len(magic):start - 4], "little") != len(data) - start
            or int.from_bytes(data[start - 4:start], "little") != zlib.crc32(memoryview(data)[start:])):
        raise ValueError(f"{path} is damaged or of another format")
    try:
        return marshal.loads(memoryview(data)[start:])
    except (EOFError, TypeError) as error:
        raise ValueError(str(error)) from None


def write_verified(path: str, data, magic: bytes) -> None:
    """Write ``data`` (what ``marshal`` holds, code objects included) as a verified record
    (``magic``, the payload's length and CRC-32, the payload), atomically; OSError and
    ValueError as ``write_record``."""
    payload = marshal.dumps(data)
    _write(path, magic + len(payload).to_bytes(8, "little") + zlib.crc32(payload).to_bytes(4, "little") + payload,
           mode=0o600)
def _write(path: str | Path, content: bytes, mode: int | None = None) -> None:
    """``mode``: the new file's permissions (less what the umask removes)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".tmp{os.getpid()}")
    if mode is None:
        temporary.write_bytes(content)
    else:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), mode)
        with open(descriptor, "wb") as handle:
            handle.write(content)
    os.replace(temporary, path)
