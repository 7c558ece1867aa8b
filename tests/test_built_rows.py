"""Rows a loop builds and appends whole to a list (frontend/built_rows.py, ir.AppendRow):
``row = []``, ``row.append(v)`` in the loop, ``table.append(row)``.  The loop around them
compiles; after a clean run each row is a new list of its values joined to the table in
order, and ``row`` names the last one.  Differential: each function runs plainly and
through megaguards.jit."""
import ast
import contextlib

import pytest

from conftest import assert_same_as_cpython, site_for
from megaguards import config
from megaguards.frontend.built_rows import built_rows
from megaguards.ir.interp import interpret
from reference_tier import bound, entries


def matmul(A, B, C):
    for i in range(len(A)):
        row = []
        for j in range(len(B[0])):
            s = 0
            for k in range(len(B)):
                s += A[i][k] * B[k][j]
            row.append(s)
        C.append(row)
    return C, row is C[-1]


def picked(A, n, m, table, row):
    for i in range(n):
        row = []
        for j in range(m):
            if (i + j) % 3 == 0:
                row.append(A[i][j] * 0.5)     # a float
            elif (i + j) % 3 == 1:
                row += [A[i][j]]              # an int
            else:
                row.extend([A[i][j] > 20, A[i][j] > 30])   # bools among the numbers
        table.append(row)
    return table, row


def numbers(A, n, m, table, row):
    for i in range(n):
        row = []
        for j in range(m):
            if (i + j) % 2:
                row.append(A[i][j] * 0.5)     # a float
            else:
                row += [A[i][j]]              # an int
        table.append(row)
    return table, row


GRID = [[i * 10 + j for j in range(5)] for i in range(4)]


def compiled_site(fast) -> dict:
    (site,) = [s for s in site_for(fast) if s["compiled_runs"]]
    return site


def test_a_matrix_product_built_row_by_row_compiles_whole():
    A = [[1.5, 2.0, -1.0], [0.5, 0.25, 3.0]]
    B = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]]
    fast = assert_same_as_cpython(matmul, A, B, [])
    site = compiled_site(fast)
    assert site["line"] == matmul.__code__.co_firstlineno + 1   # the i loop: the whole nest
    assert "appends to 'C', 'row' joined in iteration order" in " ".join(site["reasons"])


def test_rows_keep_each_values_class_and_row_names_the_last_row():
    fast = assert_same_as_cpython(numbers, GRID, 4, 5, ["before"], "row before")
    table, row = fast(GRID, 4, 5, [], None)
    assert row is table[-1] and [type(v) for v in table[0]] == [int, float, int, float, int]


def test_bools_among_numbers_stay_in_cpython():
    assert_same_as_cpython(picked, GRID, 4, 5, [], None, compiled="collects bools, or ints and floats")


def test_no_row_built_leaves_row_as_it_was():
    assert_same_as_cpython(numbers, GRID, 0, 5, [7], "unchanged")


def test_empty_rows():
    def empties(n, table):
        for i in range(n):
            row = []
            table.append(row)
        return table, row is table[-1], table[0] is not table[1]
    assert_same_as_cpython(empties, 3, [])
    assert_same_as_cpython(numbers, GRID, 3, 0, [], None)   # values typed, none collected


def test_a_flag_mid_run_gives_cpythons_partial_table_and_error():
    """The compiled run is discarded (no row joined); CPython builds rows up to the IndexError
    (its inner loops compile on their own then, appending to the row CPython made)."""
    def flagged(A, n, table):
        for i in range(n):
            row = []
            for j in range(len(A[0])):
                row.append(A[i][j] * 0.5)
            table.append(row)
        return table
    fast = assert_same_as_cpython(flagged, GRID, 5, [], compiled=None)
    (outer,) = [s for s in site_for(fast) if s["line"] == flagged.__code__.co_firstlineno + 1]
    assert outer["fallback_runs"] == 1 and outer["compiled_runs"] == 0
    assert any("runtime flag" in reason for reason in outer["reasons"]), outer["reasons"]


def test_a_table_the_loop_also_reads_stays_in_cpython():
    def grows(table, n):
        for i in range(n):
            row = []
            for j in range(3):
                row.append(table[0][j] + i)
            table.append(row)
        return table
    assert_same_as_cpython(grows, [[1, 2, 3]], 3, compiled="appended to and also used otherwise")


def test_a_table_given_rows_and_numbers_stays_in_cpython():
    def both(n, table):
        for i in range(n):
            row = []
            row.append(i)
            table.append(row)
            table.append(i)
        return table
    assert_same_as_cpython(both, 3, [], compiled="given rows the loop builds and other values")


def test_the_table_as_an_array_read_elsewhere_sends_the_loop_back():
    def twice(A, n, table):
        for i in range(n):
            row = []
            for j in range(len(A[0])):
                row.append(A[i][j] * 2)
            table.append(row)
        return table
    shared = [[1, 2], [3, 4]]
    fast = assert_same_as_cpython(twice, shared, 2, shared, compiled=None)   # the guard: one list, two roles
    (outer,) = [s for s in site_for(fast) if s["line"] == twice.__code__.co_firstlineno + 1]
    assert outer["fallback_runs"] == 1 and outer["compiled_runs"] == 0
    assert any("also an array it reads" in reason for reason in outer["reasons"]), outer["reasons"]


