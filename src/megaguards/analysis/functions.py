"""The built-in and ``math`` functions a compiled loop may call.

Calls are resolved at guard time by *identity*: the name a loop calls
(``abs``, ``math.sqrt``, or ``sqrt`` after ``from math import sqrt``) must be
bound to the very function object listed here, else the signature does not
match and the loop stays in CPython.
"""
from __future__ import annotations

import functools
import math
import sys

from ..record import record


@record
class FunctionSpec:
    function: object
    min_args: int
    max_args: int


_MATH_ONE = ("sqrt", "exp", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan",
             "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "fabs", "isnan", "isinf", "isfinite")
_MATH_TWO = ("atan2", "fmod", "copysign", "pow")

FUNCTIONS: dict[str, FunctionSpec] = {
    "abs": FunctionSpec(abs, 1, 1),
    "min": FunctionSpec(min, 2, 8),
    "max": FunctionSpec(max, 2, 8),
    "int": FunctionSpec(int, 1, 1),
    "float": FunctionSpec(float, 1, 1),
    "bool": FunctionSpec(bool, 1, 1),
    "round": FunctionSpec(round, 1, 1),
    "pow": FunctionSpec(pow, 2, 2),
    "ord": FunctionSpec(ord, 1, 1),   # of a character of a str (typeinfer): its code point
    "math.log": FunctionSpec(math.log, 1, 2),
    **{f"math.{name}": FunctionSpec(getattr(math, name), 1, 1) for name in _MATH_ONE},
    **{f"math.{name}": FunctionSpec(getattr(math, name), 2, 2) for name in _MATH_TWO},
    "complex": FunctionSpec(complex, 0, 2),
}
# math.hypot is CPython's own algorithm (not libm's); the prelude reproduces the one of
# 3.10 and 3.11 (checked bit for bit); later versions changed it.
if sys.version_info[:2] in ((3, 10), (3, 11)):
    FUNCTIONS["math.hypot"] = FunctionSpec(math.hypot, 2, 2)

# The prelude's complex formulas are those of complexobject.c up to 3.13 (3.14 changed
# mixed real/complex arithmetic to C99 Annex G rules).
COMPLEX_AS_PAIRS = sys.version_info < (3, 14)

# Calls recognised but kept in CPython: the reason, by canonical name and argument count.
EXCLUDED = {
    ("round", 2): "round(x, ndigits) rounds through CPython's correctly rounded decimal conversion",
    ("math.hypot", None): f"math.hypot of Python {sys.version_info[0]}.{sys.version_info[1]} "
                          "(its algorithm is reproduced for 3.10 and 3.11 only)",
}

# Objects the loop may reference by name without calling them.
_NON_CALLABLE = {range: "range", len: "len", math: "math", divmod: "divmod", enumerate: "enumerate",
                 zip: "zip", sum: "sum", reversed: "reversed", functools.reduce: "functools.reduce"}
_CANONICAL_BY_ID = {id(spec.function): name for name, spec in FUNCTIONS.items()}
_CANONICAL_BY_ID.update({id(obj): name for obj, name in _NON_CALLABLE.items()})


def canonical_name(obj: object) -> str | None:
    """The canonical name of a supported function/module object, or None."""
    if obj is math.hypot and "math.hypot" not in FUNCTIONS:
        return "math.hypot"  # known, so that the reason names it (EXCLUDED)
    name = _CANONICAL_BY_ID.get(id(obj))
    if name is None:
        return None
    # id() of a live object is unique; confirm identity to be safe against reuse.
    expected = FUNCTIONS[name].function if name in FUNCTIONS else next(
        o for o, n in _NON_CALLABLE.items() if n == name)
    return name if expected is obj else None

