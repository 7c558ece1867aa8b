"""Scalar and array types of the loop IR.

A scalar type is a C representation plus a *box*: the Python class a value of it
has when it leaves the kernel.  Python's own ``int``/``float``/``bool`` and NumPy's
scalar classes behave alike on ordinary values and differ only in corner cases
(division by zero, overflow, result types), which the kernels flag and hand back
to CPython.  Result types are therefore taken from Python itself: ``result_type``
applies the real operator to representative values of each operand type.
"""
from __future__ import annotations

import enum
import functools
import itertools
import math
import operator
import sys


def numpy_module():
    """NumPy, imported now if the program has not: only kernels whose live-ins hold NumPy
    values need it, and a program that never imports NumPy never pays its import (issue 25,
    start-up)."""
    import numpy

    return numpy


class _NoArrays:
    """Stands for ``numpy.ndarray`` while NumPy is not imported: no value is of this class."""


_ndarray: type | None = None


def ndarray_class() -> type:
    """``numpy.ndarray`` once NumPy is imported (by the program, or by the CUDA warm-up
    thread); before, a class no value has: no value can be an array of a module nobody
    imported.  ``type(value) is ndarray_class()`` never imports NumPy."""
    global _ndarray
    if _ndarray is None:
        cls = getattr(sys.modules.get("numpy"), "ndarray", None)   # None: not (yet fully) imported
        if cls is None:
            return _NoArrays
        _ndarray = cls
    return _ndarray


class Scalar(enum.Enum):
    # name = (Python class, or NumPy's class's name; C type; NumPy dtype character or None)
    PY_BOOL = (bool, "int", None)
    PY_INT = (int, "int64_t", None)
    PY_FLOAT = (float, "double", None)
    NP_BOOL = ("bool_", "int", "?")
    NP_INT32 = ("int32", "int32_t", "i")
    NP_INT64 = ("int64", "int64_t", "l")
    NP_FLOAT32 = ("float32", "float", "f")
    NP_FLOAT64 = ("float64", "double", "d")
    # Python complex: a pair of doubles (prelude's mg_complex), with CPython's formulas.
    PY_COMPLEX = (complex, "mg_complex", None)
    # A value that is a Python int or a Python float, known only at run time (lists typed in by
    # hand, ``s = 0`` then ``s += x``): prelude's mg_num, the value as a double (an int is exact:
    # |v| < 2**53, else the kernel flags) and its class (0.0 int, 1.0 float), so every
    # operation keeps the class CPython's would have.
    PY_INT_OR_FLOAT = ("int or float", "mg_num", None)
    # One character of a str the loop reads (``s[i]``, ``for ch in s``): its code point
    # (prelude's mg_char).  It only compares with characters and one-character constants
    # and gives ``ord()``; it leaves the kernel as a one-character str.
    PY_CHAR = (str, "mg_char", None)

    @property
    def pyclass(self) -> type:
        if self is Scalar.PY_INT_OR_FLOAT:
            raise TypeError("an int-or-float value has no single class: its kernel reports the class")
        cls = self.value[0]
        return cls if type(cls) is type else getattr(numpy_module(), cls)

    @property
    def ctype(self) -> str:
        return self.value[1]

    @property
    def is_bool(self) -> bool:
        return self in (Scalar.PY_BOOL, Scalar.NP_BOOL)

    @property
    def is_float(self) -> bool:
        return self.ctype in ("double", "float")

    @property
    def is_complex(self) -> bool:
        return self is Scalar.PY_COMPLEX

    @property
    def is_int_or_float(self) -> bool:
        return self is Scalar.PY_INT_OR_FLOAT

    @property
    def is_char(self) -> bool:
        return self is Scalar.PY_CHAR

    @property
    def is_int(self) -> bool:
        return not self.is_bool and not self.is_float and not self.is_complex and not self.is_int_or_float \
            and not self.is_char

    @property
    def is_numpy(self) -> bool:
        return self.name.startswith("NP_")

    @property
    def bits(self) -> int:
        return {"int": 1, "int32_t": 32, "int64_t": 64, "float": 32, "double": 64, "mg_complex": 128, "mg_num": 128,
                "mg_char": 64}[self.ctype]

    def __repr__(self) -> str:
        return self.name.lower()


_BY_CLASS = {member.pyclass: member for member in Scalar   # NumPy's once imported; a str is no scalar
             if not member.is_numpy and not member.is_int_or_float and not member.is_char}


def describe_types(types, joiner: str = " or ") -> str:
    """Types as messages name them, sorted: ``float or numpy.float64``."""
    return joiner.join(sorted(t.value[0] if t.is_int_or_float else ("numpy." if t.is_numpy else "") + t.pyclass.__name__
                              for t in types))


