"""Rows of a table exchanged in a compiled loop (``a[k], a[p] = a[p], a[k]``: frontend/row_swaps.py,
ir.RowSwap): the kernel indexes the table through a map of its rows and marshal.c puts the
list's row objects in the map's order after a clean run.  Values, the places of the row
objects themselves, errors and partial state stay CPython's."""
from __future__ import annotations

import ast
import random

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.errors import Unsupported
from megaguards.frontend.lower import lower_loop
from megaguards.ir import nodes as ir


def eliminate(a, b):
    """Gaussian elimination with partial pivoting, as textbooks write it."""
    n = len(a)
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(a[i][k]) > abs(a[p][k]):
                p = i
        a[k], a[p] = a[p], a[k]
        b[k], b[p] = b[p], b[k]
        for i in range(k + 1, n):
            f = a[i][k] / a[k][k]
            for j in range(k, n):
                a[i][j] -= f * a[k][j]
            b[i] -= f * b[k]
    return b


def determinant(m):
    """The determinant by elimination: an odd number of row exchanges flips its sign."""
    n, swaps = len(m), 0
    for k in range(n):
        best, r = k, k + 1
        while r < n:
            if abs(m[r][k]) > abs(m[best][k]):
                best = r
            r += 1
        if abs(m[best][k]) < 1e-300:
            return 0.0
        if best != k:
            m[best], m[k] = m[k], m[best]
            swaps += 1
        for i in range(k + 1, n):
            factor = m[i][k] / m[k][k]
            for j in range(k, n):
                m[i][j] = m[i][j] - factor * m[k][j]
    product = 1.0
    for k in range(n):
        product *= m[k][k]
    return -product if swaps % 2 else product


def reverse_rows(t, shift):
    for i in range(len(t) // 2):
        t[i], t[-1 - i - shift] = t[-1 - i - shift], t[i]
        t[i][0] += 1
    return t[0][0]


def matrix(n, seed):
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(n)] for _ in range(n)]


def row_places(function, make, *rest):
    """Where each row object of the table ends, run by ``function``: its index at the start."""
    table = make()
    first = {id(row): k for k, row in enumerate(table)}
    function(table, *rest)
    return [first[id(row)] for row in table]


def test_gaussian_elimination_compiles_and_moves_the_row_objects_as_cpython():
    import megaguards

    fast = assert_same_as_cpython(eliminate, matrix(40, 1), [0.25 * k for k in range(40)])
    records = sites_of(fast)
    assert records[0]["compiled_runs"] and any("swaps rows of 'a'" in r for r in records[0]["reasons"]), records
    places = row_places(eliminate, lambda: matrix(40, 1), [0.25 * k for k in range(40)])
    assert places != list(range(40))   # rows did move
    assert row_places(megaguards.jit(eliminate), lambda: matrix(40, 1), [0.25 * k for k in range(40)]) == places


@pytest.mark.parametrize("n, seed", [(1, 0), (7, 3), (30, 5)])
def test_a_determinant_with_row_exchanges(n, seed):
    fast = assert_same_as_cpython(determinant, matrix(n, seed))
    assert sites_of(fast)[0]["compiled_runs"], sites_of(fast)
    singular = [[1.0, 2.0], [2.0, 4.0]]
    assert_same_as_cpython(determinant, singular)


def test_negative_and_equal_indices_and_an_index_out_of_range():
    table = [[float(k), 1.0] for k in range(9)]
    assert_same_as_cpython(reverse_rows, table, 0)
    assert_same_as_cpython(reverse_rows, [[float(k), 1.0] for k in range(8)], 0)
    # t[-1 - i - 9] is out of range at i = 1: IndexError, the first swap and its += kept
    assert_same_as_cpython(reverse_rows, [[float(k), 1.0] for k in range(9)], 8, compiled=None)


def test_a_row_held_twice_stays_in_cpython():
    row = [1.0, 2.0]
    assert_same_as_cpython(reverse_rows, [row, [3.0, 4.0], row, [5.0, 6.0]], 0, compiled=None)


def test_which_swaps_exchange_rows():
    def lowered(source):
        return lower_loop(ast.parse(source).body[0])
    loop = lowered("for k in range(n):\n    a[k], a[p] = a[p], a[k]\n    s += a[k][0]\n")
    assert ir.swapped_tables(loop.body) == {"a"}
    loop = lowered("for k in range(n):\n    b[k], b[p] = b[p], b[k]\n")   # a list of numbers: elements
    assert ir.swapped_tables(loop.body) == frozenset() and loop.arrays[0].rank == 1
    with pytest.raises(Unsupported, match="partial indexing"):   # rows assigned, not exchanged
        lowered("for k in range(n):\n    a[k], a[p] = a[p], a[q]\n    s += a[k][0]\n")
    with pytest.raises(Unsupported, match="walked by rows|partial indexing"):
        lowered("for row in a:\n    a[0], a[1] = a[1], a[0]\n    s += row[0] + a[0][0]\n")


@pytest.mark.usefixtures("cpu_device")
def test_on_all_cores_the_elimination_is_parallel_and_the_swaps_in_order():
    """The loop around the swaps stays in order; the elimination's loop inside it (rows of
    one k, each thread its rows through the map) runs on the cores, with CPython's answers."""
    fast = assert_same_as_cpython(eliminate, matrix(48, 7), [0.5 - 0.01 * k for k in range(48)])
    outer = sites_of(fast)[0]
    assert outer["parallel_depth"] >= 1 and outer["backend"] == "c-omp", outer
    assert any("swaps rows of 'a': in order" in reason for reason in outer["reasons"]), outer
    swapping = assert_same_as_cpython(reverse_rows, [[float(k), 1.0] for k in range(64)], 0)
    assert sites_of(swapping)[0]["parallel_depth"] == 0


def row_total(row, m):
    total = 0.0
    for j in range(m):
        total += row[j]
    return total


def weighted_rows(a, m):
    out = 0.0
    for k in range(len(a)):
        if k % 2:
            a[k], a[0] = a[0], a[k]
        out += row_total(a[k], m) * (k + 1)   # a row passed whole to an inlined function
        a[k][0] += 1.0
    return out


def test_a_row_passed_to_an_inlined_function_is_read_through_the_map():
    fast = assert_same_as_cpython(weighted_rows, [[float(i * 3 + j) for j in range(4)] for i in range(7)], 4)
    assert sites_of(fast)[0]["compiled_runs"], sites_of(fast)
