"""Unboxing live-ins for a kernel and boxing results back (lists and NumPy arrays).

Lists go through a small C helper (``listbox.c``) compiled once per machine like
the kernels: one pass checks the shape and element classes and copies.  NumPy
arrays are used in place when only read; arrays the loop writes are copied, and
the copy is committed only when the kernel finished without a flag.
"""
from __future__ import annotations

import ctypes
import functools
from pathlib import Path

import numpy

from ..ir.types import LIST_ELEMENT_DTYPE, NUMPY_DTYPE_SCALAR, Scalar
from .compiler import build_shared_object, load, python_include_flags

KIND_SCALAR = {1: Scalar.PY_BOOL, 2: Scalar.PY_INT, 3: Scalar.PY_FLOAT}
SCALAR_KIND = {v: k for k, v in KIND_SCALAR.items()}
_EMPTY = numpy.zeros(2, dtype=numpy.float64)  # a valid address for arrays of no elements


class GuardFailure(Exception):
    """A live-in does not match what the compiled code assumes."""


@functools.lru_cache(maxsize=None)
def _helper(cache_dir: Path, compiler: tuple[str, str]) -> ctypes.PyDLL:
    source = (Path(__file__).resolve().parent / "listbox.c").read_text()
    flags = ("-O2", "-fPIC", "-shared", "-w", *python_include_flags())
    path, _ = build_shared_object(source, cache_dir, compiler, flags, libraries=())
    library = load(path, python_api=True)
    for name, arguments in (("mg_list_probe", [ctypes.py_object, ctypes.c_int, ctypes.c_void_p]),
                            ("mg_list_unbox", [ctypes.py_object, ctypes.c_int, ctypes.c_void_p,
                                               ctypes.c_int, ctypes.c_void_p]),
                            ("mg_list_box", [ctypes.py_object, ctypes.c_int, ctypes.c_void_p,
                                             ctypes.c_int, ctypes.c_void_p])):
        function = getattr(library, name)
        function.argtypes = arguments
        function.restype = ctypes.c_int
    return library


class ListCodec:
    """The list helper bound to one cache dir and compiler."""

    def __init__(self, cache_dir: Path, compiler: tuple[str, str]) -> None:
        self.library = _helper(cache_dir, compiler)

    def probe(self, value: list, rank: int) -> tuple[Scalar, tuple[int, ...]]:
        shape = numpy.zeros(max(rank, 1), dtype=numpy.int64)
        kind = self.library.mg_list_probe(value, rank, shape.ctypes.data)
        if kind == -2:
            raise GuardFailure("an empty list (its element type is unknown)")
        if kind <= 0:
            raise GuardFailure(f"not a {rank}-D list of bool, int or float")
        return KIND_SCALAR[kind], tuple(int(n) for n in shape[:rank])

    def unbox(self, value: list, element: Scalar, shape: tuple[int, ...]) -> numpy.ndarray:
        buffer = numpy.empty(max(1, int(numpy.prod(shape))), dtype=LIST_ELEMENT_DTYPE[element])
        dims = numpy.array(shape, dtype=numpy.int64)
        if self.library.mg_list_unbox(value, len(shape), dims.ctypes.data, SCALAR_KIND[element],
                                      buffer.ctypes.data):
            raise GuardFailure("a list that is not rectangular, not homogeneous, or holds ints beyond int64")
        return buffer

    def box(self, value: list, element: Scalar, shape: tuple[int, ...], buffer: numpy.ndarray) -> None:
        dims = numpy.array(shape, dtype=numpy.int64)
        if self.library.mg_list_box(value, len(shape), dims.ctypes.data, SCALAR_KIND[element],
                                    buffer.ctypes.data):
            raise MemoryError("boxing results back into a list")


def numpy_element(array: numpy.ndarray) -> Scalar:
    scalar = NUMPY_DTYPE_SCALAR.get(array.dtype)
    if scalar is None or not array.dtype.isnative:
        raise GuardFailure(f"a NumPy array of dtype {array.dtype}")
    return scalar


def element_strides(array: numpy.ndarray) -> tuple[int, ...]:
    itemsize = array.itemsize
    if any(s % itemsize for s in array.strides):
        raise GuardFailure("a NumPy array with unaligned strides")
    return tuple(s // itemsize for s in array.strides)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def address(array: numpy.ndarray) -> int:
    return array.ctypes.data if array.size else _EMPTY.ctypes.data
