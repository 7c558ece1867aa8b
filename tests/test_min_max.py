"""min() and max() of one iterable as expression sites (frontend/comprehension.py,
runtime/expression_forms.py): the first element starts, each later one replaces it only
when strictly smaller (larger), as the built-ins do.  Each case runs under CPython and
compiled; results (their class too), exceptions and partial state must be identical."""
from __future__ import annotations

import math

import numpy
import pytest
from conftest import assert_same_as_cpython, sites_of

import megaguards


def largest_gap(a, b):
    return max(abs(a[i] - b[i]) for i in range(len(a)))


def smallest(values):
    return min(values)


def smallest_below(values, limit):
    return min([v * 2 for v in values if v < limit])


NAN = float("nan")


@pytest.mark.parametrize("values", [
    [3.5, -2.25, 7.0, -2.25], [5, 3, 9, 3], [NAN, 1.0, -1.0], [1.0, NAN, -1.0], [0.0, -0.0], [-0.0, 0.0],
    [2, 1.0, 1, 3], [1.0, 1], [math.inf, -math.inf, 0.5], [7],
])
def test_the_first_extreme_element_as_the_built_ins(values):
    assert_same_as_cpython(smallest, values)
    assert_same_as_cpython(largest_gap, values, values[::-1])


def test_numpy_elements_keep_their_class():
    assert_same_as_cpython(smallest, numpy.array([2.5, -1.5, 3.0]))
    assert_same_as_cpython(largest_gap, numpy.arange(6, dtype=numpy.int64), numpy.arange(6, 0, -1, dtype=numpy.int64))


def test_no_element_raises_cpythons_value_error():
    assert_same_as_cpython(smallest, [], compiled="empty sequence")
    assert_same_as_cpython(smallest_below, [5.0, 6.0], 1.0, compiled="no element")
    assert_same_as_cpython(smallest_below, [5.0, 0.5, 0.25], 1.0)


def argmin(values):
    return min(range(len(values)), key=lambda i: values[i])


def farthest(values, origin):
    return max(values, key=lambda v: abs(v - origin))


def by_magnitude(values):
    return min((2 * v for v in values if v != 0), key=abs)


@pytest.mark.parametrize("values", [[3.5, -2.25, 7.0, -2.25], [5, 3, 9, 3], [NAN, 1.0, -1.0], [1.0, NAN, -1.0],
                                    [0.0, -0.0], [2, 1.0, 1, -1.0], [7]])
def test_a_key_keeps_the_element_whose_key_is_first_extreme(values):
    assert_same_as_cpython(argmin, values)
    assert_same_as_cpython(farthest, values, 1.0)
    assert_same_as_cpython(by_magnitude, values, compiled=any(values) or "no element")   # all zeros: ValueError


def with_default(values):
    return min(values, default=-1.0)


def nearest_or_none(values, origin, limit):
    return min((v for v in values if abs(v - origin) < limit), key=lambda v: abs(v - origin), default=None)


def noted(calls, value):
    calls.append(value)
    return value


def ordered(values, calls):
    return max(noted(calls, values), default=noted(calls, "default"), key=noted(calls, abs))


def test_a_default_is_given_where_no_element_is_left():
    fast = assert_same_as_cpython(with_default, [3.0, -1.0, 2.0])
    assert_same_as_cpython(with_default, [], compiled=None)
    assert fast([]) == -1.0 and sites_of(fast)[0]["compiled_runs"] == 2
    assert_same_as_cpython(nearest_or_none, [5.0, 1.5, -2.0, 0.75], 1.0, 0.6)
    assert_same_as_cpython(nearest_or_none, [5.0, 1.5, -2.0], 1.0, 0.1)   # every element filtered out: None
    fast = assert_same_as_cpython(ordered, [1.0, -4.0, 3.0], [])   # the iterable, default, key: as written
    assert fast([], []) == "default"


def test_a_rebound_name_stays_in_cpython():
    def rebound(values, min=lambda values: "mine"):
        return min(v for v in values)
    assert_same_as_cpython(rebound, [1.0, 2.0], compiled=None)
    assert megaguards.jit(rebound)([1.0, 2.0]) == "mine"
