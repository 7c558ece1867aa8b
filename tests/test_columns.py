"""``for col in zip(*rows)`` (frontend/columns.py): the columns of a table read in place.
Results, the name's value after the loop (the last column's tuple, its very objects),
exceptions and refusals stay CPython's."""
from __future__ import annotations

import ast
import random

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.errors import Unsupported
from megaguards.frontend.lower import lower_loop


def column_totals(rows, out):
    for col in zip(*rows):
        out.append(sum(col))
    return out


def column_ranges(rows, spans):
    k = 0
    for col in zip(*rows):
        low, high = min(col), max(col)
        spans[k] = (high - low) / len(col)
        k += 1
    return col, k


def weighted(rows, weights, out):
    for j, col in enumerate(zip(*rows)):
        total = 0.0
        for i in range(len(col)):
            total += col[i] * weights[i]
        out[j] = total
    return out


def first_negative(rows):
    found = -1
    for col in zip(*rows):
        for v in col:
            if v < 0 and found < 0:
                found = v
    return found


def table(n, m, seed, low=-1.0):
    rng = random.Random(seed)
    return [[round(rng.uniform(low, 1.0), 4) for _ in range(m)] for _ in range(n)]


@pytest.mark.parametrize("n, m", [(30, 17), (1, 5), (6, 1)])
def test_column_sums_and_ranges_as_cpython(n, m):
    fast = assert_same_as_cpython(column_totals, table(n, m, 1), [])
    assert all(record["compiled_runs"] for record in sites_of(fast)[:1]), sites_of(fast)
    assert_same_as_cpython(column_ranges, table(n, m, 2), [0.0] * m)
    assert_same_as_cpython(weighted, table(n, m, 3), [0.5 + k for k in range(n)], [0.0] * m)
    assert_same_as_cpython(first_negative, table(n, m, 4))


def test_the_last_column_is_the_tuple_of_the_rows_own_objects():
    import megaguards

    rows = table(8, 5, 5)
    col, k = megaguards.jit(column_ranges)(rows, [0.0] * 5)
    assert type(col) is tuple and k == 5
    assert all(value is row[-1] for value, row in zip(col, rows))


def test_rows_of_no_columns_leave_the_name_unbound_as_cpython():
    assert_same_as_cpython(column_ranges, [[], []], [0.0], compiled=None)


def test_numpy_columns():
    np = pytest.importorskip("numpy")
    assert_same_as_cpython(weighted, np.array(table(12, 7, 6)), np.arange(12.0), np.zeros(7))


def writes_its_table(rows, other):
    for col in zip(*rows):
        other[0][0] = col[0] + 1.0
    return rows[0][0]


def test_a_table_written_under_another_name_stays_in_cpython():
    rows = table(4, 3, 7)
    assert_same_as_cpython(writes_its_table, rows, rows, compiled="written while zip(*rows)")


def test_a_ragged_table_runs_in_cpython_with_its_result():
    assert_same_as_cpython(column_totals, [[1.0, 2.0, 3.0], [4.0, 5.0]], [], compiled=False)


def lowered(source: str):
    return lower_loop(next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For)))


@pytest.mark.parametrize("source, reason", [
    ("for col in zip(*rows):\n    out.append(col)\n", "used as a value"),
    ("for col in zip(*rows):\n    rows[0][0] = col[0]\n", "written while zip"),
    ("for i in range(n):\n    for col in zip(*rows):\n        s += col[0]\n", "the site itself"),
    ("for col in zip(*rows):\n    s += len(col[0])\n", r"len\(\) of an element"),
])
def test_refusals(source, reason):
    with pytest.raises(Unsupported, match=reason):
        lowered(source)


# In comprehensions and reductions of generators: the expression site's loop -----------------

def column_sums_listed(rows):
    return [sum(col) for col in zip(*rows)]


def widest_spread(rows):
    return max((max(c) - min(c) for c in zip(*rows)), default=-1.0)


def mean_of_maxima(rows, start):
    return sum((max(c) for c in zip(*rows)), start) / max(1, len(rows))


@pytest.mark.parametrize("rows", [table(25, 9, 8), table(1, 4, 9), [[1.0], [2.5]]])
def test_comprehensions_over_columns(rows):
    for function, arguments in ((column_sums_listed, (rows,)), (widest_spread, (rows,)),
                                (mean_of_maxima, (rows, 0.5))):
        fast = assert_same_as_cpython(function, *arguments)
        assert sites_of(fast)[0]["compiled_runs"], sites_of(fast)


def test_comprehensions_over_no_columns_and_over_numbers_are_cpythons():
    assert_same_as_cpython(column_sums_listed, [[], []], compiled=None)
    assert_same_as_cpython(widest_spread, [], compiled=None)
    assert_same_as_cpython(column_sums_listed, [1.0, 2.0], compiled=False)   # TypeError: not iterable


def zip_rebound(rows):
    zip = reversed   # noqa: F841 (the comprehension's zip is this one)
    return [sum(col) for col in zip(*rows)]


def test_a_rebound_zip_is_called_as_cpython_calls_it():
    assert_same_as_cpython(zip_rebound, [[1.0, 2.0]], compiled=False)


def test_numpy_columns_in_a_comprehension():
    np = pytest.importorskip("numpy")
    assert_same_as_cpython(column_sums_listed, np.array(table(10, 6, 10)))
