"""Bounds and overflow checks hoisted out of loops: the compiled loop that runs has
no checks left for affine subscripts, the results stay CPython's, and a failed
hoisted check says which one and falls back to the checked copy."""
import numpy

import megaguards
from megaguards import config

from conftest import assert_same_as_cpython, site_for, sites_of


def checks_of(function, *arguments):
    fast = assert_same_as_cpython(function, *arguments)
    return site_for(fast)[-1]["checks_in_loop"]


def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def stencil(A, B, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1])


def saxpy(a, x, y):
    for i in range(len(x)):
        y[i] = a * x[i] + y[i]


def shift(a, b):
    for i in range(len(a)):
        b[i] = a[i - 1]


def flattened(C, A, NI, NJ):
    for i in range(NI):
        for j in range(NJ):
            C[NJ * i + j] = A[NJ * i + j] * 2.0 + C[i * NJ + j]


def reverse(a, b):
    for i in range(len(a)):
        b[i] = a[len(a) - 1 - i]


def grid(n):
    return [[float(i * n + j) for j in range(n)] for i in range(n)]


def test_affine_kernels_keep_no_checks_inside():
    assert checks_of(matmul, grid(6), grid(6), grid(6), 6) == 0
    assert checks_of(stencil, grid(7), grid(7), 7) == 0
    assert checks_of(saxpy, 2.5, numpy.arange(9.0), numpy.ones(9)) == 0
    assert checks_of(shift, [1, 2, 3, 4], [0, 0, 0, 0]) == 0  # a[-1] read at i = 0, wrapped
    assert checks_of(flattened, [1.0] * 12, [2.0] * 12, 3, 4) == 0
    assert checks_of(reverse, [1.5, 2.5, 3.5], [0.0] * 3) == 0


def test_failed_hoisted_check_runs_the_checked_loop_and_says_why():
    def partial(a, b, n):
        for i in range(n):
            if a[i] < 3:
                b[i] = a[i + 1]   # i + 1 reaches n, but only where the if (on a value) is false
    fast = assert_same_as_cpython(partial, [1, 2, 3, 4], [0, 0, 0, 0], 4)
    loop = site_for(fast)[-1]
    assert loop["compiled_runs"] >= 1
    assert any("hoisted check failed" in reason and "subscript 1 of 'a'" in reason for reason in loop["reasons"])


def test_out_of_range_affine_subscript_still_raises_like_python():
    assert_same_as_cpython(shift, [1, 2, 3], [0, 0], compiled=None)
    def past_end(a, n):
        for i in range(n):
            a[i + 1] = a[i]
    assert_same_as_cpython(past_end, [1, 2, 3], 3, compiled=False)


def test_overflow_of_hoisted_index_arithmetic_is_detected():
    def far(a, big):
        for i in range(2):
            a[i] = a[big * (i + 1) - big * (i + 1)]
    assert_same_as_cpython(far, [7, 8], 2**62, compiled=False)  # Python: big ints, index 0
    assert_same_as_cpython(far, [7, 8], 5)


def test_hoisting_can_be_switched_off():
    previous = config.current()
    try:
        config.configure(hoist=False)
        fast = megaguards.jit(saxpy)
        y = numpy.ones(5)
        fast(2.0, numpy.arange(5.0), y)
        assert site_for(fast)[-1]["checks_in_loop"] == 3  # x[i], y[i] read, y[i] written
    finally:
        config.configure(hoist=previous.hoist)


def mirrored_rows(A, m):
    s = 0.0
    for j in range(len(A) - 1):
        for i in range(m):
            s = s * 0.5 + A[j][m - i]   # m - i ranges over [m - (m - 1), m - 0] = [1, m]
    return s


