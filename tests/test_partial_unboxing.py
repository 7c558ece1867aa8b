"""Lists unboxed only where the loop touches them (analysis/bounds.touched_box, the
prologue's boxes, runtime/marshal.c): a loop entered once per row of a large 2-D list
moves that row, not the list, and the result is CPython's in every case, rows the loop
cannot touch being anything at all.  A read-only list whose box holds the same objects as
at the last entry is not unboxed again (marshal.c's snapshots)."""
from __future__ import annotations

import pytest

import megaguards
from conftest import assert_same_as_cpython, sites_of
from megaguards.runtime.site import REGISTRY


def row_sum(a, out, i, n):
    for j in range(1, n - 1):
        out[i][j] = a[i - 1][j] + a[i][j - 1] + a[i + 1][j + 1] * 0.5


def shifted_sum(a, i, n):
    total = 0.0
    for j in range(n):
        total += a[i - 1][j]   # i = 0 reads the last row, as Python does
    return total


def first_row_width(a, b):
    for j in range(len(a[0])):
        b[0][j] = a[2][j] * 2.0


def some_row_width(a, b, k):
    for j in range(len(a[k])):
        b[0][j] = a[2][j] * 2


def grid(rows: int, columns: int) -> list:
    return [[float(i * columns + j) for j in range(columns)] for i in range(rows)]


def elements(function) -> dict:
    [record] = sites_of(function)
    return record.get("list_elements", {})


def test_an_inner_loop_entered_per_row_unboxes_three_rows():
    fast = megaguards.jit(row_sum)
    n = 60
    a, out, expected = grid(n, n), [[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)]
    for i in range(1, n - 1):
        row_sum(a, expected, i, n)
        fast(a, out, i, n)
    assert out == expected
    [record] = sites_of(fast)
    assert record["compiled_runs"] == n - 2 and record["checks_in_loop"] == 0
    counted = record["list_elements"]
    # a: three rows (the box of columns 0 to n - 1); out: one row of n - 2 columns
    assert counted["unboxed"] == (n - 2) * (3 * n + (n - 2))
    assert counted["held"] == (n - 2) * 2 * n * n


def test_rows_the_loop_cannot_touch_may_hold_anything():
    n = 20
    a = grid(n, n)
    a[15][3], a[17] = "text", [1, 2]   # neither a float nor a row of n elements
    out = [[0.0] * n for _ in range(n)]
    out[12] = None
    assert_same_as_cpython(row_sum, a, out, 5, n)


def test_a_touched_row_of_another_length_falls_back():
    n = 20
    a = grid(n, n)
    a[6] = a[6][:-1]   # row 6 is read: Python raises IndexError at a[i + 1][n - 1]
    assert_same_as_cpython(row_sum, a, [[0.0] * n for _ in range(n)], 5, n, compiled=False)


def test_a_negative_subscript_wraps_and_unboxes_the_whole_dimension():
    n = 12
    a = grid(n, n)
    fast = assert_same_as_cpython(shifted_sum, a, 0, n)   # row -1: the last one
    assert elements(fast)["unboxed"] == n * n
    assert_same_as_cpython(shifted_sum, a, 4, n)
    a[n - 1][0] = "text"   # the last row is in the box of i = 0
    assert_same_as_cpython(shifted_sum, a, 0, n, compiled=False)
    assert_same_as_cpython(shifted_sum, a, 4, n)                   # but not in that of i = 4


def test_rows_not_written_keep_their_objects():
    n = 10
    fast = megaguards.jit(row_sum)
    a, out = grid(n, n), [[float(j) for j in range(n)] for _ in range(n)]
    kept = [row[:] for row in out]
    fast(a, out, 3, n)
    assert all(out[r][c] is kept[r][c] for r in range(n) if r != 3 for c in range(n))
    assert out[3][0] is kept[3][0] and out[3][n - 1] is kept[3][n - 1]


def test_one_list_under_two_names_unboxes_the_union_of_their_boxes():
    def copy_down(a, b, i, n):
        for j in range(n):
            a[i][j] = b[i + 2][j] * 2.0 + a[i][j]
    n = 8
    shared = grid(n, n)
    assert_same_as_cpython(copy_down, shared, shared, 1, n)
    fast = megaguards.jit(copy_down)
    shared = grid(n, n)
    expected = grid(n, n)
    copy_down(expected, expected, 1, n)
    fast(shared, shared, 1, n)
    assert shared == expected


def test_a_subscript_out_of_range_raises_as_in_python():
    n = 10
    assert_same_as_cpython(row_sum, grid(n, n), [[0.0] * n for _ in range(n)], n - 1, n, compiled=None)


