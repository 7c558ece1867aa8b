"""Temporary arrays of a parallel loop's iterations (analysis/parallel._private_arrays,
codegen/targets/openmp._private_copies): a 1-D list each iteration writes whole before it
reads it (PolyBench's doitgen: ``sum``) no longer keeps the loop sequential; each thread
works on its own copy, and the list ends as CPython leaves it: the last iteration's values."""
from __future__ import annotations

import megaguards
import pytest
from conftest import assert_same_as_cpython


def doitgen(nr, nq, np, A, C4, sum):
    for r in range(nr):
        for q in range(nq):
            for p in range(np):
                sum[p] = 0.0
                for s in range(np):
                    sum[p] = sum[p] + A[r][q][s] * C4[s][p]
            for p in range(np):
                A[r][q][p] = sum[p]


def doitgen_inputs(nr=5, nq=7, np=6):
    A = [[[((i * j + k) % np) / np for k in range(np)] for j in range(nq)] for i in range(nr)]
    C4 = [[(i * j % np) / np + 0.25 for j in range(np)] for i in range(np)]
    return nr, nq, np, A, C4, [-1.0] * (np + 2)   # longer than the loop writes: the rest stays


def copied(function) -> str:
    return megaguards.explain(megaguards.jit(function))


def test_doitgen_runs_its_r_loop_in_parallel():
    """sum is written whole by every q iteration before it is read: private to r's
    iterations too (the writer inside the q loop), and the last (r, q)'s values kept."""
    fast = assert_same_as_cpython(doitgen, *doitgen_inputs())
    explained = megaguards.explain(fast)
    assert "loop 'r' at line 13: parallel (OpenMP)" in explained, explained
    assert "a copy of 'sum' per thread, the last iteration's kept" in explained
    assert_same_as_cpython(doitgen, *doitgen_inputs(1, 7, 6))
    nr, nq, np, A, C4, sum = doitgen_inputs()
    for nq, np in ((0, np), (nq, 0)):   # no q or no p iteration: sum stays as it was
        fast = assert_same_as_cpython(doitgen, nr, nq, np, A, C4, sum)
    assert "loop 'r' at line 13: parallel (OpenMP)" in megaguards.explain(fast)


def wrapped_exit(a, n, m, tmp):   # a 'break' in the q loop may skip the writer in the last row
    for i in range(n):
        for q in range(3):
            if a[i][q] > 5.0:
                break
            for k in range(m):
                tmp[k] = a[i][k] + q
            for k in range(m):
                a[i][k] = tmp[k]


def wrapped_by_row(a, n, m, tmp):   # the q loop's range changes with i: empty for i = 0
    for i in range(n):
        for q in range(i):
            for k in range(m):
                tmp[k] = a[i][k] + q
            for k in range(m):
                a[i][k] = tmp[k]


def wrapped_then_read(a, n, m, tmp):   # read again after the q loop: an empty q loop reads what was there
    for i in range(n):
        for q in range(2):
            for k in range(m):
                tmp[k] = a[i][k] + q
        for k in range(m):
            a[i][k] = tmp[k]


@pytest.mark.parametrize("function", [wrapped_exit, wrapped_by_row, wrapped_then_read])
def test_temporaries_in_loops_that_may_not_write_them_keep_the_outer_loop_sequential(function):
    grid = [[float((i * 5 + k) % 7) for k in range(6)] for i in range(10)]
    fast = assert_same_as_cpython(function, grid, 10, 6, [0.5] * 6)
    explained = megaguards.explain(fast)
    assert "loop 'i' at line" in explained and "carries" in explained, explained


def counts_per_row(table, n, m, counts, flags):
    """An int and a bool temporary, written by one loop, read by two later ones."""
    for i in range(n):
        for k in range(m):
            counts[k] = table[i][k] * 2
            flags[k] = table[i][k] > 2
        for k in range(m):
            table[i][k] = counts[k] + (1 if flags[k] else 0)
        for k in range(m):
            counts[k] = counts[k] - 1


def negative_range(a, n, m, tmp):
    """``range(-m, 0)``: the temporary's elements from the end, as Python wraps them."""
    for i in range(n):
        for k in range(-m, 0):
            tmp[k] = a[i][k] * 0.5
        for k in range(-m, 0):
            a[i][k] = tmp[k] + tmp[k]


