"""Starting CUDA in the background while the script begins (and, under auto, reading
the device selection's data before the script's first loop).

A process's first GPU kernel pays for importing CuPy, creating the CUDA context and
loading the module: 0.7 to 1.5 s on the H100 machine, more than many kernels take.  A
script run with ``device=gpu``, or under ``auto`` by a script that used the GPU in an
earlier process (a mark in the cache, per script path), starts that work in a thread
at once, so that it overlaps the script's own start (reading and building its input).
The first loop that needs CUDA waits for whatever is left.

The thread imports CuPy (holding the GIL most of the time, so the script runs slower
meanwhile) and creates the context (releasing it).  It is joined at exit: a thread
left inside the CUDA driver while the interpreter finalizes can hang the process.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import threading
from pathlib import Path

from .. import config

log = logging.getLogger("megaguards")
JOIN_AT_EXIT_SECONDS = 30.0
_thread: threading.Thread | None = None
_script_mark: Path | None = None   # under auto: the script's mark, kept only while it uses the GPU
_used = False


def mark_path(script: str) -> Path:
    digest = hashlib.sha256(str(Path(script).resolve()).encode()).hexdigest()[:24]
    return config.current().cache_dir / "decisions" / f"gpu-used-{digest}"


def start_for_script(script: str) -> bool:
    """At ``megaguards run``: start CUDA now if this script will likely use it."""
    global _script_mark
    settings = config.current()
    if settings.device not in ("gpu", "auto") or not gpu_present():
        return False
    if settings.device == "gpu":
        start()
        return True
    if settings.select not in ("tree", "model"):
        return False
    _script_mark = mark_path(script)
    atexit.register(_forget_unused_mark)
    if not _script_mark.exists():
        return False
    start()
    return True


@functools.lru_cache(maxsize=1)
def gpu_present() -> bool:
    """Likely a usable GPU, without importing CuPy (about 0.3 s) or creating a context:
    an NVIDIA device node and CuPy installed (finding it scans sys.path: about 1 ms, once).
    cupy_module() has the last word."""
    import importlib.util
    import os

    return os.path.exists("/dev/nvidiactl") and importlib.util.find_spec("cupy") is not None


def load_selection_data() -> None:
    """Under auto, before the script starts: read the calibration and the decision tree,
    count the usable cores, list the stored decisions and look for a GPU (all cached), so
    that the first loop's entry does none of it."""
    from . import costmodel, decisions, selector

    costmodel.current().vectors
    costmodel.usable_cores()
    decisions.stored_names()
    selector.load()
    gpu_present()


def start() -> None:
    global _thread
    if _thread is not None:
        return
    _thread = threading.Thread(target=_bring_up, name="megaguards-cuda-warmup", daemon=True)
    _thread.start()
    atexit.register(_join)


def _bring_up() -> None:
    try:
        from . import cuda

        cupy = cuda.cupy_module()
        if cupy is not None:
            cupy.cuda.runtime.free(0)   # creates the device's primary context
    except Exception as error:  # the first loop that needs CUDA reports it properly
        log.debug("CUDA warm-up failed: %s: %s", type(error).__name__, error)


def wait() -> None:
    """Called before the first GPU use: let the warm-up finish rather than race it."""
    if _thread is not None and _thread.is_alive() and _thread is not threading.current_thread():
        _thread.join()


def in_progress() -> bool:
    """Has CUDA been started (done or under way) in this process?"""
    return _thread is not None


def done() -> bool:
    """Has the warm-up finished (CUDA up, or found unusable)?"""
    return _thread is not None and not _thread.is_alive()


def note_gpu_used() -> None:
    """Under auto, the first GPU use marks the script: its next process warms CUDA up."""
    global _used
    if _used or _script_mark is None:
        return
    _used = True
    try:
        _script_mark.parent.mkdir(parents=True, exist_ok=True)
        _script_mark.touch()
    except OSError:  # a read-only cache: no warm-up next time
        pass


def _forget_unused_mark() -> None:
    """A process that warmed CUDA up for nothing (sizes changed, say) drops the mark."""
    if not _used and _thread is not None and _script_mark is not None:
        try:
            _script_mark.unlink()
        except OSError:
            pass


def _join() -> None:
    if _thread is not None:
        _thread.join(JOIN_AT_EXIT_SECONDS)
