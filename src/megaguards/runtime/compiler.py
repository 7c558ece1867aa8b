"""Compile C sources with the system compiler into shared objects, cached on disk.

Cache key: sha256 of the source, the compiler's identity (its command + ``--version``)
and the flags, so a second process compiles nothing.  Writes are atomic (a fresh private
file renamed), so concurrent processes never load half a file.  Loading runs the object's
constructors: an object is loaded only after its bytes match the digest recorded when it
was built (``<name>.digest``, a verified record), from a private cache folder
(``cachefile.usable_cache``); one that does not match is built again.  The compiler runs
under a time limit (``MEGAGUARDS_COMPILE_TIMEOUT``, 60 s by default).
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import stat
import sys
import tempfile
import threading
from pathlib import Path

from ..log_setup import LAZY
from .. import config
from ..errors import CompilerError, CompilerUnusable
from .cachefile import make_folder, not_private, read_json, read_verified, sha256, write_json, write_new, write_verified
from .status import status

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown

# libm functions whose results are not always correctly rounded (glibc: within about 0.52 ULP):
# GCC would fold them (pow(x, 2.0) into x * x, sin(0.5) into MPFR's correctly rounded value),
# where CPython calls libm at run time: x ** 2 then differed in the last bit for about 1 value
# in 1200 (tests/test_exact_floats.py).  Kept as calls, in double and float.
LIBM_CALLS = ("pow", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
              "sinh", "cosh", "tanh", "hypot")
# No fast-math and no FMA contraction: float results must be CPython's bit for bit.
KERNEL_FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math",
                "-fsignaling-nans", "-frounding-math", "-fno-math-errno", "-w",
                *(f"-fno-builtin-{name}{suffix}" for name in LIBM_CALLS for suffix in ("", "f")))
# -fsignaling-nans: x * -1.0 keeps a NaN's sign; -frounding-math: 0.0 - (double)k is not folded
# into -(double)k, which is -0.0 for k == 0.
_lock = threading.Lock()
_loaded: dict[Path, ctypes.CDLL] = {}   # a cache, not per-process state: see process.py
COMPILERS_FILE = "compilers.json"   # in the cache dir: compiler identity -> version line
PYTHON_FILE = "python.json"         # in the cache dir: interpreter identity -> include directory


@functools.lru_cache(maxsize=None)
def find_compiler(preferred: str | None, cache_dir: Path | None = None) -> tuple[str, str] | None:
    """(command, version line) of a working C compiler, or None if there is none.  The
    command is the compiler's path and the flags ``preferred`` (``CC``) gives, split like a
    shell's command line; a ``CC`` that does not work is not replaced by another compiler.

    With ``cache_dir`` the version line is remembered there per compiler file (path, size,
    modification time): running ``cc --version`` costs 2-3 ms in every process."""
    import shlex

    for candidate in [preferred] if preferred else ["cc", "gcc", "clang"]:
        try:
            words = shlex.split(candidate)
        except ValueError:
            return None
        path = shutil.which(words[0]) if words else None
        if not path:
            continue
        command = shlex.join([path, *words[1:]])
        cache_dir = None if cache_dir is None else Path(cache_dir)
        version = _remembered(cache_dir / COMPILERS_FILE, _identity(path, command)) if cache_dir is not None else None
        if version is None:
            version = _version(path)
            if version is not None and cache_dir is not None:
                _remember(cache_dir / COMPILERS_FILE, _identity(path, command), version)
        if version is not None:
            return command, version
    return None


def _version(path: str) -> str | None:
    import subprocess   # here: a process that finds its kernels compiled runs no compiler

    try:
        result = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return (result.stdout.splitlines() or [""])[0] if result.returncode == 0 else None


def _identity(path: str, command: str | None = None) -> str:
    """What changes when the compiler is replaced: the file a link leads to, its size and time."""
    real = os.path.realpath(path)
    status = os.stat(real)
    return f"{command or path}\0{real}\0{status.st_size}\0{status.st_mtime_ns}"


def _remembered(target: Path, identity: str) -> str | None:
    """What an earlier process stored for ``identity`` in the JSON map ``target``, or None."""
    try:
        value = read_json(target).get(identity)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def _remember(target: Path, identity: str, value: str) -> None:
    try:
        known = read_json(target)
    except (OSError, ValueError):
        known = {}
    try:
        known = known if isinstance(known, dict) else {}
        known[identity] = value
        write_json(target, known)
    except (OSError, ValueError):
        pass   # the next process asks again


def cache_key(source: str, compiler: tuple[str, str], flags: tuple[str, ...]) -> str:
    """The compiled object's name: its source, compiler (command and version), flags and the
    machine's architecture (a home folder shared by an x86-64 and an Arm machine: what
    ``platform.machine()`` answers, without importing ``platform``)."""
    digest = sha256()
    for part in (source, *compiler, *flags, _machine()):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _machine() -> str:
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def build_shared_object(source: str, cache_dir: Path, compiler: tuple[str, str],
                        flags: tuple[str, ...] = KERNEL_FLAGS, libraries: tuple[str, ...] = ("-lm",),
                        what: str = "compiling") -> tuple[Path, bool]:
    """Path of the compiled object for ``source`` and whether it came from the cache.  A
    compile running past a second says ``what`` on a terminal's status line (status.py)."""
    key = cache_key(source, compiler, flags + libraries)
    target = Path(cache_dir) / "kernels" / f"mg_{key}.so"
    if verified(target):
        return target, True
    import shlex
    import subprocess

    make_folder(target.parent)
    with tempfile.TemporaryDirectory(prefix="megaguards-") as work:
        source_path = Path(work) / "kernel.c"
        source_path.write_text(source)
        output = Path(work) / "kernel.so"
        command = [*shlex.split(compiler[0]), *flags, str(source_path), "-o", str(output), *libraries]
        limit = config.current().compile_timeout
        try:
            with status(what):
                result = subprocess.run(command, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            raise CompilerUnusable(f"the C compiler {compiler[0]} ran past {limit:g} s "
                                   "(MEGAGUARDS_COMPILE_TIMEOUT)") from None
        except OSError as error:
            raise CompilerUnusable(f"the C compiler {compiler[0]} could not run: {error}") from None
        if result.returncode != 0:
            raise CompilerError(f"C compiler failed ({shlex.join(command)}):\n{result.stderr[-4000:]}")
        data = output.read_bytes()
    # The digest first: a process that finds the object then also finds what vouches for it.
    write_verified(f"{target}.digest", sha256(data).hexdigest(), DIGEST_MAGIC)
    write_new(target, lambda handle: handle.write(data))
    return target, False


DIGEST_MAGIC = b"MGSO1"   # a shared object's digest record


def verified(target: Path) -> bool:
    """Is ``target`` a compiled object this process may load: a regular file of the user's
    own that no one else may write, whose bytes match the digest recorded at its build?  One
    that does not (damaged, swapped, planted) is removed, with its record, to be built again."""
    try:
        status = os.lstat(target)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(status.st_mode) or not_private(status) is not None:
            raise ValueError("not a private regular file")
        expected = read_verified(f"{target}.digest", DIGEST_MAGIC)
        if sha256(target.read_bytes()).hexdigest() != expected:
            raise ValueError("its bytes do not match its digest")
    except (OSError, ValueError) as error:
        log.debug("cached object %s not loaded (%s): built again", target.name, error)
        for path in (target, Path(f"{target}.digest")):   # ours: the folder is private (a link is replaced)
            with contextlib.suppress(OSError):
                status = os.lstat(path)
                if not stat.S_ISLNK(status.st_mode) and (not hasattr(os, "getuid") or status.st_uid == os.getuid()):
                    os.unlink(path)
        return False
    return True


def load(path: Path, python_api: bool = False) -> ctypes.CDLL:
    """Load a shared object once per process (PyDLL keeps the GIL for Python-API helpers)."""
    with _lock:
        library = _loaded.get(path)
        if library is None:
            with openmp_environment():
                library = (ctypes.PyDLL if python_api else ctypes.CDLL)(str(path))
            _loaded[path] = library
        return library


# OpenMP's waiting threads spin between parallel regions by default.  On a virtual machine
# the hypervisor deschedules a spinning virtual CPU, and a parallel region then took about
# 12 ms instead of 0.1 ms in some processes on the H100 machine (16 cores); sleeping
# threads cost a few microseconds per region instead.  libgomp reads its settings once,
# when it is loaded: a user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT is left alone, and
# the setting is not left in os.environ for the program's child processes.
OPENMP_DEFAULTS = {"OMP_WAIT_POLICY": "passive"}


def openmp_single_threaded_after_fork() -> None:
    """In a child made by ``os.fork()`` (multiprocessing's default start on Linux): GNU
    OpenMP's thread pool is the parent's, whose threads the child does not have, and the
    child's next parallel region waited for them forever.  With no level of parallelism
    active, every region runs on the calling thread alone: the kernels and the marshalling
    helper split their work by the team they get, so the results are the same.  LLVM's
    OpenMP re-forms its pool after a fork itself; a child that never had libgomp loaded has
    no pool to inherit."""
    try:
        gomp = ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD)
    except OSError:
        return
    gomp.omp_set_max_active_levels(0)