def test_int_bool_and_negatively_indexed_temporaries():
    table = [[(i * 3 + k) % 5 for k in range(6)] for i in range(9)]
    fast = assert_same_as_cpython(counts_per_row, table, 9, 6, [0] * 6, [False] * 6)
    assert "a copy of 'counts' per thread" in megaguards.explain(fast)
    assert "a copy of 'flags' per thread" in megaguards.explain(fast)
    grid = [[float(i * 4 + k) for k in range(5)] for i in range(8)]
    fast = assert_same_as_cpython(negative_range, grid, 8, 3, [9.0] * 5)
    assert "a copy of 'tmp' per thread" in megaguards.explain(fast)


def carried(a, n, m, tmp):        # reads before writing: each row adds to the last one's
    for i in range(n):
        for k in range(m):
            tmp[k] = tmp[k] + a[i][k]
        for k in range(m):
            a[i][k] = tmp[k]


def shorter_write(a, n, m, tmp):  # writes m - 1 elements, reads m: the last comes from before
    for i in range(n):
        for k in range(m - 1):
            tmp[k] = a[i][k]
        for k in range(m):
            a[i][k] = tmp[k] * 2.0


def skips(a, n, m, tmp):          # a 'continue' may leave the last row's copy unwritten
    for i in range(n):
        if i % 3 == 2:
            continue
        for k in range(m):
            tmp[k] = a[i][k] + 1.0
        for k in range(m):
            a[i][k] = tmp[k]


def conditional(a, n, m, tmp):    # the first write is under a condition
    for i in range(n):
        for k in range(m):
            if a[i][k] > 3.0:
                tmp[k] = a[i][k]
        for k in range(m):
            a[i][k] = tmp[k]


def aliased(a, n, m, tmp, other):  # the temporary is also another name's list
    for i in range(n):
        for k in range(m):
            tmp[k] = a[i][k] + 1.0
        for k in range(m):
            a[i][k] = other[k]


@pytest.mark.parametrize("function", [carried, shorter_write, skips, conditional])
def test_temporaries_that_carry_values_keep_the_loop_sequential(function):
    grid = [[float((i * 5 + k) % 7) for k in range(6)] for i in range(10)]
    fast = assert_same_as_cpython(function, grid, 10, 6, [0.5] * 6)
    explained = megaguards.explain(fast)
    assert "a copy of" not in explained and "loop 'i' at line" in explained, explained


def test_an_aliased_temporary_keeps_the_loop_sequential():
    grid = [[float((i * 5 + k) % 7) for k in range(6)] for i in range(10)]
    tmp = [0.5] * 6
    fast = assert_same_as_cpython(aliased, grid, 10, 6, tmp, tmp)
    assert "a copy of" not in megaguards.explain(fast)


def raises_midway(a, n, m, tmp, index):
    for i in range(n):
        for k in range(m):
            tmp[k] = a[i][k] * 2.0
        for k in range(m):
            a[i][k] = tmp[index[k]]     # an index past the end in one row: IndexError, rows before done


def test_an_exception_leaves_cpythons_partial_state():
    grid = [[float(i + k) for k in range(6)] for i in range(10)]
    assert_same_as_cpython(raises_midway, grid, 10, 6, [0.0] * 6, [5, 4, 3, 2, 1, 9], compiled=None)


DOITGEN_SCRIPT = '''
import inspect, sys
{source}
nr, nq, np, A, C4, sum_ = {inputs!r}
doitgen(nr, nq, np, A, C4, sum_)
print(repr(A), repr(sum_))
'''


def test_a_cached_plan_keeps_its_copies(tmp_path):
    """The plan read back from the cache by the next process still copies the temporary
    per thread (its loop would race on the shared list otherwise)."""
    import inspect

    from conftest import run_megaguards, run_python

    script = tmp_path / "doitgen_script.py"
    script.write_text(DOITGEN_SCRIPT.format(source=inspect.getsource(doitgen), inputs=doitgen_inputs(6, 9, 5)))
    expected = run_python(script)
    cache = {"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")}
    first = run_megaguards("run", script, env=cache)
    second = run_megaguards("explain", script, env=cache)
    assert first.stdout == second.stdout == expected.stdout != "", (first.stderr, second.stderr)
    assert "a copy of 'sum' per thread" in second.stderr, second.stderr
