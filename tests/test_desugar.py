"""Loop forms and in-loop reductions rewritten by frontend/desugar.py: each differential
against CPython, with the compiled path checked to have run (sums of Python floats are
compensated on 3.12+, as CPython's are: analysis/compensation.py)."""
from __future__ import annotations

import functools
import math

import numpy
import pytest

import megaguards
from conftest import assert_same_as_cpython, outcome, site_records


def every_site_compiled(function, *arguments, compiled=True):
    """Every site this call entered ran compiled."""
    before = site_records(function)
    assert_same_as_cpython(function, *arguments, compiled=compiled)
    if compiled is True:
        for key, site in site_records(function).items():
            if site["entries"] > before.get(key, {}).get("entries", 0):
                assert site["compiled_runs"] > before.get(key, {}).get("compiled_runs", 0), site["reasons"]


# -- element iteration ------------------------------------------------------------------
def iterate(xs):
    s = 0.0
    for x in xs:
        s = s + x * 0.5
    return s, x


def enumerated(xs, start):
    s = 0.0
    for i, x in enumerate(xs, start):
        s = s * 0.5 + i * x
    return s, i, x


def enumerated_plain(xs):
    s = 0
    for i, x in enumerate(xs):
        s += i * x
    return s, i, x


def zipped(xs, ys, zs):
    s = 0.0
    for x, y, z in zip(xs, ys, zs):
        s = s + x * y - z
    return s, x, y, z


def enumerate_zip(xs, ys):
    s = 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        s += i * x + y
    return s


def nested_rows(A):
    s = 0.0
    for i in range(len(A)):
        for x in A[i]:
            s = s + x
    return s


def backwards(a, n):
    out = 0
    for i in reversed(range(n)):
        out = (out * 31 + a[i]) % 65521
    for j in reversed(range(1, n, 4)):
        out += j
    for k in reversed(range(n, 0, -3)):
        out = out * 2 % 65521 + k
    return out, i, j, k


FLOATS = [1.5, -0.0, 2.25, float("inf"), -3.5, 1e-310]


@pytest.mark.parametrize("xs", [FLOATS, numpy.array(FLOATS), [3, 1, 4, 1, 5], [True, False]])
def test_element_iteration(xs):
    every_site_compiled(iterate, xs)


def test_element_iteration_keeps_the_variable_unchanged_when_empty():
    def keeps(xs):
        x = 7.5
        for x in xs:
            pass
        return x
    assert_same_as_cpython(keeps, [], compiled=None)
    assert_same_as_cpython(keeps, [1.5, 2.5], compiled=True)


@pytest.mark.parametrize("start", [0, 3, -2, True])
def test_enumerate(start):
    every_site_compiled(enumerated, [1.5, 2.5, -4.0], start)


def test_enumerate_float_start_raises_as_in_python():
    assert_same_as_cpython(enumerated, [1.5], 1.5, compiled=False)


def test_enumerate_zip_and_rows():
    every_site_compiled(enumerated_plain, [4, 5, 6])
    every_site_compiled(zipped, [1.0, 2.0, 3.0, 9.0], numpy.array([0.5, 0.25, 4.0]), [1.0, 1.0, 1.0, 1.0, 1.0])
    every_site_compiled(enumerate_zip, [1.0, 2.0], [3.0, 4.0, 5.0])
    every_site_compiled(nested_rows, [[1.0, 2.0], [3.5, -0.0]])


@pytest.mark.parametrize("n", [0, 1, 7, 12])
def test_reversed_range(n):
    assert_same_as_cpython(backwards, list(range(100, 113)), n, compiled=True)


def test_exception_inside_an_element_loop_is_pythons():
    def divide(xs):
        s = 0.0
        for x in xs:
            s += 1.0 / x
        return s
    assert_same_as_cpython(divide, [1.0, 0.0, 2.0], compiled=None)
    assert_same_as_cpython(divide, [1.0, 4.0], compiled=True)


def test_non_sequences_stay_in_cpython():
    def over(items):
        s = 0
        for x in items:
            s += x
        return s
    assert_same_as_cpython(over, (1, 2, 3), compiled=False)
    assert_same_as_cpython(over, {1: 2, 3: 4}, compiled=False)


# -- divmod -----------------------------------------------------------------------------
def divmods(a, b):
    qs = 0
    rs = 0
    for i in range(len(a)):
        q, r = divmod(a[i], b[i])
        qs = qs + q
        rs = rs * 3 + r
    return qs, rs, q, r


@pytest.mark.parametrize("a, b", [([7, -7, 7, -7, 0], [2, 2, -2, -2, 5]),
                                  ([7.5, -7.5, 1e300, -0.0, 5.0], [2.0, 2.0, -1e-300, 3.0, -0.0]),
                                  ([7, 1], [0, 1])])
def test_divmod(a, b):
    assert_same_as_cpython(divmods, a, b, compiled=None if 0 in b or -0.0 in b else True)


