"""Unboxing live-ins for a kernel and boxing results back.

All per-entry work on arrays happens in one call into a small C helper
(``marshal.c``, built at install by setup.py, else compiled once per machine like the kernels): lists are checked
(rectangular, homogeneous, ints within int64) and copied in one pass, NumPy
arrays are read in place, the kernel runs, and changed list elements are boxed
back, all with the GIL held.  NumPy arrays the loop writes are copied by the
caller first and committed only when the kernel raised no flag (runtime/data.py).
Its answers besides the kernel's flags are codes of codegen/layout.py, each meaning an
assumption of guards/assumptions.py's table.
"""
from __future__ import annotations

import ctypes
import functools
import importlib.machinery
import threading
from pathlib import Path

from .. import config
from ..codegen.layout import abi_defines
from ..errors import CompilerError, CompilerUnusable
from .compiler import build_shared_object, load, python_include_flags
from .costmodel import usable_cores
from .helper_source import FOLDER, INSTALLED_NAME, helper_key, helper_source


@functools.lru_cache(maxsize=None)
def helper(cache_dir: Path, compiler: tuple[str, str]) -> ctypes.PyDLL:
    """The list helper: the one built at install where it is this source's (no Python
    headers needed), else compiled into the cache on first use."""
    library = installed_helper()
    if library is None:
        # The ABI's codes come from codegen/layout.py as -D flags: one definition, read by both.
        flags = ("-O2", "-fPIC", "-shared", "-w", *abi_defines())
        library = load(_build(helper_source(), cache_dir, compiler, flags), python_api=True)
    library.mg_set_unbox_team.argtypes = [ctypes.c_int]
    library.mg_set_unbox_team.restype = None
    library.mg_set_unbox_team(config.current().threads or usable_cores())
    library.mg_enter.argtypes = [ctypes.py_object, ctypes.py_object] + [ctypes.c_void_p] * 6
    library.mg_enter.restype = ctypes.c_int
    library.mg_enter_function.argtypes = []
    library.mg_enter_function.restype = ctypes.py_object
    library.enter = library.mg_enter_function()   # mg_enter as a built-in: what kernels call
    library.mg_prologue.argtypes = [ctypes.py_object, ctypes.py_object] + [ctypes.c_void_p] * 4
    library.mg_prologue.restype = ctypes.c_int
    library.mg_watch_interrupts.argtypes = []
    library.mg_watch_interrupts.restype = ctypes.c_int
    if threading.current_thread() is threading.main_thread():   # signals are the main thread's to set
        library.mg_watch_interrupts()
    library.mg_release.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    library.mg_release.restype = None
    library.mg_snapshot_bytes.argtypes = []
    library.mg_snapshot_bytes.restype = ctypes.c_int64
    library.mg_unbox_floats.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int64]
    library.mg_unbox_floats.restype = ctypes.c_int
    library.mg_fold.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_int,
                                ctypes.POINTER(ctypes.c_int)]
    library.mg_fold.restype = ctypes.c_double
    library.mg_distinct.argtypes = [ctypes.py_object]
    library.mg_distinct.restype = ctypes.c_int
    library.mg_slot_offset.argtypes = [ctypes.py_object, ctypes.py_object]
    library.mg_slot_offset.restype = ctypes.c_ssize_t
    library.mg_slot_values.argtypes = [ctypes.py_object, ctypes.c_ssize_t]
    library.mg_slot_values.restype = ctypes.py_object
    library.mg_set_slots.argtypes = [ctypes.py_object, ctypes.c_ssize_t, ctypes.py_object]
    library.mg_set_slots.restype = ctypes.c_int
    library.mg_list_shape.argtypes = [ctypes.py_object, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
    library.mg_list_shape.restype = ctypes.c_int
    library.mg_still_holds.argtypes = [ctypes.py_object, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                       ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    library.mg_still_holds.restype = ctypes.c_int64
    for name, extra in (("mg_unbox_into", [ctypes.c_int]), ("mg_box_from", [])):   # unbox: rows may be tuples
        function = getattr(library, name)
        function.argtypes = [ctypes.py_object, ctypes.c_int, ctypes.c_int, ctypes.py_object, *extra]
        function.restype = ctypes.c_int
    return library


def installed_helper() -> ctypes.PyDLL | None:
    """The helper setup.py built at install (``runtime/_marshal<extension suffix>``), if it
    is there and was compiled from this source and ABI (its key); else None."""
    path = Path(FOLDER) / (INSTALLED_NAME + importlib.machinery.EXTENSION_SUFFIXES[0])
    if not path.is_file():
        return None
    try:
        library = load(path, python_api=True)
        key = library.mg_helper_key
    except (OSError, AttributeError):   # not loadable here, or built before keys existed
        return None
    key.argtypes, key.restype = [], ctypes.c_char_p
    return library if key() == helper_key().encode() else None


def _build(source: str, cache_dir: Path, compiler: tuple[str, str], flags: tuple) -> Path:
    """The helper's shared object: with OpenMP (large lists unboxed by every core), else
    without (a compiler that lacks it); with the remembered include folder for Python.h,
    else with sysconfig's (the remembered one may be stale or damaged)."""
    failure = None
    for refresh in (False, True):
        for openmp in (("-fopenmp",), ()):
            try:
                path, _ = build_shared_object(source, cache_dir, compiler,
                                              flags + openmp + python_include_flags(cache_dir, refresh=refresh),
                                              libraries=(), what="building megaguards' list helper, once per machine")
                return path
            except CompilerUnusable:
                raise
            except CompilerError as error:
                failure = error
    raise failure

