"""Compile C sources with the system compiler into shared objects, cached on disk.

Cache key: sha256 of the source, the compiler's identity (path + ``--version``)
and the flags, so a second process compiles nothing.  Writes are atomic
(temporary file + rename), so concurrent processes never load half a file.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import shutil
import subprocess
import sysconfig
import tempfile
import threading
from pathlib import Path

from ..errors import CompilerError

log = logging.getLogger("megaguards")

# No fast-math and no FMA contraction: float results must be CPython's bit for bit.
KERNEL_FLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math",
                "-fsignaling-nans", "-frounding-math", "-fno-math-errno", "-w")
# -fsignaling-nans: x * -1.0 keeps a NaN's sign; -frounding-math: 0.0 - (double)k is not folded
# into -(double)k, which is -0.0 for k == 0.
_lock = threading.Lock()
_loaded: dict[Path, ctypes.CDLL] = {}


@functools.lru_cache(maxsize=None)
def find_compiler(preferred: str | None) -> tuple[str, str] | None:
    """(path, version line) of a working C compiler, or None if there is none."""
    for candidate in ([preferred] if preferred else []) + ["cc", "gcc", "clang"]:
        path = shutil.which(candidate.split()[0]) if candidate else None
        if not path:
            continue
        try:
            version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if version.returncode == 0:
            return path, (version.stdout.splitlines() or [""])[0]
    return None


def cache_key(source: str, compiler: tuple[str, str], flags: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for part in (source, *compiler, *flags):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def build_shared_object(source: str, cache_dir: Path, compiler: tuple[str, str],
                        flags: tuple[str, ...] = KERNEL_FLAGS, libraries: tuple[str, ...] = ("-lm",)
                        ) -> tuple[Path, bool]:
    """Path of the compiled object for ``source`` and whether it came from the cache."""
    key = cache_key(source, compiler, flags + libraries)
    target = cache_dir / "kernels" / f"mg_{key}.so"
    if target.exists():
        return target, True
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="megaguards-") as work:
        source_path = Path(work) / "kernel.c"
        source_path.write_text(source)
        output = Path(work) / "kernel.so"
        command = [compiler[0], *flags, str(source_path), "-o", str(output), *libraries]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CompilerError(f"C compiler failed ({' '.join(command)}):\n{result.stderr[-4000:]}")
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(output, partial)
        os.replace(partial, target)
    return target, False


def load(path: Path, python_api: bool = False) -> ctypes.CDLL:
    """Load a shared object once per process (PyDLL keeps the GIL for Python-API helpers)."""
    with _lock:
        library = _loaded.get(path)
        if library is None:
            library = (ctypes.PyDLL if python_api else ctypes.CDLL)(str(path))
            _loaded[path] = library
        return library


def python_include_flags() -> tuple[str, ...]:
    include = sysconfig.get_paths()["include"]
    return ("-I", include)