def test_divmod_rebound_falls_back():
    def other(a, b):
        return (a + b, a - b)

    def uses(a, b):
        divmod = other
        for i in range(len(a)):
            q, r = divmod(a[i], b[i])
        return q, r

    def uses_max(a, b):
        divmod = max
        for i in range(len(a)):
            q, r = divmod(a[i], b[i])
        return q, r
    assert_same_as_cpython(uses, [7], [2], compiled=False)
    assert_same_as_cpython(uses_max, [[7, 1]], [[2, 3]], compiled=None)


# -- reductions -------------------------------------------------------------------------
def row_sums(A, m):
    out = [0.0] * len(A)
    for i in range(len(A)):
        out[i] = sum(A[i][j] for j in range(m))
    return out


def sums_of_sequences(A):
    total = 0.0
    s = None
    for i in range(len(A)):
        s = sum(A[i])
        total += s + sum(A[i], 10.0)
    return total, s


def filtered(xs, limit):
    count = 0.0
    for i in range(3):
        count += sum(x for x in xs if x > limit)
    return count


def extremes(xs, n):
    lo = 0.0
    hi = 0.0
    for i in range(n):
        hi = max(x * i for x in xs)
        lo = min(xs)
    return lo, hi


def reduced(xs, n):
    out = 0.0
    for i in range(n):
        out += functools.reduce(lambda acc, x: acc * 0.5 + x, xs, float(i))
        out += functools.reduce(lambda acc, x: acc + x * x, xs)
    return out


@pytest.mark.parametrize("m", [0, 1, 3])
def test_inner_sum_over_a_range(m):
    A = [[1.5, -0.0, 2.0], [-0.0, -0.0, -0.0], [1e308, 1e308, -1e308]]
    assert_same_as_cpython(row_sums, A, m, compiled=None if m == 0 else True)


def test_empty_float_sum_is_the_int_zero():
    def empty(xs, n):
        s = 1.5
        for i in range(n):
            s = sum(xs[j] for j in range(i, 0))
        return s
    assert outcome(megaguards.jit(empty), ([1.0], 2)) == outcome(empty, ([1.0], 2))

    def empty_ints(xs, n):
        s = 1
        for i in range(n):
            s = sum(xs[j] for j in range(i, 0))
        return s
    every_site_compiled(empty_ints, [1, 2], 2)  # ints: the empty sum is 0 in compiled code too


@pytest.mark.parametrize("A, compiled", [([[1.5, 2.5], [-0.0, -0.0]], True),
                                         ([[1, 2, 3], [4, 5, 6]], True),  # sum(A[i], 10.0)
                                         (numpy.array([[1.5, 2.5], [3.0, -1.0]]), True)])  # NumPy floats
def test_sums_of_sequences(A, compiled):
    assert_same_as_cpython(sums_of_sequences, A, compiled=compiled)


def test_filters_min_max_reduce():
    every_site_compiled(filtered, [1.0, 5.0, -2.0, 7.5], 0.0)
    every_site_compiled(filtered, [1, 5, -2, 7], 0)
    every_site_compiled(extremes, [3.0, -1.0, float("nan"), 2.0], 4)
    every_site_compiled(reduced, [1.0, 2.0, -0.5], 3)


def test_empty_max_and_reduce_raise_as_in_python():
    assert_same_as_cpython(extremes, [], 2, compiled=None)
    assert_same_as_cpython(reduced, [], 2, compiled=None)


def int_extremes(xs, n):
    out = 0
    for i in range(n):
        out = out * 3 + max(xs[j] for j in range(i, len(xs))) - min(xs[j] for j in range(i, len(xs)))
    return out


def int_filtered_max(xs, n):
    out = 0
    for t in range(n):
        out = out * 2 + max(x for x in xs if x > t)
    return out


def test_empty_int_max_and_min_raise_in_compiled_code():
    """Of ints, the empty max()/min()'s placeholder 0 has the accumulator's very type: only
    ``raises`` keeps it from being taken as the result (floats fail the type test anyway)."""
    every_site_compiled(int_extremes, [3, -1, 4, 1], 4)
    every_site_compiled(int_filtered_max, [3, -1, 4, 1], 3)
    # At i = 4 (t = 4) the generator yields nothing: the kernel flags it, CPython raises ValueError.
    assert_same_as_cpython(int_extremes, [3, -1, 4, 1], 5, compiled="runtime flag")
    assert_same_as_cpython(int_filtered_max, [3, -1, 4, 1], 5, compiled="runtime flag")


def nearest(points, centres, out):
    """k-means' assignment step: the index of each point's nearest centre."""
    for p in range(len(points)):
        out[p] = min(range(len(centres)), key=lambda c: (points[p][0] - centres[c][0]) ** 2
                     + (points[p][1] - centres[c][1]) ** 2)
    return out


def keyed_extremes(rows, targets, n):
    out = 0.0
    for r in range(n):
        far = max(rows[r], key=lambda v: abs(v - targets[r]), default=-1.0)
        low = min(rows[r], default=targets[r])
        out = out * 0.5 + far - low + min(rows[r], key=negated)
    return out


