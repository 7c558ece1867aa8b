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
import math
import operator

import numpy


class Scalar(enum.Enum):
    # name = (Python class, C type, NumPy dtype character or None, is float, is int, is bool)
    PY_BOOL = (bool, "int", None)
    PY_INT = (int, "int64_t", None)
    PY_FLOAT = (float, "double", None)
    NP_BOOL = (numpy.bool_, "int", "?")
    NP_INT32 = (numpy.int32, "int32_t", "i")
    NP_INT64 = (numpy.int64, "int64_t", "l")
    NP_FLOAT32 = (numpy.float32, "float", "f")
    NP_FLOAT64 = (numpy.float64, "double", "d")
    # Python complex: a pair of doubles (prelude's mg_complex), with CPython's formulas.
    PY_COMPLEX = (complex, "mg_complex", None)

    @property
    def pyclass(self) -> type:
        return self.value[0]

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
    def is_int(self) -> bool:
        return not self.is_bool and not self.is_float and not self.is_complex

    @property
    def is_numpy(self) -> bool:
        return self.name.startswith("NP_")

    @property
    def bits(self) -> int:
        return {"int": 1, "int32_t": 32, "int64_t": 64, "float": 32, "double": 64, "mg_complex": 128}[self.ctype]

    def __repr__(self) -> str:
        return self.name.lower()


_BY_CLASS = {member.pyclass: member for member in Scalar}


def describe_types(types, joiner: str = " or ") -> str:
    """Types as messages name them, sorted: ``float or numpy.float64``."""
    return joiner.join(sorted(("numpy." if t.is_numpy else "") + t.pyclass.__name__ for t in types))


def scalar_of_class(cls: type) -> Scalar | None:
    """The Scalar whose values have exactly this Python class, or None."""
    return _BY_CLASS.get(cls)


# Array element storage: (dtype char of the buffer, element Scalar) per kind of array.
LIST_ELEMENT_DTYPE = {Scalar.PY_BOOL: "u1", Scalar.PY_INT: "i8", Scalar.PY_FLOAT: "f8"}
NUMPY_DTYPE_SCALAR = {
    numpy.dtype("bool"): Scalar.NP_BOOL,
    numpy.dtype("int32"): Scalar.NP_INT32,
    numpy.dtype("int64"): Scalar.NP_INT64,
    numpy.dtype("float32"): Scalar.NP_FLOAT32,
    numpy.dtype("float64"): Scalar.NP_FLOAT64,
}
BUFFER_CTYPE = {Scalar.PY_BOOL: "uint8_t", Scalar.NP_BOOL: "uint8_t"}


def buffer_ctype(element: Scalar) -> str:
    """The C type of one element in an array buffer (bools are one byte)."""
    return BUFFER_CTYPE.get(element, element.ctype)


@functools.lru_cache(maxsize=None)
def _samples(scalar: Scalar) -> tuple:
    """Representative values; several, because some operators reject some values."""
    if scalar.is_bool:
        values = (True, True)
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


@functools.lru_cache(maxsize=None)
def binary_result(op: str, left: Scalar, right: Scalar) -> Scalar | None:
    """Python's result type of ``left op right``; None if unsupported."""
    return _probe(BINARY_OPERATORS[op], (left, right))


@functools.lru_cache(maxsize=None)
def unary_result(op: str, operand: Scalar) -> Scalar | None:
    return _probe(UNARY_OPERATORS[op], (operand,))


@functools.lru_cache(maxsize=None)
def call_result(function, argument_types: tuple[Scalar, ...]) -> Scalar | None:
    """Result type of a pure built-in or math function on these argument types."""
    return _probe(function, argument_types)


def is_integral(scalar: Scalar) -> bool:
    """Types whose values index and count (Python ints, bools, NumPy ints)."""
    return scalar.is_int or scalar.is_bool


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FLOAT_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