@pytest.mark.parametrize("source", [
    "for i in range(n):\n row = []\n for j in range(m):\n  row.append(j)\n if i: continue\n C.append(row)",
    "for i in range(n):\n row = []\n for j in range(m):\n  row.append(j)\n else:\n  break\n C.append(row)",
    "for i in range(n):\n row = []\n for j in range(m):\n  row.append(len(row))\n C.append(row)",
    "for i in range(n):\n row = []\n row.append(i)\n C.append(row)\n D.append(row)",
    "for i in range(n):\n row = []\n row.append(i)\n C.append(row)\n row = []",
    "for i in range(n):\n row = []\n row.append(i)\n C.append(row)\n print(row)",
    "for i in range(n):\n row = []\n C.append(row)\n row.append(i)",
    "for i in range(n):\n row = []\n plane = []\n row.append(i)\n plane.append(row)\n C.append(plane)",
])
def test_rows_seen_otherwise_are_not_built_rows(source):
    """A row read, left early, joined twice, bound again or appended to after it joined."""
    assert built_rows(ast.parse(source).body[0]) == {}


def test_rows_built_inside_branches_and_breaking_inner_loops_are():
    source = ("for i in range(n):\n if i % 2:\n  row = []\n  for j in range(m):\n   if j > i: break\n"
              "   row.append(j)\n  C.append(row)")
    assert built_rows(ast.parse(source).body[0]) == {"row": "C"}


def test_the_interpreter_builds_the_same_table():
    (entry, *_) = [e for e in entries(numbers, GRID, 4, 5, [], None) if e.site.loop is not None]
    binding, scalars, arrays, functions = bound(entry)
    interpret(entry.site.loop, scalars, arrays, functions)
    assert arrays["table"] == numbers(GRID, 4, 5, [], None)[0]


@contextlib.contextmanager
def threads(count: int):
    saved = config.current()
    try:
        config.configure(threads=count)
        yield
    finally:
        config.configure(threads=saved.threads)


def ragged(A, n, table, picked):
    for i in range(n):
        row = []
        for j in range(i % 7):
            row.append(A[i][j] * 0.5 if j % 2 else A[i][j])
            if A[i][j] % 5 == 0:
                picked.append(A[i][j])
        table.append(row)
    return table, row, picked


@pytest.mark.parametrize("count", [3, 5, 2])   # 5 threads for 3 rows: some run no iteration
def test_rows_and_values_built_by_several_threads_join_in_iteration_order(count):
    grid = [[(i * 31 + j * 17) % 97 for j in range(7)] for i in range(400)]
    with threads(count):
        fast = assert_same_as_cpython(ragged, grid, 400, [], [-1])
        assert_same_as_cpython(ragged, grid, 3, [[1]], [])
        assert_same_as_cpython(ragged, grid, 0, [], [])
    sites = [s for s in site_for(fast) if s["line"] == ragged.__code__.co_firstlineno + 1]
    assert any(s["backend"] == "c-omp" and s["parallel_depth"] == 1 for s in sites), sites


def test_an_error_in_one_thread_sends_the_loop_back_whole():
    grid = [[(i * 31 + j * 17) % 97 for j in range(7)] for i in range(300)]
    grid[250] = [1, 2]   # a short row: IndexError in some thread's share
    with threads(4):
        assert_same_as_cpython(ragged, grid, 300, [], [], compiled=None)


def test_appends_beside_a_float_sum_in_iteration_order_stay_sequential():
    def summed(a, out):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
            out.append(a[i] * 2)
        return s, out
    with threads(3):
        fast = assert_same_as_cpython(summed, [0.1 * k for k in range(100)], [])
    reasons = " ".join(r for site in site_for(fast) for r in site["reasons"])
    assert "it appends to 'out' and sums 's' (float) in iteration order" in reasons


def test_a_cached_plan_keeps_every_field_of_its_loops():
    """The plan on disk (runtime/plans.py) is read back whole: a parallel loop's lists joined
    per thread were dropped once, and the next process's kernel appended from every thread
    into one buffer (a double free).  Every field of ParallelLoop, set, must come back."""
    from megaguards import record as records
    from megaguards.analysis.features import LoopTemplate
    from megaguards.analysis.parallel import ParallelLoop, ParallelPlan, Reduction
    from megaguards.runtime.plans import from_record, record

    loop = ParallelLoop(7, ("j", "s"), (Reduction("s", "+", False, ""),), 42, (("work", 9),), ("out", "row", "table"))
    defaults = ParallelLoop(7, (), (), 0)
    assert all(getattr(loop, f.name) != getattr(defaults, f.name) for f in records.fields(ParallelLoop)
               if f.name != "loop")   # a field added later and left at its default here fails this
    plan = ParallelPlan({7: loop}, ("why not",), ("a note",))
    assert from_record(record(plan, LoopTemplate((), True, 0)))[0] == plan


def comprehension_rows(A, n, table, j):
    for i in range(n):
        table.append([A[i][j] * 0.5 + i for j in range(len(A[i])) if j != i])
    return table, j


def elements_rows(A, table):
    for i in range(len(A)):
        table.append([v * 2 for v in A[i]])
    return table


def test_a_comprehension_appended_is_a_row_the_loop_builds():
    """``table.append([e for j in ...])``: the loop around compiles; the comprehension's
    variable is its own (the function's ``j`` is left as it was)."""
    fast = assert_same_as_cpython(comprehension_rows, GRID, 4, ["x"], "outer j")
    (site,) = [s for s in site_for(fast) if s["compiled_runs"]]
    assert site["line"] == comprehension_rows.__code__.co_firstlineno + 1
    assert_same_as_cpython(comprehension_rows, GRID, 0, [], 7)
    assert_same_as_cpython(elements_rows, GRID, [])


def test_two_comprehensions_into_one_table_stay_in_cpython():
    def two(n, table):
        for i in range(n):
            table.append([j for j in range(i)])
            table.append([j * 0.5 for j in range(i)])
        return table
    assert_same_as_cpython(two, 4, [], compiled="'table' is given rows built in two places")