def test_len_of_the_first_row_bounds_a_loop_without_checks():
    a = [[1.0, 2.0, 3.0], [4.0, 5.0], [6.0, 7.0, 8.0]]   # row 1, shorter, is never touched
    fast = assert_same_as_cpython(first_row_width, a, [[0.0, 0.0, 0.0]])
    [record] = sites_of(fast)
    [site] = [site for site in REGISTRY.sites if site.id in fast.__megaguards_sites__]
    [compiled] = site.compiled
    # j's range is known before the loop: its subscripts are checked there, not in the loop
    hoisted = " ".join(getattr(compiled, "cpu", compiled).preconditions)
    assert "subscript 2 of 'a' in range" in hoisted and "subscript 2 of 'b' in range" in hoisted
    assert record["list_elements"] == {"unboxed": 3 + 3, "held": 9 + 3, "reused": 0, "boxed": 3}   # row 2 of a, row 0 of b
    assert_same_as_cpython(first_row_width, [], [[0.0]], compiled=None)   # len(a[0]) of []: IndexError


def test_len_of_another_row_unboxes_the_whole_list():
    a = [[1, 2, 3], [4, 5, 6], [6, 7, 8]]
    fast = assert_same_as_cpython(some_row_width, a, [[0, 0, 0]], 1)
    counted = elements(fast)
    assert counted["unboxed"] == counted["held"] == 9 + 3
    assert_same_as_cpython(some_row_width, [[1, 2, 3], [4, 5], [6, 7, 8]], [[0, 0, 0]], 1, compiled=False)


def test_a_loop_that_runs_no_iteration_unboxes_nothing():
    n = 10
    fast = assert_same_as_cpython(shifted_sum, grid(n, n), 3, 0, compiled=None)
    assert elements(fast).get("unboxed", 0) == 0


def cross_out(flags, p, limit):
    for multiple in range(p * p, limit + 1, p):
        flags[multiple] = False


def every_third(a, start, n):
    for j in range(start, n, 3):
        a[j] = a[j] * 2.0 + a[j - 1]   # two subscripts of one dim: the box holds every element


def scaled_columns(a, b, i, m, step):
    for j in range(0, m, step):
        b[i][j] = a[i][j] * 0.5


def test_a_loop_with_a_variable_step_unboxes_only_the_elements_it_steps_on():
    limit = 10_000
    fast = megaguards.jit(cross_out)
    flags, expected = [True] * (limit + 1), [True] * (limit + 1)
    for p in (2, 3, 5, 7, 97):
        cross_out(expected, p, limit)
        fast(flags, p, limit)
    assert flags == expected
    [record] = sites_of(fast)
    assert record["compiled_runs"] == 5
    touched = sum(len(range(p * p, limit + 1, p)) for p in (2, 3, 5, 7, 97))
    assert record["list_elements"] == {"unboxed": touched, "held": 5 * (limit + 1), "reused": 0, "boxed": touched}


def test_a_step_of_zero_or_below_zero_is_python_s():
    assert_same_as_cpython(cross_out, [True] * 50, 0, 49, compiled=None)      # ValueError: arg 3 is zero
    assert_same_as_cpython(scaled_columns, grid(3, 9), grid(3, 9), 1, 9, -2, compiled=None)   # an empty range
    def backwards(a, n, step):
        for j in range(n - 1, -1, step):
            a[j] = a[j] + j
    assert_same_as_cpython(backwards, [0.5] * 11, 11, -3)


def test_strided_elements_keep_their_neighbours_and_their_types():
    n = 20
    a = [float(k) for k in range(n)]
    a[3] = "not touched"   # every_third(a, 2, ...) reads a[1], a[2], a[4], a[5], ...: a[3] too
    assert_same_as_cpython(every_third, a, 2, n, compiled=False)
    a = [float(k) for k in range(n)]
    fast = assert_same_as_cpython(every_third, a, 1, n)
    a = [[float(j) for j in range(n)] for _ in range(3)]
    a[1][1] = "between the columns stepped on"
    fast = assert_same_as_cpython(scaled_columns, a, grid(3, n), 1, n, 2)
    assert elements(fast)["unboxed"] == 2 * len(range(0, n, 2))


def test_a_variable_step_loop_is_not_parallel():
    fast = assert_same_as_cpython(cross_out, [True] * 101, 3, 100)
    [record] = sites_of(fast)
    assert record["backend"] == "c-seq"
    assert any("its step is a variable" in reason for reason in record["reasons"])


def test_a_strided_loop_from_below_zero_wraps_and_unboxes_every_element():
    def bump(a, n):
        for j in range(-4, n, 3):   # a[-4], a[-1], a[2], a[5], ...
            a[j] = a[j] + 0.5
    n = 13
    fast = assert_same_as_cpython(bump, [float(k) for k in range(n)], n)
    assert elements(fast)["unboxed"] == n


# -- snapshots: a read-only list's unboxing reused while its box holds the same objects -------

def weighted(A, w, out, i, n):
    for j in range(n):
        out[i] += A[i][j] * w[j]


def run_both(A, w, out, rows, n, fast):
    """``fast`` and CPython over the same rows, on copies: the outputs must agree."""
    expected = list(out)
    for i in rows:
        weighted(A, w, expected, i, n)
        fast(A, w, out, i, n)
    assert out == expected