def test_interval_of_a_difference_pairs_low_with_high():
    rows = [[10.0 * r + c for c in range(4)] for r in range(3)]
    fast = assert_same_as_cpython(mirrored_rows, rows, 3)
    assert sites_of(fast)[0]["checks_in_loop"] == 0
    # m = 4 reaches A[j][4], past each row's end (inside the unboxed matrix, a row further):
    # the hoisted check fails, the checked copy raises and CPython says IndexError.
    fast = assert_same_as_cpython(mirrored_rows, rows, 4, compiled=None)
    assert any("hoisted check failed" in reason and "subscript 2 of 'A'" in reason
               for reason in sites_of(fast)[0]["reasons"]), sites_of(fast)[0]["reasons"]


def rebound_by_an_inner_loop(A, n, m):
    s = 0
    for j in range(n):
        for i in range(n):
            for i in range(m):       # rebinds the middle loop's variable: i is m - 1 afterwards
                s += 1
            s = s * 3 + A[j][i]
    return s


def test_a_loop_variable_rebound_by_an_inner_loop_is_not_bounded_by_its_range():
    rows = [[4 * r + c for c in range(4)] for r in range(3)]
    assert_same_as_cpython(rebound_by_an_inner_loop, rows, 3, 2)
    # i is 5 after the inner loop, though the middle loop's range(2) stops at 1: IndexError
    # (the element the flat index j * 4 + 5 points to lies inside the unboxed matrix).
    assert_same_as_cpython(rebound_by_an_inner_loop, rows, 2, 6, compiled=None)


# -- path-sensitive ranges (bounds.Refinement) --------------------------------------------------

def clamped_stencil(t, out, rows, cols):
    for r in range(rows):
        for c in range(cols):
            up = t[r - 1][c] if r > 0 else t[r][c]
            down = t[r + 1][c] if r < rows - 1 else t[r][c]
            left = t[r][c - 1] if 0 < c else t[r][c]
            right = t[r][c + 1] if not c >= cols - 1 else t[r][c]
            out[r][c] = 0.25 * (up + down + left + right)
    return out


def guarded_differences(a, out, n, m):
    for i in range(n):
        if i + 1 >= n:
            out[i] = 0.0
        elif i == m:
            out[i] = a[m + 1] * 2.0
        else:
            out[i] = a[i + 1] - a[i]
            for j in range(i + 1, n):
                out[i] += a[j] * 0.001
    return out


def no_failed_check(fast):
    loop = site_for(fast)[-1]
    assert loop["checks_in_loop"] == 0, loop
    assert not any("hoisted check failed" in reason for reason in loop["reasons"]), loop["reasons"]
    return loop


def test_a_clamped_stencil_hoists_every_check():
    """The conditions narrow the loop variables inside their branches: up, down, left and
    right read in range, so no hoisted check fails and the check-free copy runs."""
    grid = [[float(r * 7 + c) for c in range(6)] for r in range(5)]
    no_failed_check(assert_same_as_cpython(clamped_stencil, grid, [[0.0] * 6 for _ in range(5)], 5, 6))
    array = numpy.arange(30.0).reshape(5, 6)
    no_failed_check(assert_same_as_cpython(clamped_stencil, array, numpy.zeros((5, 6)), 5, 6))
    for rows, cols in ((1, 1), (0, 6), (1, 6), (5, 1)):   # the clamps' edges, empty ranges
        assert_same_as_cpython(clamped_stencil, array, numpy.zeros((5, 6)), rows, cols)


def test_else_branches_and_nested_loops_see_the_negated_condition():
    values = [float(k * k) for k in range(8)]
    no_failed_check(assert_same_as_cpython(guarded_differences, values, [0.0] * 8, 8, 3))
    no_failed_check(assert_same_as_cpython(guarded_differences, values, [0.0] * 8, 8, 20))  # i == m never


def test_a_refined_range_still_raises_where_python_raises():
    """The refinement bounds the branch's own subscripts only: an index the condition does
    not protect still fails its check, and the loop raises CPython's IndexError."""
    def reach(a, out, n):
        for i in range(n):
            if i > 0:
                out[i] = a[i + 2]   # i + 2 reaches n + 1 for the last i
    assert_same_as_cpython(reach, [1.0] * 5, [0.0] * 5, 5, compiled=None)
    assert_same_as_cpython(reach, [1.0] * 7, [0.0] * 5, 5)


