"""any() and all() of one generator or list comprehension as expression sites: the
synthetic loop ends at the element that decides, as CPython's does, so that elements after
it are never computed (their errors never raised), and the result is CPython's bool.  Their
work cannot be told before the loop runs (the deciding element may come first): the
tiering times CPython's runs before compiling them."""
from __future__ import annotations

import math

import megaguards
from conftest import assert_same_as_cpython, sites_of
from megaguards.frontend import work
from megaguards.frontend.comprehension import make_info


def ascending(a, n):
    return all(a[i] <= a[i + 1] for i in range(n - 1))


def some_negative(xs):
    return any(x < 0 for x in xs)


def truthy(xs):
    return any(xs), all(xs), any(x for x in xs), all(x for x in xs)


def filtered(xs, limit):
    return any(x > limit for x in xs if x != 3.5), all(x * 2 < limit for x in xs if x > 0)


def inverses(xs):
    return any(1.0 / x > 2.0 for x in xs)


def compiled_entries(function) -> int:
    return sum(record["compiled_runs"] for record in sites_of(function))


def test_all_of_a_sorted_range_check_matches_cpython():
    data = [float(k) * 0.5 for k in range(200)]
    fast = assert_same_as_cpython(ascending, data, 200)
    assert compiled_entries(fast) == 1
    data[150] = -1.0
    assert_same_as_cpython(ascending, data, 200)
    assert_same_as_cpython(ascending, data, 1)   # range(0): all() of nothing is True


def test_any_and_all_of_numbers_take_their_truth_values():
    for values in ([0.0, -0.0, 0.0], [0.0, math.nan], [1, 2, 0], [3, 4], [], [True, False], [-0.0]):
        assert_same_as_cpython(truthy, values, compiled=None)
    fast = assert_same_as_cpython(some_negative, [float(k) for k in range(100)])
    assert compiled_entries(fast) == 1
    assert_same_as_cpython(some_negative, [float(k) - 50.0 for k in range(100)])


def test_conditions_filter_the_elements_that_decide():
    assert_same_as_cpython(filtered, [1.0, 3.5, 2.0, -4.0, 9.0], 5.0)
    assert_same_as_cpython(filtered, [1.0, 3.5, 2.0, -4.0], 5.0)
    assert_same_as_cpython(filtered, [], 5.0, compiled=None)


def test_elements_after_the_deciding_one_are_never_computed():
    """1.0 / 0.0 after an element that decides: CPython never divides, the kernel neither;
    before it: ZeroDivisionError, as CPython raises."""
    fast = assert_same_as_cpython(inverses, [4.0, 0.25, 0.0, 1.0])
    assert compiled_entries(fast) == 1
    assert_same_as_cpython(inverses, [4.0, 0.0, 0.25], compiled=None)


def test_the_work_of_any_and_all_is_a_lower_bound():
    import ast

    node = ast.parse("any(x < 0 for x in xs)", mode="eval").body
    info, _, _ = make_info(node, "<test>", None)
    assert info.kind == "any" and not work.told(info.work)
    node = ast.parse("sum(x for x in xs)", mode="eval").body
    assert work.told(make_info(node, "<test>", None)[0].work)
    nested = ast.parse("any(x < y for x in xs for y in ys)", mode="eval").body
    assert make_info(nested, "<test>", None) is None   # two levels: stays as written


def test_a_rebound_any_is_called_as_written():
    def uses_any(xs):
        return any(x > 1 for x in xs)
    fast = megaguards.jit(uses_any)
    assert fast([0.5, 2.0]) is True
    globals()["any"] = lambda iterable: "mine"
    try:
        assert fast([0.5, 2.0]) == "mine"
    finally:
        del globals()["any"]
