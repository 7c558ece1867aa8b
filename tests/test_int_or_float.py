"""Values that may be ints or floats (ir.types PY_INT_OR_FLOAT): a scalar that starts as an
int and becomes a float (``s = 0; s += x``), conditional values of either class, ``min``/``max``
and ``abs`` of both.  The kernel carries each value's class, so every result keeps CPython's
class and digits; an int result past 2**53 (exact in CPython, not in a double) goes back to
CPython.  Differential: each function runs plainly and through megaguards.jit."""

import pytest

from conftest import assert_same_as_cpython, site_for
from megaguards.analysis.typeinfer import ArrayInfo
from megaguards.errors import Unsupported
from megaguards.ir.types import Scalar
from test_analysis import typed


def accumulate(a, n):
    s = 0
    for i in range(n):
        s += a[i] * 0.5
    return s


def test_an_int_accumulator_becoming_float_compiles_and_keeps_its_class():
    a = [float(i) for i in range(50)]
    assert_same_as_cpython(accumulate, a, 50)
    assert_same_as_cpython(accumulate, a, 0)   # no iteration: the int 0 comes back, an int


def either(a, n, k):
    s = 0
    best = 0
    for i in range(n):
        v = a[i] if i % 3 else k
        s = s + v * 2 - (v // 2) + v % 3
        best = max(best, v)
        if v > 2.5:
            s -= 1
    return s, best, abs(-best)


@pytest.mark.parametrize("n, k", [(30, 3), (1, 3), (0, 3), (30, -7), (1, 2.5), (30, -0.0)])
def test_values_of_either_class_follow_cpython(n, k):
    a = [float(i) - 10.5 for i in range(30)]
    assert_same_as_cpython(either, a, n, k)


def test_an_int_result_past_two_to_the_53_goes_back_to_cpython():
    """CPython's int stays exact where a double would round: the loop runs in CPython."""
    assert_same_as_cpython(either, [1.5] * 4, 1, 2**60, compiled=False)


def signs(k, n):
    t = k
    for i in range(n):
        t = -t * 0 + (t if i == n else 0)
    return t


@pytest.mark.parametrize("k", [3, 3.0, -3, -3.0])
def test_int_zero_has_no_sign_float_zero_does(k):
    """0 * -3 is the int 0; 0.0 * -3 is -0.0: the class decides, and the kernel knows it."""
    assert_same_as_cpython(signs, k, 2)


def store(a, n, k):
    for i in range(n):
        v = k if i % 2 else 1.5
        a[i] = v
    return a


def test_storing_a_float_of_either_class_into_a_float_list():
    assert_same_as_cpython(store, [0.0] * 6, 6, 2.5)


def test_storing_ints_into_a_float_list_makes_it_hold_both():
    """The list is typed int-or-float: each element it holds afterwards has the class CPython's has."""
    assert_same_as_cpython(store, [0.0] * 6, 6, 2)


def above(readings, threshold):
    count = 0
    total = 0.0
    for i in range(len(readings)):
        r = readings[i]
        if r > threshold:
            count += 1
            total += r
    return count, total


def test_a_list_typed_in_by_hand_mixing_ints_and_floats_compiles():
    readings = [k % 7 if k % 3 else k % 7 + 0.5 for k in range(60)]
    fast = assert_same_as_cpython(above, readings, 3)
    reasons = " ".join(r for site in site_for(fast) for r in site["reasons"])
    assert "holds ints and floats" in reasons   # the guard's note: typed again, int-or-float
    assert_same_as_cpython(above, readings, 2.5)
    assert_same_as_cpython(above, [1, 2.5, 2**53], 0, compiled=False)   # 2**53: not exact in a double


def rows(A, x, n):
    y = [0] * n
    for i in range(n):
        y[i] = 0
        for j in range(n):
            y[i] = y[i] + A[i][j] * x[j]
    return y


def test_a_list_of_int_zeros_given_floats_compiles():
    """PolyBench's 'y[i] = 0' then float sums: the list holds both while the loop runs."""
    A = [[(i * j % 7) / 7.0 for j in range(9)] for i in range(9)]
    assert_same_as_cpython(rows, A, [float(k) for k in range(9)], 9)
    assert_same_as_cpython(rows, A, [float(k) for k in range(9)], 0, compiled=None)   # y is empty


def scale_some(grid, mark, n):
    for i in range(n):
        for j in range(n):
            if (i + j) % 3 == 0:
                grid[i][j] = grid[i][j] * 0.5
            mark[i] = grid[i][0]
    return grid, mark


def test_untouched_ints_stay_ints_in_a_two_dimensional_list():
    grid = [[i * 4 + j if j % 2 else (i * 4 + j) / 2 for j in range(4)] for i in range(4)]
    assert_same_as_cpython(scale_some, grid, [0] * 4, 4)


def test_a_list_bound_to_two_names_is_typed_alike():
    def copy_half(a, b, n):
        for i in range(n):
            b[i] = a[n - 1 - i] / 2
    shared = [1, 2.5, 3, 4.5]
    assert_same_as_cpython(copy_half, shared, shared, 4)


def divide(a, n, k):
    s = 0
    q, below = 0.0, False
    for i in range(n):
        q = s / k
        below = s < k
        s = s + a[i]
    return q, below, s


@pytest.mark.parametrize("k", [3, 2**53 + 1])
def test_true_division_and_comparison_with_an_int(k):
    """Beside an int past 2**53 the exact int division of CPython cannot be had: CPython runs."""
    assert_same_as_cpython(divide, [1.0, 2.5, 3.0], 3, k, compiled=k < 2**53)


def test_a_power_of_either_class_is_refused_with_its_reason():
    with pytest.raises(Unsupported, match="int-or-float power"):
        typed("for i in range(n):\n    s = s + 0.5\n    t = s ** 2\n", {"n": Scalar.PY_INT, "s": Scalar.PY_INT})


def test_numpy_scalars_do_not_join_ints_and_floats():
    with pytest.raises(Unsupported):
        typed("for i in range(n):\n    s = s + 0.5\n    t = s * a[i]\n", {"n": Scalar.PY_INT, "s": Scalar.PY_INT},
              {"a": ArrayInfo(Scalar.NP_INT64, 1, False)})


def test_a_sum_of_either_class_keeps_each_class():
    """Ints, then floats (compensated on 3.12+ from the first float on: test_compensated_sum)."""
    def total(a, n):
        return sum(a[i] if i % 2 else 1 for i in range(n))
    assert_same_as_cpython(total, [0.1] * 9, 9)
    assert_same_as_cpython(total, [0.1] * 9, 1)   # the int phase alone: an int


def equals_complex(a, n, z):
    s = 0
    hits = 0
    for i in range(n):
        s = s + a[i]
        if s == z:
            hits += 1
    return s, hits


@pytest.mark.parametrize("a, z", [([1.0, 1, 2.0], 2 + 0j), ([1, 1, 2], 4 + 0j)])
def test_comparing_either_class_with_a_complex(a, z):
    assert_same_as_cpython(equals_complex, a, 3, z)


def loop_variable_given_a_float(a, n):
    s = 0.0
    for i in range(n):
        for dv in range(1, 4):       # dv: an int from its range ...
            s += a[i] * dv
        dv = 0.5                     # ... and a float after it: typed int-or-float
        s += dv
    return s, dv


def test_a_range_loop_variable_also_given_a_float_compiles():
    """The kernel stores each of its range's values into the int-or-float variable (a C
    compile error before: the int was assigned to the pair as it was)."""
    fast = assert_same_as_cpython(loop_variable_given_a_float, [1.0, 2.5, -3.0], 3)
    assert all(site["compiled_runs"] for site in site_for(fast))