def scalar_of_class(cls: type) -> Scalar | None:
    """The Scalar whose values have exactly this Python class, or None."""
    found = _BY_CLASS.get(cls)
    if found is None and len(_BY_CLASS) < len(Scalar) and ndarray_class() is not _NoArrays:
        _BY_CLASS.update((member.pyclass, member) for member in Scalar if member.is_numpy)
        found = _BY_CLASS.get(cls)
    return found


# Array element storage: (dtype char of the buffer, element Scalar) per kind of array.
LIST_ELEMENT_DTYPE = {Scalar.PY_BOOL: "u1", Scalar.PY_INT: "i8", Scalar.PY_FLOAT: "f8",
                      Scalar.PY_INT_OR_FLOAT: "c16"}   # (value, class): 16 bytes, as prelude's mg_num
_DTYPE_SCALAR = {("b", 1): Scalar.NP_BOOL, ("i", 4): Scalar.NP_INT32, ("i", 8): Scalar.NP_INT64,
                 ("f", 4): Scalar.NP_FLOAT32, ("f", 8): Scalar.NP_FLOAT64}


def numpy_dtype_scalar(dtype) -> Scalar | None:
    """The element Scalar of a NumPy (or CuPy) dtype, None for the others (the caller
    refuses a byte order that is not the machine's)."""
    return _DTYPE_SCALAR.get((dtype.kind, dtype.itemsize))


def numpy_itemsize(element: Scalar) -> int:
    """Bytes per element of a NumPy array of ``element`` (bools are one byte)."""
    return 1 if element.is_bool else element.bits // 8
BUFFER_CTYPE = {Scalar.PY_BOOL: "uint8_t", Scalar.NP_BOOL: "uint8_t"}


def buffer_ctype(element: Scalar) -> str:
    """The C type of one element in an array buffer (bools are one byte)."""
    return BUFFER_CTYPE.get(element, element.ctype)


@functools.lru_cache(maxsize=None)
def _samples(scalar: Scalar) -> tuple:
    """Representative values; several, because some operators reject some values."""
    if scalar.is_bool:
        values = (True, True)
    elif scalar.is_char:
        values = ("a", "b")
    elif scalar.is_int:
        values = (1, 2)
    elif scalar.is_complex:
        values = (0.5 + 0.25j, 0.25 - 0.5j)
    else:
        values = (0.5, 0.25)
    return tuple(scalar.pyclass(v) for v in values)


BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}
UNARY_OPERATORS = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}


def _probe(function, argument_types: tuple[Scalar, ...]) -> Scalar | None:
    import warnings

    for attempt in range(2):
        arguments = [_samples(t)[attempt] for t in argument_types]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = function(*arguments)
        except Exception:  # the operator rejects these values or these types
            continue
        return scalar_of_class(type(result))
    return None


# Python's two number classes a kernel may hold in one int-or-float value.
MIXABLE = frozenset({Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.PY_INT_OR_FLOAT})


def joined(types) -> Scalar | None:
    """The one type that holds a value of any of ``types`` when they are ints and floats
    (int-or-float), else None.  Bools stay out: True prints as True, not as 1."""
    types = frozenset(types)
    return Scalar.PY_INT_OR_FLOAT if len(types) > 1 and types <= MIXABLE else None


def _of_either(probe, argument_types: tuple[Scalar, ...]) -> Scalar | None:
    """``probe``'s result type where an argument is int-or-float: the same type whichever
    class it has, or int-or-float where that is an int or a float; None where a class gives
    none, or NumPy's rules join in (they depend on the class)."""
    if any(t.is_numpy for t in argument_types):
        return None
    results = set()
    for combination in itertools.product(*((Scalar.PY_INT, Scalar.PY_FLOAT) if t.is_int_or_float else (t,)
                                           for t in argument_types)):
        result = probe(combination)
        if result is None:
            return None
        results.add(result)
    return results.pop() if len(results) == 1 else joined(results)


@functools.lru_cache(maxsize=None)
def binary_result(op: str, left: Scalar, right: Scalar) -> Scalar | None:
    """Python's result type of ``left op right``; None if unsupported."""
    if left.is_int_or_float or right.is_int_or_float:
        return _of_either(lambda types: binary_result(op, *types), (left, right))
    return _probe(BINARY_OPERATORS[op], (left, right))


@functools.lru_cache(maxsize=None)
def unary_result(op: str, operand: Scalar) -> Scalar | None:
    if operand.is_int_or_float:
        return _of_either(lambda types: unary_result(op, *types), (operand,))
    return _probe(UNARY_OPERATORS[op], (operand,))


@functools.lru_cache(maxsize=None)
def call_result(function, argument_types: tuple[Scalar, ...]) -> Scalar | None:
    """Result type of a pure built-in or math function on these argument types."""
    if any(t.is_int_or_float for t in argument_types):
        return _of_either(lambda types: call_result(function, types), argument_types)
    return _probe(function, argument_types)


def is_integral(scalar: Scalar) -> bool:
    """Types whose values index and count (Python ints, bools, NumPy ints)."""
    return scalar.is_int or scalar.is_bool


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FLOAT_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