def negated(value):
    return -value


def test_min_max_with_key_and_default_in_a_loop():
    """CPython's min_max: each key compared with the best so far by < (min) or > (max), the
    first of equal or unordered keys kept (ties, nan, -0.0 and 0.0 below); default= for no
    element."""
    points = [[0.5, 0.25], [1.0, 1.0], [-0.5, 2.0], [0.75, 0.75], [0.0, 0.0]]
    centres = [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.5, 0.5]]   # a tie: the first centre wins
    every_site_compiled(nearest, points, centres, [0] * len(points))
    assert_same_as_cpython(nearest, points, [], [0] * len(points), compiled=None)   # ValueError
    rows = [[1.0, -2.0, 3.0], [0.5, 0.5, -0.0], [float("nan"), 1.0, 0.0], [2.0, -2.0, 0.0]]
    every_site_compiled(keyed_extremes, rows, [1.0, 0.5, 0.0, 0.0], 4)


def above(rows, limits):
    out = 0.0
    for r in range(len(rows)):
        out += max((v for v in rows[r] if v > limits[r]), key=negated, default=limits[r] * 2)
        out += min((v for v in rows[r] if v > limits[r]), default=-0.5)
    return out


def lowest_or_zero(rows, limits):
    out = []
    for r in range(len(rows)):
        out.append(min((v for v in rows[r] if v > limits[r]), default=0))
    return out


def test_min_max_default_when_nothing_passes_the_filter():
    """default= is the value of a filtered generator that yields nothing, evaluated before
    the loop as CPython evaluates arguments; of another type than the elements (the int 0
    among floats) the kernel flags it and CPython gives the int."""
    rows = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0], [7.0, 8.0, 9.0]]
    every_site_compiled(above, rows, [2.5, 5.0, 10.0])
    every_site_compiled(above, rows, [0.0, -2.0, 1.0])
    assert_same_as_cpython(lowest_or_zero, rows, [2.5, 5.0, 10.0], compiled=None)


def reduce_from_int(xs, n):
    r = None
    for i in range(n):
        r = functools.reduce(lambda acc, x: acc + x * 0.5, (xs[j] for j in range(i, len(xs))), 0)
    return r


def test_empty_reduce_of_floats_from_an_int_initial_is_that_int():
    """reduce(f, [], 0) is the int 0 even where every step gives a float: the compiled loop
    (a float accumulator) must not return 0.0 (a check independent of sum()'s, which stays
    in CPython for floats from 3.12 on)."""
    every_site_compiled(reduce_from_int, [1.0, 2.0, -0.5], 3)
    assert_same_as_cpython(reduce_from_int, [1.0, 2.0, -0.5], 4, compiled="runtime flag")


def test_exception_inside_a_generator_is_pythons():
    def roots(xs):
        s = 0.0
        for i in range(2):
            s += sum(math.sqrt(x) for x in xs)
        return s
    assert_same_as_cpython(roots, [4.0, -1.0], compiled=None)
    assert_same_as_cpython(roots, [4.0, 9.0])


def test_sum_rebound_falls_back():
    def uses(xs):
        sum = max
        s = 0
        for i in range(2):
            s = sum(xs)
        return s
    assert_same_as_cpython(uses, [1, 5, 2], compiled=None)


def test_nested_sums():
    def grid(A, n, m):
        out = 0.0
        for t in range(2):
            out += sum(sum(A[i][j] * t for j in range(m)) for i in range(n))
        return out
    every_site_compiled(grid, [[1.0, 2.0], [3.0, 4.5]], 2, 2)
    every_site_compiled(grid, [[1, 2], [3, -4]], 2, 2)


def test_reversed_range_with_a_variable_step_stays_in_cpython():
    def backwards_by(a, step):
        out = 0
        for i in reversed(range(0, len(a), step)):
            out = out * 2 + a[i]
        return out
    assert_same_as_cpython(backwards_by, [1, 2, 3, 4, 5], 2, compiled=False)


def test_sums_over_ranges_with_steps():
    def stepped(a, n):
        s = 0
        for t in range(2):
            s += sum(a[j] for j in range(n - 1, -1, -2)) + sum(a[j] * t for j in range(1, n, 3))
        return s
    for n in (0, 1, 5, 6):
        assert_same_as_cpython(stepped, [3, 1, 4, 1, 5, 9], n, compiled=True)


def combine(acc, x):
    return acc * 0.5 + x


def test_reduce_and_sum_with_a_user_function_are_inlined():
    def user_reduce(xs, n):
        out = 0.0
        for i in range(n):
            out += functools.reduce(combine, xs, 1.0) + sum(combine(x, 1.0) for x in xs)
        return out
    every_site_compiled(user_reduce, [1.0, 2.0, -3.5], 3)

    def user_reduce_only(xs, n):  # compiled on every version
        out = 0.0
        for i in range(n):
            out += functools.reduce(combine, xs, 1.0)
        return out
    every_site_compiled(user_reduce_only, [1.0, 2.0, -3.5], 3)