def test_min_max_clamps_in_subscripts_are_hoisted():
    def clamped(a, out, n):
        for i in range(n):
            out[i] = a[min(i + 1, n - 1)] + a[max(i - 1, 0)] + a[min(max(i - 2, 0), n - 1, 9)]
        return out
    values = [float(k * k) for k in range(12)]
    no_failed_check(assert_same_as_cpython(clamped, values, [0.0] * 12, 12))
    assert_same_as_cpython(clamped, values, [0.0] * 12, 1)
    assert_same_as_cpython(clamped, values, [0.0] * 3, 3)
    assert_same_as_cpython(clamped, values[:2], [0.0] * 5, 5, compiled=None)   # min(..., 9) past the end: IndexError


def test_borders_left_out_by_inequalities_are_hoisted():
    """'j != 0 and j != n - 1' (or 'not (j == 0 or j == n - 1)') leaves out the ends of j's
    range: the neighbours' subscripts j - 1 and j + 1 are then proven in range."""
    def interior(a, out, n):
        for j in range(n):
            if j == 0 or j == n - 1:
                out[j] = a[j]
            else:
                out[j] = a[j - 1] + a[j + 1]
            if j != 0 and j != n - 1:
                out[j] += a[j + 1] - a[j - 1]
        return out
    values = [float(k * k) for k in range(10)]
    no_failed_check(assert_same_as_cpython(interior, values, [0.0] * 10, 10))
    assert_same_as_cpython(interior, values, [0.0] * 1, 1)
    assert_same_as_cpython(interior, values[:3], [0.0] * 5, 5, compiled=None)   # a[j + 1] past the end


def neighbour_sums(grid, out, n, m):
    for i in range(n):
        for j in range(m):
            alive = 0.0
            for dx in range(-1, 2):
                for dy in range(-1, 2):
                    if (dx != 0 or dy != 0) and 0 <= i + dx < n and 0 <= j + dy < m:
                        alive += grid[i + dx][j + dy]
            out[i][j] = alive
    return out


def test_a_test_on_a_compound_subscript_narrows_that_subscript():
    """'0 <= i + dx < n' with dx another loop's variable: narrowing i alone (i >= -dx for
    dx's widest) would leave i + dx reaching -1 and n; the expression's own narrowed range
    proves grid[i + dx] in range, so the check-free copy runs."""
    cells = [[float((r * 7 + c * 13) % 5) for c in range(9)] for r in range(8)]
    no_failed_check(assert_same_as_cpython(neighbour_sums, cells, [[0.0] * 9 for _ in range(8)], 8, 9))
    no_failed_check(assert_same_as_cpython(neighbour_sums, numpy.array(cells), numpy.zeros((8, 9)), 8, 9))
    for n, m in ((1, 1), (0, 9), (8, 1)):
        assert_same_as_cpython(neighbour_sums, cells, [[0.0] * 9 for _ in range(8)], n, m)


def test_a_narrowed_expression_proves_itself_only():
    """The narrowing covers the tested expression: i + dx + 1 in the same branch is not
    proven (it reaches n), and a list shorter than the bound still raises IndexError."""
    def reach(a, out, n):
        for i in range(n):
            for dx in range(-1, 2):
                if 0 <= i + dx < n:
                    out[i] += a[i + dx + 1]
        return out
    assert_same_as_cpython(reach, [1.0] * 6, [0.0] * 5, 5, compiled=None)   # a[5] past the end for i = 4
    assert_same_as_cpython(reach, [1.0] * 7, [0.0] * 5, 5)

    def shorter(a, out, n):
        for i in range(n):
            for dx in range(-1, 2):
                if 0 <= i + dx < n:
                    out[i] += a[i + dx]
        return out
    assert_same_as_cpython(shorter, [1.0] * 4, [0.0] * 5, 5, compiled=None)   # n > len(a)
    no_failed_check(assert_same_as_cpython(shorter, [1.0] * 5, [0.0] * 5, 5))

    def never(a, out, n):   # a test no iteration meets: its branch's subscript is never checked
        for i in range(n):
            for dx in range(-1, 2):
                if i + dx < -5:
                    out[i] = a[i + dx + 100]
        return out
    no_failed_check(assert_same_as_cpython(never, [1.0] * 5, [0.0] * 5, 5))


