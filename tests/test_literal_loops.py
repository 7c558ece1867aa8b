"""Loops over a tuple or list display written in the loop (frontend/literal_loops.py):
``for dx in (-1, 0, 1)``, rows of offsets with a tuple target, ``break``/``continue`` and
the target's value after the loop.  Differential against CPython, the compiled path
checked to have run."""
from __future__ import annotations

import ast

from conftest import assert_same_as_cpython, site_records

from megaguards.frontend import desugar


def neighbours(grid, counts):
    """The game of life's count: the eight neighbours inside the grid."""
    n, m = len(grid), len(grid[0])
    for i in range(n):
        for j in range(m):
            alive = 0
            for dx in (-1, 0, 1):
                for dy in [-1, 0, 1]:
                    if dx == 0 and dy == 0:
                        continue
                    if 0 <= i + dx < n and 0 <= j + dy < m:
                        alive += grid[i + dx][j + dy]
            counts[i][j] = alive
    return counts


def cross(image, out, weight):
    for i in range(1, len(image) - 1):
        for j in range(1, len(image[0]) - 1):
            total = image[i][j]
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                total += weight * image[i + di][j + dj]
            out[i][j] = total
    return out


def first_fitting(values, limit, low, high):
    """break, the target kept after the loop, names of the function among the elements."""
    chosen = 0.0
    for i in range(len(values)):
        for scale in (high, 0.5, low, -0.0):
            if scale * values[i] < limit:
                break
        chosen += scale
    return chosen, scale


def countdown(values, limit):
    """break and the target after the loop; (False, True) stays bools."""
    total = 0
    for i in range(len(values)):
        for step in (4, 2, 0):
            if values[i] * step < limit:
                break
        total += step
        for flag in (False, True):
            total += flag + (flag is True)
        for gap in (0, 1, 3):
            total += gap * values[i]
    return total, step, flag, gap


def rebinding(values):
    s = 1.0
    for i in range(len(values)):
        for v in (s, 2.0):   # Python builds (s, 2.0) before s changes: not rewritten
            s = s + v * values[i]
    return s


def grid(n, m):
    return [[(i * 7 + j * 3) % 2 for j in range(m)] for i in range(n)]


def test_a_neighbour_count_over_offset_displays_compiles():
    fast = assert_same_as_cpython(neighbours, grid(9, 7), [[0] * 7 for _ in range(9)])
    assert all(record["compiled_runs"] for record in site_records(fast).values())


def test_rows_of_offsets_with_a_tuple_target():
    image = [[float(i * j % 5) - 1.5 for j in range(6)] for i in range(5)]
    assert_same_as_cpython(cross, image, [[0.0] * 6 for _ in range(5)], 0.25)


def test_break_and_the_target_after_the_loop_are_pythons():
    values = [3.0, -1.0, 0.5, 8.0, float("nan"), 0.0]
    assert_same_as_cpython(first_fitting, values, 1.0, 0.125, 4.0)
    assert_same_as_cpython(first_fitting, values, -100.0, 0.125, 4.0)   # never breaks: the last, -0.0


def test_int_displays_bools_and_gaps():
    values = [3, -1, 7, 0, 2]
    assert_same_as_cpython(countdown, values, 5)
    assert_same_as_cpython(countdown, values, -100)   # never breaks: step ends 0


def test_a_display_of_names_the_loop_assigns_stays_in_cpython():
    assert_same_as_cpython(rebinding, [0.5, 1.5, -2.0], compiled=None)
    loop = ast.parse("for v in (s, 2.0):\n    s = s + v").body[0]
    assert not desugar.is_element_loop(loop)
    assert desugar.is_element_loop(ast.parse("for v in (t, -2.0, 3):\n    s = s + v").body[0])


def test_displays_too_long_or_of_other_elements_are_not_rewritten():
    for source in ("for v in (" + ", ".join(["1"] * 33) + "):\n    s += v",
                   "for v in ('a', 'b'):\n    s += 1",
                   "for v in (f(), 2):\n    s += v",
                   "for v, w in ((1, 2), (3,)):\n    s += v",
                   "for v in ():\n    s += v"):
        assert not desugar.is_element_loop(ast.parse(source).body[0]), source


def test_the_neighbour_count_on_the_emulated_gpu(emulator):
    launches = emulator.launches
    fast = assert_same_as_cpython(neighbours, grid(12, 10), [[0] * 10 for _ in range(12)])
    assert "cuda" in [record["backend"] for record in site_records(fast).values()]   # (the CPU's too, if run before)
    assert emulator.launches > launches


def test_int_progressions_become_ranges_and_the_neighbour_count_keeps_no_failed_check():
    """(-1, 0, 1) is range(-1, 2): the bounds analysis follows dx, and the test
    '0 <= i + dx < n' proves grid[i + dx] in range (no hoisted check fails)."""
    for source, expected in (("(-1, 0, 1)", (-1, 2, 1)), ("[5]", (5, 6, 1)), ("(3, 1, -1)", (3, -3, -2)),
                             ("(0, 4, 8, 12)", (0, 16, 4))):
        loop = desugar.for_loop(ast.parse(f"for dx in {source}:\n    s += dx").body[0])
        assert ast.unparse(loop.iter) == f"range{expected}", source
    for source, count in (("(1, 2, 4)", 3), ("(1, 1)", 2), ("(True, False)", 2), ("(0.0, 1.0)", 2), ("(a, 1)", 2)):
        loop = desugar.for_loop(ast.parse(f"for dx in {source}:\n    s += dx").body[0], lambda: "mg_tmp1")
        assert ast.unparse(loop.iter) == f"range({count})", source   # a chain of conditional expressions, as before
    fast = assert_same_as_cpython(neighbours, grid(9, 7), [[0] * 7 for _ in range(9)])
    for record in site_records(fast).values():
        assert record["compiled_runs"] and not any("hoisted check failed" in r for r in record["reasons"]), record
