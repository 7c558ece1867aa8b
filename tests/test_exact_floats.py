"""CPython's bits where C compilers would take liberties: NaN signs through negation.
(Ordered float reductions: test_ordered_fold.py.)"""
import math

import numpy
import pytest

from conftest import assert_same_as_cpython

NAN_AND_FRIENDS = [math.nan, -math.nan, 1.0, -0.0, 0.0, math.inf, -math.inf, 2.5]


def negated_sum(a):
    t = 0.0
    for i in range(len(a)):
        t += -a[i]
    return t


def negations(a, out):
    for i in range(len(a)):
        out[i] = 1.0 - (-a[i]) + (-a[i]) * 2.0 + -(a[i] - 5.0)
    return out


@pytest.mark.parametrize("value", NAN_AND_FRIENDS)
def test_negated_operand_keeps_cpythons_nan_sign(value):
    """GCC turns t + (-x) into t - x even at -O0: a NaN x then keeps its own sign."""
    assert_same_as_cpython(negated_sum, [1.0, value, 3.0])


def test_negations_in_expressions_keep_nan_signs():
    assert_same_as_cpython(negations, NAN_AND_FRIENDS, [0.0] * len(NAN_AND_FRIENDS))
    floats32 = numpy.array(NAN_AND_FRIENDS, dtype=numpy.float32)
    with numpy.errstate(invalid="ignore"):
        assert_same_as_cpython(negations, floats32, numpy.zeros(len(floats32), dtype=numpy.float32))
