"""Expression sites: comprehensions, list(map(...)), sum(...) and functools.reduce outside
loops compile to map kernels and reductions with CPython's exact results."""
from __future__ import annotations

import functools
import json
import math
import operator

import numpy
import pytest

from conftest import ROOT, assert_same_as_cpython, run_megaguards, run_python, site_for


# comprehensions ------------------------------------------------------------------------------

def comprehension_sqrt(xs):
    return [math.sqrt(x) * 2 for x in xs]


def comprehension_range(n):
    return [i * i - 3 for i in range(n)]


def comprehension_range_step(a, b, c):
    return [i // 2 for i in range(a, b, c)]


def comprehension_bools(xs, limit):
    return [x > limit for x in xs]


def comprehension_nested(n, m):
    return [[i * 0.5 + j for j in range(m)] for i in range(n)]


def comprehension_nested_over_lists(xs, ys):
    return [[a * b for b in ys] for a in xs]


def comprehension_two_lists(xs, ys, n):
    return [xs[i] * ys[i] + n for i in range(len(xs))]


@pytest.mark.parametrize("function, arguments", [
    (comprehension_sqrt, ([0.0, 1.0, 2.5, 1e300, 7.0],)),
    (comprehension_range, (50,)),
    (comprehension_range_step, (-7, 40, 3)),
    (comprehension_range_step, (40, -7, -4)),
    (comprehension_bools, ([1.0, 5.0, -2.0, 3.0], 2.0)),
    (comprehension_nested, (4, 3)),
    (comprehension_nested_over_lists, ([1, 2, 3], [4, 5])),
    (comprehension_two_lists, ([1.5, 2.5, -0.0], [2.0, 4.0, 1.0], 3)),
])
def test_comprehension_compiles(function, arguments):
    assert_same_as_cpython(function, *arguments)


@pytest.mark.parametrize("function, arguments", [
    (comprehension_sqrt, ([],)),
    (comprehension_range, (0,)),
    (comprehension_range, (-5,)),
    (comprehension_nested, (0, 3)),
    (comprehension_nested, (3, 0)),
])
def test_comprehension_empty(function, arguments):
    assert_same_as_cpython(function, *arguments, compiled=None)


def test_comprehension_exceptions_are_cpythons():
    assert_same_as_cpython(comprehension_sqrt, [1.0, -1.0, 2.0], compiled=False)  # math domain error

    def divide(xs, d):
        return [x // d for x in xs]
    assert_same_as_cpython(divide, [1, 2, 3], 0, compiled=False)


def test_comprehension_over_numpy_gives_numpy_scalars():
    def doubled(a):
        return [x * 2 for x in a]

    def rooted(a):
        return [math.sqrt(x) for x in a]
    for array in (numpy.arange(6.0), numpy.arange(5, dtype=numpy.int32), numpy.arange(4.0, dtype=numpy.float32)):
        fast = assert_same_as_cpython(doubled, array)
        assert type(fast(array)[0]) is type(doubled(array)[0])
    fast = assert_same_as_cpython(rooted, numpy.arange(6.0))
    assert type(fast(numpy.arange(3.0))[0]) is float


def test_element_type_follows_the_inputs():
    def doubled(xs):
        return [x * 2 for x in xs]
    fast = assert_same_as_cpython(doubled, [1, 2, 3])
    for inputs in ([1.5, 2.5], [1, 2], [True, False], numpy.arange(3)):
        assert repr(fast(inputs)) == repr(doubled(inputs))
        assert [type(v) for v in fast(inputs)] == [type(v) for v in doubled(inputs)]


def test_elements_of_either_class_keep_their_class():
    def mixed(xs):
        return [x if x > 1 else 0.5 for x in xs]
    assert_same_as_cpython(mixed, [1, 2, 3])


def test_comprehension_variable_does_not_leak():
    def scoped(xs):
        x = "before"
        ys = [x * 2.0 for x in xs]
        return ys, x, sorted(locals())
    assert_same_as_cpython(scoped, [1.0, 2.0])


def test_outer_iterable_is_evaluated_once():
    def once(xs, calls):
        def make():
            calls.append(1)
            return xs
        empty = [x * 2 for x in make()[:0]]
        full = [x * 2 for x in make()]
        return empty, full, len(calls)
    assert_same_as_cpython(once, [1, 2], [])


def test_unbound_name_raises_as_in_cpython():
    def unbound(n):
        values = [i + later for i in range(n)]  # noqa: F821 (read before it is bound, on purpose)
        later = 1  # noqa: F841
        return values
    assert_same_as_cpython(unbound, 3, compiled=False)
    assert_same_as_cpython(unbound, 0, compiled=None)  # CPython never reads 'later'


def test_class_bodies_are_untouched():
    def with_class(n):
        class Table:
            scale = 3
            rows = [i for i in range(n)]
            try:
                scaled = [i * scale for i in range(n)]  # class names are invisible here
            except NameError as error:
                scaled = str(error)
        return Table.rows, Table.scaled
    assert_same_as_cpython(with_class, 3, compiled=None)


# map --------------------------------------------------------------------------------------

def test_map_builtin_lambda_and_two_lists():
    def mapped(xs, ys):
        return (list(map(math.sqrt, xs)), list(map(lambda a, b: a * b + 1.0, xs, ys)),
                list(map(abs, ys)))
    assert_same_as_cpython(mapped, [1.0, 4.0, 9.0], [-2.0, 3.0])


def test_map_rebound_names_stay_in_cpython():
    def rebound(xs):
        map = lambda f, values: [f(v) + 1 for v in values]  # noqa: E731
        return list(map(abs, xs))
    assert_same_as_cpython(rebound, [1, -2], compiled=None)
    assert rebound([1, -2]) == [2, 3]


# sum ---------------------------------------------------------------------------------------

def test_sum_forms():
    def int_sums(ints, n):
        return (sum(ints), sum(i for i in range(n) if i % 3), sum([i * 2 for i in range(n)]),
                sum(ints, 10), sum(i * j for i in range(n) for j in range(3)))

    def float_sums(xs):  # 3.12+ adds these with compensation, the kernels too (analysis/compensation.py)
        return sum(xs), sum(x * x for x in xs), sum(xs, 0.5)
    assert_same_as_cpython(int_sums, [3, 1, 4], 20)
    assert_same_as_cpython(float_sums, [0.1, 0.2, 0.3, 1e16, -1e16])


def test_a_sum_site_of_ints_after_a_mix_keeps_them_ints():
    """The sum site's first entries learn a float-or-int accumulator; a later row of ints
    alone must still sum to an int (it started from 0.0 and came back 9.0)."""
    def squares(rows):
        out = []
        for row in rows:   # ragged rows: the loop stays in CPython, the sum is its own site
            out.append(sum(v * v for v in row))
        return out
    rows = [[0.5, 3] * 50, [3] * 101, [0.5, 2 ** 26 + 1], [3], [2, 0.25] * 7] * 3
    assert_same_as_cpython(squares, rows)   # results compared with their classes


def test_sum_corner_cases():
    def float_sum(xs):
        return sum(xs)
    assert_same_as_cpython(float_sum, [-0.0])          # 0 + -0.0 is 0.0
    assert_same_as_cpython(float_sum, [-0.0, -0.0])
    assert_same_as_cpython(float_sum, [], compiled=None)  # the int 0
    assert_same_as_cpython(float_sum, [True, True, False])
    assert_same_as_cpython(float_sum, numpy.array([0.1, 0.2, 0.3]))  # NumPy floats: never compensated
    assert_same_as_cpython(float_sum, numpy.array([1, 2], dtype=numpy.int32))
    assert_same_as_cpython(float_sum, [2**62, 2**62], compiled=False)  # beyond int64: CPython's big int

    def nothing_selected(n):
        return sum(1.5 for i in range(n) if i > n)
    assert_same_as_cpython(nothing_selected, 5)


def test_float_sum_is_exact_by_default():
    def total(xs):
        return sum(x for x in xs)
    values = [1e16, 1.0, -1e16, 1.0] * 1000
    assert_same_as_cpython(total, values)


# reduce ------------------------------------------------------------------------------------

def test_reduce_forms():
    def reductions(ints, floats):
        return (functools.reduce(lambda a, b: a + b, ints), functools.reduce(operator.mul, ints, 1),
                functools.reduce(max, ints), functools.reduce(lambda a, b: min(a, b), floats),
                functools.reduce(lambda a, b: a * 2 + b, ints, 7), functools.reduce(operator.add, floats, 0.5))
    assert_same_as_cpython(reductions, [3, 1, 4, 1, 5], [2.5, -1.0, 0.25])


def test_reduce_empty_and_single():
    def reduce_one(xs):
        return functools.reduce(lambda a, b: a + b, xs)

    def reduce_init(xs):
        return functools.reduce(lambda a, b: a + b, xs, 5)
    assert_same_as_cpython(reduce_one, [], compiled=False)   # TypeError, as in CPython
    assert_same_as_cpython(reduce_one, [42], compiled=None)
    assert_same_as_cpython(reduce_init, [], compiled=None)


def test_int_reductions_run_in_parallel():
    def total(xs):
        return functools.reduce(operator.add, xs), sum(xs)
    fast = assert_same_as_cpython(total, list(range(5000)))
    assert all(site["parallel_depth"] == 1 for site in site_for(fast) if site["compiled_runs"])


# end to end ---------------------------------------------------------------------------------

def test_map_reduce_program_compiles(tmp_path):
    program = ROOT / "tests" / "e2e" / "programs" / "map_reduce.py"
    report = tmp_path / "report.json"
    guarded = run_megaguards("run", "--report-json", report, program)
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout == run_python(program).stdout
    lines = program.read_text().splitlines()
    reduce_line = next(n for n, line in enumerate(lines, 1) if "functools.reduce(operator.add, big)" in line)
    loops = {loop["line"]: loop for loop in json.loads(report.read_text())["loops"]}
    assert loops[reduce_line]["compiled_runs"] > 0, loops[reduce_line]
