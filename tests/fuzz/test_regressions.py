"""Regression tests minimised by hand from differential-fuzzing mismatches.

Each test is a plain function plus its inputs, compared exactly as the fuzzer
compares (``harness.same_outcome``: return value or exception type and message,
and the final state of every argument, floats bit for bit).  The seeds and what
differs are in ``BUGS.md``.  These tests stay here while the bug is open: they
fail until megaguards is fixed.
"""
from __future__ import annotations

import math
import sys

import numpy
import pytest

import megaguards
from megaguards import config

from .harness import same_outcome


def check(function, arguments):
    """``arguments``: a tuple (deep-copied per run) or a function returning a fresh tuple."""
    equal, difference = same_outcome(function, megaguards.jit(function), arguments)
    assert equal, difference


def read_only(values, dtype="float64"):
    array = numpy.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


# --- BUGS.md #1: read-only NumPy arrays are written (or committed around) ------------------------

def store_into(a, value):
    for i in range(len(a)):
        a[i] = value
    return a


def test_bug1_store_into_a_read_only_array_raises_like_python():
    # Python: ValueError: assignment destination is read-only, a unchanged.
    check(store_into, lambda: (read_only([0.0, 0.0, 0.0]), 5))


def double_then_copy(a, b):
    for i in range(len(a)):
        a[i] = 2.0 * a[i]
        b[i] = a[i]
    return a


def test_bug1_partial_state_when_the_second_array_is_read_only():
    # Python: a[0] doubled, then ValueError at b[0] = ...; a == [2.0, 2.0, 3.0].
    check(double_then_copy, lambda: (numpy.array([1.0, 2.0, 3.0]), read_only([0.0, 0.0, 0.0])))


def bump_list_maybe_write_array(a, b):
    for i in range(len(a)):
        a[i] = a[i] + 1
        if a[i] > 100:
            b[i] = 1.0
    return a


def test_bug1_read_only_array_never_written_but_list_written():
    # Python never writes b: a == [2, 3, 4], no exception.
    check(bump_list_maybe_write_array, lambda: ([1, 2, 3], read_only([0.0, 0.0, 0.0])))


# --- BUGS.md #2: float reductions are reassociated even on one thread ------------------------------
# The bug was in the reassociating mode (then the default), which allowed reassociation only
# for loops that run in parallel.

@pytest.fixture
def default_mode():
    """MEGAGUARDS_REASSOCIATE=1 with the default work threshold: small loops on one thread."""
    previous = config.current()
    config.configure(reassociate=True, parallel_work=config.Config().parallel_work)
    yield
    config.configure(reassociate=previous.reassociate, parallel_work=previous.parallel_work)


def running_sum(a, s):
    for i in range(len(a)):
        s += a[i]
    return s


def test_bug2_float_sum_keeps_python_order(default_mode):
    # Python: ((1e16 + 1.0) + -1e16) + 1.0 == 1.0
    check(running_sum, ([1.0, -1e16, 1.0], 1e16))


def running_product(n):
    f = 0.0
    for i in range(n):
        f = f * math.exp(i % 50)
    return f


def test_bug2_float_product_keeps_python_order(default_mode):
    # Python: 0.0 * exp(0) * ... * exp(39) == 0.0 (never inf, so never nan)
    check(running_product, (40,))


# --- BUGS.md #3: a range of more than 2**63 - 1 values runs zero times -----------------------------

def first_square_above(start, limit):
    for i in range(start, sys.maxsize):
        if i * i > limit:
            break
    return i


def test_bug3_range_longer_than_int64_max_with_break():
    # Python: 8 (range(-3, sys.maxsize) has 2**63 + 2 values; the break ends it)
    check(first_square_above, (-3, 50))


def count_down(start, stop):
    c = 0
    for i in range(start, stop, -1):
        c += 1
        if c == 3:
            break
    return c, i


def test_bug3_descending_range_longer_than_int64_max():
    # Python: (3, 3)
    check(count_down, (5, -2**63))


# --- BUGS.md #4: a parallel "if e > s: s = e" reduction gives s the array's class even when ---------
# --- no iteration assigned it (Python leaves s a Python int/float) ---------------------------------

def running_max(a, s):
    for i in range(len(a)):
        if a[i] > s:
            s = a[i]
    return s


def running_min(a, s):
    for i in range(len(a)):
        if a[i] < s:
            s = a[i]
    return s


def test_bug4_max_reduction_never_assigned_keeps_python_float():
    # Python: 5.0 (a float); megaguards: numpy.float64(5.0)
    check(running_max, lambda: (numpy.array([1.0, 2.0]), 5.0))


def test_bug4_min_reduction_never_assigned_keeps_python_int():
    # Python: 1 (an int); megaguards: numpy.int64(1)
    check(running_min, lambda: (numpy.array([5, 6], dtype=numpy.int64), 1))


def test_bug4_max_reduction_assigned_is_numpy_float():
    check(running_max, lambda: (numpy.array([1.0, 7.0]), 5.0))  # passes: a reference


