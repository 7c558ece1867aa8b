"""Starting CUDA in the background while the script begins (and, under auto, reading
the device selection's data before the script's first loop).

A process's first GPU kernel pays for starting CUDA (the driver API and the device's
primary context: about 0.27 s on the H100 machine; importing CuPy added 0.4 s more) and
loading the module, more than many kernels take.  A
script run with ``device=gpu``, or under ``auto`` by a script that used the GPU in an
earlier process (a mark in the cache, per script path), starts that work in a thread
at once, so that it overlaps the script's own start (reading and building its input).
The first loop that needs CUDA waits for whatever is left.

The thread imports NumPy and ``cuda.bindings`` (holding the GIL most of the time, about
0.5 s, so the script runs slower meanwhile) and creates the context (releasing it).  It
is joined at exit: a thread left inside the CUDA driver while the interpreter finalizes
can hang the process.
"""
from __future__ import annotations

import atexit
import functools
import os
import threading

from ..log_setup import LAZY
from .. import config
from .cachefile import checksum
from .process import Process
from .process import current as current_process

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown
JOIN_AT_EXIT_SECONDS = 30.0


def mark_path(script: str):
    """The mark's name is a checksum of the script's path (``hashlib`` is not imported for
    it: that would cost every ``megaguards run`` on a GPU machine about 2 ms); a ``Path``
    (``pathlib`` imported here: only where a GPU is present)."""
    from pathlib import Path

    digest = checksum(os.fsencode(Path(script).resolve()))
    return Path(config.current().cache_dir) / "decisions" / f"gpu-used-{digest}"


def start_for_script(script: str) -> bool:
    """At ``megaguards run``: start CUDA now if this script will likely use it."""
    settings = config.current()
    if settings.device not in ("gpu", "auto") or not gpu_present():
        return False
    if settings.device == "gpu":
        start()
        return True
    if settings.select not in ("tree", "model"):
        return False
    process = current_process()
    process.script_mark = mark_path(script)   # kept only while the script uses the GPU
    atexit.register(_forget_unused_mark, process)
    if not process.script_mark.exists():
        return False
    start()
    return True


@functools.lru_cache(maxsize=1)
def gpu_present() -> bool:
    """Likely a usable GPU, without starting CUDA: an NVIDIA device node and CUDA's Python
    bindings or CuPy installed (finding them scans sys.path: about 1 ms, once).
    cupy_module() has the last word."""
    import importlib.util

    if not os.path.exists("/dev/nvidiactl"):
        return False
    try:
        return importlib.util.find_spec("cuda.bindings") is not None or importlib.util.find_spec("cupy") is not None
    except (ImportError, ValueError):   # no package "cuda" at all
        return importlib.util.find_spec("cupy") is not None


def load_selection_data() -> None:
    """Under auto, at the process's first specialization (``site.back_end``): read the
    calibration and the decision tree, count the usable cores, list the stored decisions
    and look for a GPU (all cached), so that the loop's analysis and first run do none of it."""
    from . import costmodel, decisions, selector

    costmodel.current().vectors
    costmodel.usable_cores()
    decisions.stored_names()
    selector.load()
    gpu_present()


def start() -> None:
    process = current_process()
    if process.warmup_thread is not None:
        return
    process.warmup_thread = threading.Thread(target=_bring_up, name="megaguards-cuda-warmup", daemon=True)
    process.warmup_thread.start()
    atexit.register(_join, process)


def _bring_up() -> None:
    # NumPy and cuda.bindings only: no module of megaguards' back end, which the main thread
    # may be importing meanwhile (two threads importing the same modules in another order
    # get each other's half-initialized modules: "partially initialized module 'numpy' has
    # no attribute 'ndarray'").  NumPy first, as importing CuPy here did: the GPU path needs
    # it, and its import (0.35-0.45 s on the H100 machine) then overlaps the script's start
    # instead of the first loop's entry.  The driver (cuda_driver.py) finds the context made.
    try:
        import numpy  # noqa: F401

        from cuda.bindings import driver, nvrtc

        if int(driver.cuInit(0)[0]) == 0:
            status, device = driver.cuDeviceGet(0)
            if int(status) == 0:
                driver.cuDevicePrimaryCtxRetain(device)   # creates the device's primary context
        nvrtc.nvrtcVersion()   # loads NVRTC, whose version keys the cached kernels (cuda_driver.py)
    except Exception as error:  # the first loop that needs CUDA reports it properly
        log.debug("CUDA warm-up failed: %s: %s", type(error).__name__, error)


def wait() -> None:
    """Called before the first GPU use: let the warm-up finish rather than race it."""
    thread = current_process().warmup_thread
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join()


def in_progress() -> bool:
    """Has CUDA been started (done or under way) in this process?"""
    return current_process().warmup_thread is not None


def done() -> bool:
    """Has the warm-up finished (CUDA up, or found unusable)?"""
    thread = current_process().warmup_thread
    return thread is not None and not thread.is_alive()


def note_gpu_used() -> None:
    """Under auto, the first GPU use marks the script: its next process warms CUDA up."""
    process = current_process()
    if process.gpu_used or process.script_mark is None:
        return
    process.gpu_used = True
    try:
        process.script_mark.parent.mkdir(parents=True, exist_ok=True)
        process.script_mark.touch()
    except OSError:  # a read-only cache: no warm-up next time
        pass


def _forget_unused_mark(process: Process) -> None:
    """A process that warmed CUDA up for nothing (sizes changed, say) drops the mark."""
    if not process.gpu_used and process.warmup_thread is not None and process.script_mark is not None:
        try:
            process.script_mark.unlink()
        except OSError:
            pass


def _join(process: Process) -> None:
    if process.warmup_thread is not None:
        process.warmup_thread.join(JOIN_AT_EXIT_SECONDS)