def blur(img, out, n, m):
    """Neighbours through names given once (ni = i + di) and a guard that leaves the
    iteration: below them ni has i + di's range, narrowed by the guard's failed test."""
    for i in range(n):
        for j in range(m):
            total = 0.0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    ni = i + di
                    nj = j + dj
                    if ni < 0 or ni >= n or nj < 0 or nj >= m:
                        continue
                    total += img[ni][nj] * (di + 2)
            out[i][j] = total
    return out


def test_definitions_and_guards_that_leave_narrow_what_follows():
    image = [[float((r * 7 + c * 13) % 17) for c in range(9)] for r in range(8)]
    loop = no_failed_check(assert_same_as_cpython(blur, image, [[0.0] * 9 for _ in range(8)], 8, 9))
    assert loop["compiled_runs"] == 1
    no_failed_check(assert_same_as_cpython(blur, numpy.array(image), numpy.zeros((8, 9)), 8, 9))
    for n, m in ((1, 1), (8, 1), (1, 9)):
        assert_same_as_cpython(blur, image, [[0.0] * 9 for _ in range(8)], n, m)


def test_a_name_given_twice_or_read_before_it_is_given_proves_nothing():
    """Only the statements below the loop's one assignment, in its block, use its range:
    a read before it (the previous iteration's value, or the live-in), a read after an
    'if' that gave it in one branch, and a name given twice keep their checks, and
    raise where CPython raises."""
    def before(a, out, n, k):
        for i in range(n):
            out[i] = a[k]
            k = i + 3   # a[k] of the next iteration reaches n + 2
        return out

    def in_a_branch(a, out, n, k):
        for i in range(n):
            if i % 2 == 1:
                k = i + 1
            out[i] = a[k]
        return out

    def twice(a, out, n):
        for i in range(n):
            k = i
            if i == n - 1:
                k = i + 5
            out[i] = a[k]
        return out

    values = [float(v) for v in range(8)]
    assert_same_as_cpython(before, values, [0.0] * 8, 6, 0, compiled=None)    # a[8]: IndexError
    assert_same_as_cpython(before, values + [0.0] * 3, [0.0] * 8, 6, 0)
    assert_same_as_cpython(in_a_branch, values, [0.0] * 8, 8, 50, compiled=None)  # a[50] at i = 0: IndexError
    assert_same_as_cpython(in_a_branch, values, [0.0] * 8, 7, 0)
    assert_same_as_cpython(twice, values, [0.0] * 8, 8, compiled=None)   # a[12]: IndexError
    assert_same_as_cpython(twice, values, [0.0] * 8, 3)


def test_a_guard_that_leaves_protects_only_what_it_tests():
    def lower_only(a, out, n):
        for i in range(n):
            for d in range(-2, 3):
                k = i + d
                if k < 0:
                    continue
                out[i] += a[k]   # k reaches n + 1
        return out

    def raising(a, out, n):
        for i in range(n):
            k = i - 1
            if k < 0:
                raise ValueError("first row")
            out[i] = a[k]
        return out

    values = [float(v) for v in range(8)]
    assert_same_as_cpython(lower_only, values, [0.0] * 8, 8, compiled=None)   # IndexError at i = 6
    no_failed_check(assert_same_as_cpython(lower_only, values + [0.0] * 2, [0.0] * 8, 8))
    assert_same_as_cpython(raising, values, [0.0] * 8, 8, compiled=None)   # ValueError at i = 0


