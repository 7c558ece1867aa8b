"""The guard's side of buffer-protocol arrays (issue 29's item 5): ``array.array`` and 1-D
contiguous memoryviews, read in place like NumPy arrays (marshal_lists.c copies their
items in and out as doubles or int64s).  Binder.bind asks here which items a buffer holds
and whether two names could share memory."""
from __future__ import annotations

from array import array as ArrayArray

from ..ir import nodes as ir
from ..ir.types import Scalar, ndarray_class, numpy_module
from .assumptions import Assumption

# The items of array.array and of 1-D contiguous memoryviews, read in place (copied in and out,
# converted to double or int64 and back: marshal_lists.c's copy_buffer): Python's floats and
# ints, as a list's.  Each format's kind ("f", "i": signed, "u": unsigned) and the item sizes it
# may have ('l' and 'L' are 8 bytes here, 4 on Windows; a memoryview's '<l' is 4).
BUFFER_FORMATS = {"b": "i", "B": "u", "h": "i", "H": "u", "i": "i", "I": "u", "l": "i", "L": "u", "q": "i",
                  "Q": "u", "f": "f", "d": "f"}
BUFFER_CLASSES = (ArrayArray, memoryview)


def buffer_storage(value) -> str:
    """The items' storage, as its kind and bytes ("f4", "i2", "u8"...), of an array.array or a
    memoryview; "" where the format is not one the kernels take."""
    if type(value) is ArrayArray:
        code, size = value.typecode, value.itemsize
    else:
        try:
            code, size, ndim, contiguous = value.format, value.itemsize, value.ndim, value.c_contiguous
        except ValueError:   # released
            return ""
        code = code[1:] if code[:1] == "@" else code
        if ndim != 1 or not contiguous:
            return ""
    kind = BUFFER_FORMATS.get(code)
    if kind is None or size not in ((4, 8) if kind == "f" else (1, 2, 4, 8)):
        return ""
    return f"{kind}{size}"


def buffer_format(value) -> str:
    """An array.array's typecode, a memoryview's format ("released" once released), as said."""
    if type(value) is ArrayArray:
        return value.typecode
    try:
        return value.format if value.ndim == 1 else f"{value.format}, {value.ndim}-D"
    except ValueError:
        return "released"


def buffer_element(name: str, value, rank: int, written: bool = False) -> tuple:
    """(element type, storage) of an array.array or memoryview the loop indexes: the storage
    "" where its items are doubles or int64s (the kernel stores them as they are), else
    buffer_storage's (each store is rounded or range-checked); GuardFailure if unsupported."""
    if rank != 1:
        raise Assumption.LIST_RANK.failure(rank=rank)
    storage = buffer_storage(value)
    if not storage:
        raise Assumption.BUFFER_TYPECODE.failure(name=ir.describe_name(name), code=buffer_format(value))
    if written and type(value) is memoryview and value.readonly:
        raise Assumption.BUFFER_WRITABLE.failure(name=ir.describe_name(name))
    element = Scalar.PY_FLOAT if storage[0] == "f" else Scalar.PY_INT
    return element, "" if storage in ("f8", "i8") else storage


def buffers_disjoint(uses, arrays: list) -> None:
    """A memoryview shares its exporter's memory, and each buffer is copied in and out of the
    kernel: a loop that writes an item through one name must not read it through another
    (one object under two names is an alias group, in the key).  GuardFailure where two
    names could share memory."""
    if not any(use.written for use in uses):
        return
    ndarray = ndarray_class()
    exporters = [value.obj if type(value) is memoryview else value for value in arrays]
    for k, first in enumerate(exporters):
        for j in range(k):
            if arrays[j] is arrays[k]:
                continue
            second = exporters[j]
            if first is second or (type(first) is ndarray and type(second) is ndarray
                                   and numpy_module().may_share_memory(first, second)):
                raise Assumption.BUFFERS_DISJOINT.failure()
