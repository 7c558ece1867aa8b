"""Small files in the cache folder, written whole or not at all: a temporary file renamed
over the old one, so a concurrent process never reads half a file.  They are read on
every loop's first entry in a process, so reading takes the short way.

What people may read (decisions, the calibration, the compiler memo) is JSON.  What the
runtime alone reads at a loop's first entry (its rendered kernel, plan and template) is a
*record*: ``marshal``'s format, which Python decodes 3-4x faster than JSON (a 26 KB
kernel source holds hundreds of escaped newlines): 40-60 us a file instead of 120-200 us
in a fresh process on the development machine.  Records are verified like the rewrite
cache's code objects (below): a damaged one would compile into a wrong kernel.

Code that the runtime executes (the rewrite cache's code objects, ``rewrites.py``) is kept
as a *verified record*: in a private folder (created mode 0700; one owned by someone else
or writable by others is not used; files written mode 0600), behind a header naming the
format, the payload's length and its CRC-32, checked before ``marshal`` reads a byte of it.
A damaged file is ignored (and written again by the caller).

The cache folder itself (``usable_cache``) is private: created mode 0700 and tagged with a
``CACHEDIR.TAG`` (the standard marker, which ``megaguards cache clear`` requires); one owned by
someone else or writable by others is not used: the process then caches into a private
temporary folder, after one warning.  Every file is written under a fresh name (``O_EXCL``,
mode 0600: no planted file or link is opened) and renamed over the old one.

Paths are ``os.path`` strings here (``Path`` objects are accepted): this module is imported by
every process that reaches a rewritten module, and ``pathlib`` (with ``re``, ``fnmatch``,
``urllib.parse``) or ``tempfile`` cost several ms on an interpreter that has not imported them."""
from __future__ import annotations

import contextlib
import functools
import marshal
import os
import stat
import zlib

from .. import __version__, config


def sha256(data: bytes = b""):
    """A SHA-256 hash object, as ``hashlib.sha256`` gives: CPython's own implementation where
    the build has it (importing ``hashlib`` loads OpenSSL: about 4 ms in every process that
    compiles a loop), else hashlib's."""
    return _sha256_class()(data)


@functools.lru_cache(maxsize=1)
def _sha256_class():
    """Found once: a failed import searches the whole path again (about 60 us) at every call."""
    try:
        from _sha2 import sha256 as made        # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256 as made  # Python 3.11
        except ImportError:
            from hashlib import sha256 as made
    return made


def cache_path(folder: str, name: str) -> str:
    """``<cache dir>/<folder>/<name>`` as a string: two ``Path`` joins cost about 10 us each,
    once per loop and cache."""
    return f"{config.current().cache_dir}/{folder}/{name}"


def cache_folder(folder: str) -> str:
    """``<cache dir>/<folder>`` as a string."""
    return f"{config.current().cache_dir}/{folder}"


def read_json(path):
    """The parsed file; OSError or ValueError as ``json.loads`` and ``open`` raise them.
    Unbuffered bytes: ``Path.read_text`` (a text wrapper, an isatty call) took 55-65 us a
    file on the development machine, this 10 us."""
    import json

    with open(path, "rb", buffering=0) as handle:
        return json.loads(handle.readall())


def write_json(path, data, indent: int | None = None) -> None:
    """Raises OSError (a read-only cache, a full disk); callers decide what that means."""
    import json

    _write(path, (json.dumps(data, indent=indent) + ("\n" if indent is not None else "")).encode())


RECORD_MAGIC = b"MGREC1"   # a record's header: the payload's length and CRC-32 follow


def read_record(path: str):
    """A record's data (dicts, lists, strings, numbers): a kernel's source, a plan, checked
    as a verified record before it is decoded (a damaged one would compile into wrong code);
    OSError as ``open`` raises it, ValueError for a file that is not one or is damaged."""
    return read_verified(path, RECORD_MAGIC)


def write_record(path: str, data) -> None:
    """Raises OSError, as ``write_json``; ValueError for data marshal cannot hold."""
    write_verified(path, data, RECORD_MAGIC)


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """megaguards' own code: its version and each module's path, size and modification
    time (an edited module of a development checkout must not meet results of the old
    one), as 16 hex digits.  ``zlib``'s checksums, not ``hashlib``: importing that costs
    more than all of this, and the stamp guards against edits, not against an adversary."""
    stamps = [__version__]
    folders = [os.path.dirname(os.path.dirname(os.path.realpath(__file__)))]
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
        make_folder(folder)
        status = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and not_private(status) is None


