"""Calls of pseudo-functions: operations the IR needs that have no Python spelling.

Their names start with a dot, which no user path does.  The interpreter runs them
with these functions; typeinfer gives their result types and the renderer spells
them (codegen/calls.py).
"""
from __future__ import annotations

import operator

# ``z.real`` / ``z.imag`` of a scalar variable (analysis/typeinfer.part_call).
PARTS = {".real": operator.attrgetter("real"), ".imag": operator.attrgetter("imag")}

# The class of an int-or-float value, and its value as a float once known to be one: a
# sum()'s step on Python 3.12+ compensates floats added to a float sum only
# (analysis/compensation.py).
CLASS_TESTS = {".is_float": lambda value: type(value) is float, ".as_float": float}

INTRINSICS = {**PARTS, **CLASS_TESTS}
