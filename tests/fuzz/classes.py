"""The Python/NumPy class of every value a generated program computes, found by applying the
real operators and calls to sample values; array parameters and what a statement may read."""
from __future__ import annotations

import functools
import math
import operator
import warnings
from dataclasses import dataclass

import numpy

# --------------------------------------------------------------------------------------
# Types: the Python/NumPy class of a value, and what operators make of them.

PY_INT, PY_FLOAT, PY_BOOL = int, float, bool
NP_I64, NP_I32, NP_F64, NP_F32 = numpy.int64, numpy.int32, numpy.float64, numpy.float32
NUMPY_BOOL = numpy.bool_
INTLIKE = (PY_INT, PY_BOOL, NP_I64, NP_I32, NUMPY_BOOL)
FLOATLIKE = (PY_FLOAT, NP_F64, NP_F32)
CTYPE = {PY_INT: "i64", NP_I64: "i64", PY_BOOL: "b", NUMPY_BOOL: "b", NP_I32: "i32",
         PY_FLOAT: "f64", NP_F64: "f64", NP_F32: "f32"}
DTYPES = {"float64": NP_F64, "int64": NP_I64, "int32": NP_I32, "float32": NP_F32, "bool": numpy.bool_}

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
        "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
        "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne}


def _sample(t):
    if t in (PY_BOOL, NUMPY_BOOL):
        return t(True)
    return t(3) if t in INTLIKE else t(0.5)


@functools.lru_cache(maxsize=None)
def result_type(op: str, left: type, right: type) -> type | None:
    """The class of ``left op right`` on ordinary values (None if Python refuses)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return type(_OPS[op](_sample(left), _sample(right)))
        except Exception:
            return None


@functools.lru_cache(maxsize=None)
def call_type(function: str, *types: type) -> type | None:
    target = {"abs": abs, "min": min, "max": max, "int": int, "float": float, "round": round,
              "math.sqrt": math.sqrt, "math.floor": math.floor, "math.sin": math.sin,
              "math.fabs": math.fabs, "math.ceil": math.ceil, "math.exp": math.exp,
              "math.atan2": math.atan2, "math.copysign": math.copysign}[function]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return type(target(*(_sample(t) for t in types)))
        except Exception:
            return None


def is_int(t) -> bool:
    return t in INTLIKE


def is_float(t) -> bool:
    return t in FLOATLIKE


@dataclass
class ArraySpec:
    name: str
    container: str            # "list" or "ndarray"
    element: str              # "int" / "float" / "bool" for lists, a dtype name for arrays
    dims: tuple               # dimension symbols, e.g. ("N",) or ("N", "M")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_type(self):
        if self.container == "list":
            return {"int": PY_INT, "float": PY_FLOAT, "bool": PY_BOOL}[self.element]
        return DTYPES[self.element]


class Scope:
    """What a statement may read: loop variables (with the dimension their values
    stay inside, or None) and scalar variables with their classes."""

    def __init__(self, loops=(), scalars=None):
        self.loops = list(loops)             # [(name, dim or None)] outer first
        self.scalars = dict(scalars or {})   # name -> class

    def child(self):
        return Scope(self.loops, self.scalars)