def four_neighbours(grid, out, n, m):
    for i in range(n):
        for j in range(m):
            s = 0.0
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)):
                x, y = i + dx, j + dy
                if 0 <= x < n and 0 <= y < m:
                    s += grid[x][y]
            out[i][j] = s
    return out


def test_rows_of_offsets_are_hoisted_through_their_conditional_expressions():
    """A display of rows binds dx through a chain of conditional expressions: its interval
    is the hull of the branches', so x = i + dx narrowed by the test proves grid[x]."""
    grid = [[float((r * 5 + c * 3) % 11) for c in range(7)] for r in range(6)]
    no_failed_check(assert_same_as_cpython(four_neighbours, grid, [[0.0] * 7 for _ in range(6)], 6, 7))
    for n, m in ((1, 1), (6, 1), (1, 7)):
        assert_same_as_cpython(four_neighbours, grid, [[0.0] * 7 for _ in range(6)], n, m)


def test_a_conditional_subscript_is_hoisted_and_its_test_keeps_its_checks():
    """a[i - 1 if i > 0 else i] is checked once for both branches; the test's arithmetic
    is no part of the range and keeps its overflow check (i * big past int64 is a big
    Python int: index 0; unchecked it would wrap)."""
    def previous(a, out, n):
        for i in range(n):
            out[i] = a[i - 1 if i > 0 else i] + a[i + 1 if i < n - 1 else i]
        return out

    def tested(a, out, n, big):
        for i in range(n):
            out[i] = a[0 if i * big > 5 else 1]
        return out

    values = [float(v * v) for v in range(7)]
    no_failed_check(assert_same_as_cpython(previous, values, [0.0] * 7, 7))
    assert_same_as_cpython(previous, values, [0.0] * 7, 1)
    assert_same_as_cpython(tested, values, [0.0] * 7, 7, 2**62, compiled=None)   # overflows: CPython reruns
    assert_same_as_cpython(tested, values, [0.0] * 7, 7, 3)


def scaled(values, out, n, divisor, rate):
    for i in range(n):
        out[i] = values[i] / divisor + values[i] / 4.0 + rate / divisor


def rescaled_inside(values, out, n):
    scale = 1.0
    for i in range(n):
        out[i] = values[i] / scale
        scale = scale - 0.25   # assigned in the loop: tested at each division


def test_divisions_by_a_name_the_loop_never_assigns_are_tested_once_at_entry():
    """``x / d`` with ``d`` a live-in the loop never assigns (or a nonzero constant): one test
    at entry, no zero test left inside (bounds.invariant_divisors); a zero divisor (0, 0.0,
    -0.0) fails the entry test and the checking copy raises CPython's ZeroDivisionError with
    CPython's partial state; a NaN divides as in CPython."""
    values = [float(k) - 2.5 for k in range(9)]
    fast = assert_same_as_cpython(scaled, values, [0.0] * 9, 9, 3.0, 0.5)
    loop = site_for(fast)[-1]
    assert loop["checks_in_loop"] == 0 and not any("hoisted check failed" in r for r in loop["reasons"]), loop
    for zero in (0, 0.0, -0.0):
        fast = assert_same_as_cpython(scaled, values, [0.0] * 9, 9, zero, 0.5, compiled=None)
        assert any("the divisor 'divisor' is not zero" in r for r in site_for(fast)[-1]["reasons"])
    assert_same_as_cpython(scaled, values, [0.0] * 9, 9, float("nan"), 0.5)
    assert_same_as_cpython(scaled, values, [0.0] * 9, 9, 7, 0.5)   # an int divisor
    assert_same_as_cpython(scaled, values, [0.0] * 9, 0, 0.0, 0.5)   # no iteration: nothing raised
    assert_same_as_cpython(rescaled_inside, values, [0.0] * 9, 9, compiled=None)   # 1.0 .. -1.0 passes 0.0