def not_private(status: os.stat_result) -> str | None:
    """Why a file or folder with this status is not the user's alone (None: it is): owned by
    someone else, or writable by others, it could hold what someone planted."""
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return "another user owns it"
    if status.st_mode & 0o022:
        return "others may write into it"
    return None


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
        if not_private(os.fstat(descriptor)) is not None:
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
    _write(path, magic + len(payload).to_bytes(8, "little") + zlib.crc32(payload).to_bytes(4, "little") + payload)


def _write(path, content: bytes) -> None:
    """Write ``content`` whole to ``path`` (mode 0600): a fresh file (``mkstemp``: ``O_EXCL``,
    so no file or link someone planted is opened) renamed over ``path`` (a link there is
    replaced, not followed)."""
    write_new(path, lambda handle: handle.write(content))


def write_new(path, fill) -> None:
    """Create ``path`` atomically: ``fill(handle)`` writes a fresh private temporary file
    beside it, renamed over ``path`` once complete (removed if ``fill`` raises)."""
    import tempfile

    folder, name = os.path.split(os.fspath(path))
    make_folder(folder)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with open(descriptor, "wb") as handle:
            fill(handle)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def make_folder(folder) -> None:
    """``folder`` and its missing parents, each created mode 0700 (``Path.mkdir`` gives the
    parents the default mode)."""
    folder = os.path.abspath(os.fspath(folder))
    if os.path.isdir(folder):
        return
    missing = []
    while not os.path.exists(folder) and folder != os.path.dirname(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for level in reversed(missing):
        try:
            os.mkdir(level, 0o700)
        except FileExistsError:   # made meanwhile by another process
            pass


TAG_NAME = "CACHEDIR.TAG"
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This file is a cache directory tag created by megaguards.\n"
       b"# For information about cache directory tags see https://bford.info/cachedir/\n")
# What megaguards writes at the top of its cache folder (``megaguards cache clear`` removes
# these only); the calibration's and compilers' files are named by their modules.
FOLDERS = ("kernels", "cuda", "renders", "plans", "bundles", "decisions", "rewrites")
FILES = ("calibration.json", "calibration.lock", "compilers.json", "python.json", TAG_NAME)


def tagged(folder) -> bool:
    try:
        with open(os.path.join(folder, TAG_NAME), "rb") as handle:
            return handle.read(len(TAG)).startswith(TAG[:43])
    except OSError:
        return False


def usable_cache() -> str:
    """The cache folder of this process, checked once (``fit_for_cache``): the configured
    one, or a private temporary one (removed at exit) after one warning naming the reason."""
    from .process import current as current_process

    options, process = config.current(), current_process()
    if process.cache_checked == options.cache_dir:
        return options.cache_dir
    why = fit_for_cache(options.cache_dir)
    if why is not None:
        import atexit
        import shutil

        from ..errors import warn_once

        import tempfile

        temporary = tempfile.mkdtemp(prefix="megaguards-cache-")
        atexit.register(shutil.rmtree, temporary, True)
        warn_once(f"megaguards: cache folder {options.cache_dir} not used ({why}); compiled loops "
                  f"are kept in {temporary} until this process ends")
        options = config.configure(cache_dir=temporary)
        fit_for_cache(temporary)
    process.cache_checked = options.cache_dir
    return options.cache_dir


def fit_for_cache(folder) -> str | None:
    """Why ``folder`` may not hold code this process loads (None: it may), creating it
    (mode 0700, tagged) if missing.  A folder of someone else's, or one others may write
    into, could hold a planted shared object."""
    try:
        make_folder(folder)
        status = os.stat(folder)
    except OSError as error:
        return f"it cannot be created ({error.strerror})"
    if not stat.S_ISDIR(status.st_mode):
        return "it is not a folder"
    why = not_private(status)
    if why is not None:
        return why
    if not tagged(folder):
        try:   # a folder holding nothing but megaguards' entries (an older cache) is tagged now
            if all(name in FOLDERS or name in FILES or name.startswith(".") for name in os.listdir(folder)):
                write_new(os.path.join(folder, TAG_NAME), lambda handle: handle.write(TAG))
        except OSError:
            pass
    return None
