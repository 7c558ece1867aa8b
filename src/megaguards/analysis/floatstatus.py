"""Where NumPy would look at the floating-point status.

Arithmetic on NumPy float scalars (``a[i] * 10.0`` with ``a`` a float64 array) and
stores that convert to float32 are NumPy operations: after each, NumPy reads the IEEE
flags and warns, raises or calls back as ``numpy.seterr`` says (by default: a warning
on overflow, invalid results and division by zero).  Python floats never do (their
errors are exceptions, which the kernels check already).  A loop holding such operations
has its compiled code note the IEEE flags; where NumPy's error state would act on a
flag raised, CPython runs the loop instead, and NumPy warns or raises as it would.
"""
from __future__ import annotations

from ..ir import nodes as ir
from ..ir.types import Scalar

NUMPY_FLOATS = (Scalar.NP_FLOAT32, Scalar.NP_FLOAT64)
# The operators whose IEEE flags are not already Python errors in the kernels (a zero
# divisor and an overflowing ** leave through their own checks; 1.0 // 1e-310 overflows).
SILENT_OPERATORS = ("+", "-", "*", "/", "//", "%")

# numpy.seterr's categories, as the bits the kernel and the runtime exchange.
CATEGORIES = {"over": 1, "invalid": 2, "divide": 4, "under": 8}


def numpy_float_operations(typed) -> tuple[int, ...]:
    """The lines of the loop's NumPy float operations that can raise IEEE flags silently
    (empty: the kernel need not look at the flags)."""
    lines = []
    for node in ir.walk(typed.body):
        if isinstance(node, ir.BinOp) and node.op in SILENT_OPERATORS and node.type in NUMPY_FLOATS:
            lines.append(node.line)
        elif (isinstance(node, ir.Store) and typed.arrays[node.array].element is Scalar.NP_FLOAT32
              and not typed.arrays[node.array].is_list and node.value.type is not Scalar.NP_FLOAT32
              and node.value.type.is_float):
            lines.append(node.line)   # a double narrowed to float32: NumPy's "overflow in cast"
    return tuple(sorted(set(lines)))


def watched_categories(error_state: dict) -> int:
    """The CATEGORIES bits NumPy would act on (``numpy.geterr()``: anything but "ignore")."""
    return sum(bit for name, bit in CATEGORIES.items() if error_state.get(name, "ignore") != "ignore")