@pytest.fixture
def weighted_site(no_speed_probes):
    fast = megaguards.jit(weighted)
    return fast, lambda: elements(fast).get("reused", 0)


def test_a_read_only_list_met_again_is_not_unboxed_again(weighted_site):
    fast, reused = weighted_site
    n = 100
    A, w = grid(n, n), [float(k % 3) for k in range(n)]
    run_both(A, w, [0.0] * n, range(n), n, fast)
    # w's box is the same at every entry: a snapshot at the second, reused from the third on;
    # A's box is another row at each entry: no snapshot kept.
    assert reused() == (n - 2) * n


def test_a_changed_element_is_seen(weighted_site):
    fast, reused = weighted_site
    n = 80
    A, w = grid(n, n), [float(k % 3) for k in range(n)]
    out = [0.0] * n
    run_both(A, w, out, [5] * 4, n, fast)
    before = reused()
    assert before == 2 * 2 * n       # A's row 5 and w, at the third and fourth entries
    w[7] = 2.5                       # another value
    run_both(A, w, out, [5], n, fast)
    old = w[9]
    w[9] = old + 0.0                 # the same value, a new object: unboxed again, same result
    assert w[9] is not old
    run_both(A, w, out, [5] * 2, n, fast)
    assert reused() == before + 3 * n   # A's row only: w missed twice, and was given up
    run_both(A, w, out, [5] * 2, n, fast)
    assert reused() == before + 7 * n   # w's snapshot made again after one entry's wait: both reused
    w[11] = "not a number"           # the guard fails, as it must
    assert_same_as_cpython(weighted, A, w, list(out), 5, n, compiled=False)


def test_grown_shrunk_or_replaced_rows_are_seen(weighted_site):
    fast, reused = weighted_site
    n = 70
    A, w = grid(n, n), [1.0] * n
    out = [0.0] * n
    run_both(A, w, out, [3] * 3, n, fast)
    w.append(4.0)                    # grown: the box (n elements) still holds the same objects
    run_both(A, w, out, [3], n, fast)
    del w[-2:]                       # shrunk below the loop's range: IndexError, as in Python
    assert_same_as_cpython(weighted, A, w, list(out), 3, n, compiled=None)
    w.append(1.0)
    B = [row[:] for row in A]
    B[3] = [2.0] * n                 # a row replaced
    A[3] = B[3]                      # and shared by two lists
    run_both(A, w, out, [3] * 3, n, fast)
    run_both(B, w, out, [3] * 3, n, fast)
    assert reused() > 0


def test_a_written_list_is_never_reused(weighted_site):
    fast, _ = weighted_site
    n = 64
    A, w = grid(n, n), [1.0] * n
    out = [0.0] * n
    run_both(A, w, out, [2] * 6, n, fast)   # out is written at each entry: unboxed each time
    assert out[2] == 6 * sum(A[2])


def table(n, m):
    return [[(i * 3 + j) * 0.5 if j % 3 else i - j for j in range(m)] for i in range(n)]


def test_a_comprehensions_fresh_output_is_written_not_unboxed():
    fast = megaguards.jit(table)
    assert fast(30, 20) == table(30, 20)
    assert [type(x) for x in fast(2, 4)[1]] == [type(x) for x in table(2, 4)[1]]   # each element's class
    [record] = sites_of(fast)
    counted = record["list_elements"]
    assert record["compiled_runs"] == 2 and counted["held"] == 30 * 20 + 2 * 4 and counted["unboxed"] == 0


def doubled(a, b, n):
    for i in range(n):
        for j in range(n):
            b[i][j] = a[i][j] * 2.0


def summed(a, b, c, n):
    for i in range(n):
        for j in range(n):
            c[i][j] = a[i][j] + b[i][j]


def every_other_column(a, b, n):
    for i in range(n):
        for j in range(0, n, 2):
            b[i][j] = a[i][j] * 0.5


def test_a_large_buffer_kept_for_the_next_entry_holds_nothing_stale():
    """marshal.c keeps one large unboxing buffer (a megabyte or more) for the next entry:
    its old values never show, it serves one list of an entry only, and elements the next
    loop steps over keep their objects."""
    n = 400   # 400 * 400 doubles: 1.25 MiB, above the size kept
    a = grid(n, n)
    assert_same_as_cpython(doubled, a, [[0.0] * n for _ in range(n)], n)
    b = [[float(-i - j) for j in range(n)] for i in range(n)]
    assert_same_as_cpython(summed, a, b, [[0.0] * n for _ in range(n)], n)   # two lists of that size
    steps = [[float(i * n - j) for j in range(n)] for i in range(n)]
    steps[5][1] = "between the columns stepped on"
    fast = assert_same_as_cpython(every_other_column, steps, grid(n, n), n)
    [record] = [r for r in sites_of(fast) if r["compiled_runs"]]   # the outer loop's site
    assert record["list_elements"]["unboxed"] == 2 * n * len(range(0, n, 2))