# --- BUGS.md #5: A[i, j] on a list of lists is taken for A[i][j] ---------------------------------

def tuple_index_store(A):
    for i in range(len(A)):
        A[i, 0] = 1
    return A


def tuple_index_load(A):
    s = 0
    for i in range(len(A)):
        s += A[i, 1]
    return s


def test_bug5_tuple_subscript_store_into_a_list_raises_type_error():
    # Python: TypeError: list indices must be integers or slices, not tuple (A unchanged)
    check(tuple_index_store, ([[0, 0], [0, 0]],))


def test_bug5_tuple_subscript_load_from_a_list_raises_type_error():
    check(tuple_index_load, ([[1, 2], [3, 4]],))


# --- BUGS.md #6: 0.0 - k (k an int) is -0.0 when k == 0 (GCC folds it to -(double)k) ---------------

def zero_minus(a, k):
    for i in range(len(a)):
        a[i] = 0.0 - k
    return a


def zero_minus_element(a, b):
    for i in range(len(a)):
        a[i] = 0.0 - b[i]
    return a


def test_bug6_zero_minus_int_zero_is_positive_zero():
    # Python: [0.0, 0.0]; megaguards: [-0.0, -0.0]
    check(zero_minus, ([1.0, 2.0], 0))


def test_bug6_zero_minus_int_array_element():
    check(zero_minus_element, lambda: (numpy.ones(3), numpy.array([0, 1, 0])))


# --- BUGS.md #7: math.floor / math.ceil of a numpy.int64 beyond 2**53 are exact (Python rounds) ---

def floor_each(a):
    for i in range(len(a)):
        r = math.floor(a[i])
    return r


def ceil_into(a, b):
    for i in range(len(a)):
        b[i] = math.ceil(a[i])
    return b


def test_bug7_floor_of_large_numpy_int64_goes_through_float():
    # numpy.int64 has no __floor__: math.floor(x) is floor(float(x)) == 9007199254740992
    check(floor_each, lambda: (numpy.array([2**53 + 1]),))


def test_bug7_ceil_of_large_numpy_int64_goes_through_float():
    check(ceil_into, lambda: (numpy.array([2**53 + 1, 3]), [0, 0]))


# --- BUGS.md #8: a helper's global or closure variable that the loop assigns is read once -------

def closure_reads_accumulator(a):
    total = 0.0

    def plus_total(x):
        return x + total
    for i in range(len(a)):
        total += plus_total(a[i])
    return total


def closure_reads_loop_variable(a):
    i = 0

    def plus_index(x):
        return x * 10 + i
    for i in range(len(a)):
        a[i] = plus_index(a[i])
    return a


TOTAL = 0.0


def add_total(x):
    return x + TOTAL


def accumulate_global(n):
    global TOTAL
    TOTAL = 0.0
    for i in range(n):
        TOTAL += add_total(1.0)
    return TOTAL


def test_bug8_closure_reads_a_cell_the_loop_assigns():
    # Python: 1.0, 3.0 + ... == 11.0; megaguards: 6.0 (total read once, at entry)
    check(closure_reads_accumulator, ([1.0, 2.0, 3.0],))


def test_bug8_closure_reads_the_loop_variable():
    # Python: [10, 21, 32]; megaguards: [10, 20, 30]
    check(closure_reads_loop_variable, ([1, 2, 3],))


def test_bug8_helper_reads_a_global_the_loop_assigns():
    # Python: 7.0; megaguards: 3.0
    check(accumulate_global, (3,))


# --- BUGS.md #10: an inner loop rebinding the outer loop's variable (internal error) --------------

def rebinds_outer_variable(b, n):
    for j in range(n - 1, -1, -1):
        for j in range(n - 1, 0, -2):
            b[j] += 1
        b[j] = 0
    return b


def test_bug10_inner_loop_rebinds_the_outer_variable():
    from megaguards.runtime.site import REGISTRY

    check(rebinds_outer_variable, ([1, 2, 3, 4, 5, 6], 6))
    code = rebinds_outer_variable.__code__
    reasons = [reason for site in REGISTRY.sites if site.info.filename == code.co_filename
               and code.co_firstlineno < site.info.line <= code.co_firstlineno + 4 for reason in site.stats.reasons]
    assert not [reason for reason in reasons if reason.startswith("internal error")], reasons


# --- BUGS.md #11: the negation of a negative int literal rendered as C's decrement --------------

def negated(x):
    return 0.5 - (-x)


def sum_negated(a, n):
    s = 0.0
    for i in range(n):
        s += negated(-2) + a[i] - (-(-3))
    return s


def test_bug11_negated_negative_literal_compiles():
    check(sum_negated, ([1.0, 2.0, 3.0], 3))
    assert megaguards.jit(sum_negated, strict=True)([1.0, 2.0, 3.0], 3) == sum_negated([1.0, 2.0, 3.0], 3)