if hasattr(os, "register_at_fork") and hasattr(os, "RTLD_NOLOAD"):
    os.register_at_fork(after_in_child=openmp_single_threaded_after_fork)


@contextlib.contextmanager
def openmp_environment():
    added = [] if "GOMP_SPINCOUNT" in os.environ else [name for name in OPENMP_DEFAULTS if name not in os.environ]
    for name in added:
        os.environ[name] = OPENMP_DEFAULTS[name]
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def python_include_flags(cache_dir: Path | None = None, refresh: bool = False) -> tuple[str, ...]:
    """The C compiler's flags for Python.h.  With ``cache_dir`` the directory is remembered
    there per interpreter (its file, version and prefixes): ``sysconfig`` takes 3-5 ms to
    set up in every process, inside the first loop's entry.  ``refresh``: ask sysconfig
    again and remember its answer (a remembered folder that failed a compile)."""
    identity = "\0".join((_identity(sys.executable), sys.version, sys.prefix, sys.base_prefix)) \
        if sys.executable else None
    cache_dir = Path(cache_dir) if cache_dir else None
    include = _remembered(cache_dir / PYTHON_FILE, identity) if cache_dir and identity and not refresh else None
    if include is None:
        import sysconfig

        include = sysconfig.get_paths()["include"]
        if cache_dir and identity:
            _remember(cache_dir / PYTHON_FILE, identity, include)
    return ("-I", include)
