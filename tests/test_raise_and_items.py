"""``raise`` inside compiled loops (the kernel stops with a flag, CPython runs the loop again
from its entry and raises the exception itself), and subscripts of objects whose class
defines ``__getitem__``/``__setitem__`` in Python (inlined like any method).  Differential:
results, exceptions and the arguments' final state as CPython's.

PYTEST_DONT_REWRITE: pytest would add its own detail to the plain function's AssertionError.
"""
from array import array

import pytest

from conftest import assert_same_as_cpython, site_records


def checked_sum(a, n):
    s = 0.0
    for i in range(n):
        if a[i] < 0:
            raise ValueError(f"negative value {a[i]} at {i}")
        s += a[i]
    return s


def scale_until_bad(a, n, out):
    for i in range(n):
        out[i] = a[i] * 2.0   # written before the raise: CPython's partial state, not the kernel's
        if out[i] > 100.0:
            raise OverflowError("too large")
    return out


def flat_index(w, h, x, y):
    if 0 <= x < w and 0 <= y < h:
        return y * w + x
    raise IndexError("outside the grid")


def grid_sum(data, w, h, rows):
    t = 0.0
    for y in range(rows):
        for x in range(w):
            t += data[flat_index(w, h, x, y)]
    return t


def make_list(n, bad=None):
    values = [float(i) for i in range(n)]
    if bad is not None:
        values[bad] = -1.0
    return values


@pytest.mark.parametrize("bad", [None, 0, 37, 99])
def test_a_raise_in_the_loop_compiles_and_cpython_raises_where_it_is_reached(bad):
    compiled = True if bad is None else None
    assert_same_as_cpython(checked_sum, make_list(100, bad), 100, compiled=compiled)


def test_a_raised_flag_leaves_the_partial_writes_cpython_makes():
    values = [float(i) for i in range(200)]
    assert_same_as_cpython(scale_until_bad, values, 40, [0.0] * 200)   # no raise: compiled
    assert_same_as_cpython(scale_until_bad, values, 200, [0.0] * 200, compiled=None)   # raises at 51


def test_a_raise_in_an_inlined_function_ends_it_like_a_return():
    data = [float(i) for i in range(100)]
    assert_same_as_cpython(grid_sum, data, 10, 10, 10)
    assert_same_as_cpython(grid_sum, data, 10, 10, 11, compiled=None)   # IndexError from flat_index


def test_the_report_names_the_raise_as_the_flag():
    import megaguards

    fast = megaguards.jit(checked_sum)
    with pytest.raises(ValueError, match="negative value -1.0 at 5"):
        fast(make_list(50, 5), 50)
    reasons = [reason for record in site_records(fast).values() for reason in record["reasons"]]
    assert any("reached a 'raise'" in reason for reason in reasons), reasons


class Grid:
    """A 2-D grid over a flat array.array, column-major (scimark's Array2D is row-major)."""

    def __init__(self, w, h):
        self.width, self.height = w, h
        self.data = array("d", [float((7 * k) % 11) for k in range(w * h)])

    def _index(self, x, y):   # column-major, the check after the arithmetic
        k = x * self.height + y
        if x < 0 or y < 0 or x >= self.width or y >= self.height:
            raise IndexError(f"({x}, {y}) is outside the grid")
        return k

    def __getitem__(self, key):
        return self.data[self._index(key[0], key[1])]

    def __setitem__(self, key, value):
        self.data[self._index(key[0], key[1])] = value

    def __eq__(self, other):
        return type(other) is type(self) and self.data == other.data


class Cells:
    """One index, a list underneath, no tuple keys."""

    def __init__(self, n):
        self.items = [float(k + 1) for k in range(n)]

    def __getitem__(self, k):
        return self.items[k]

    def __setitem__(self, k, value):
        self.items[k] = value

    def __eq__(self, other):
        return type(other) is type(self) and self.items == other.items


def relax(omega, grid, cycles):
    for p in range(cycles):
        for y in range(1, grid.height - 1):
            for x in range(1, grid.width - 1):
                grid[x, y] = (omega * 0.25 * (grid[x, y - 1] + grid[x, y + 1] + grid[x - 1, y] + grid[x + 1, y])
                              + (1.0 - omega) * grid[x, y])
    return grid


def shift_out_of_range(grid):
    for y in range(grid.height):
        for x in range(grid.width):
            grid[x + 1, y] = grid[x, y]   # the last column's write raises IndexError
    return grid


def accumulate(cells, n):
    for k in range(1, n):
        cells[k] += cells[k - 1] * 0.5
    return cells


def halve_into_next(cells, n):
    for k in range(1, n):
        cells[k] = cells[k - 1] * 0.5
    return cells


def test_an_object_subscripted_through_its_class_methods_compiles():
    assert_same_as_cpython(relax, 1.25, Grid(12, 9), 3)


def test_its_own_index_check_raises_as_in_cpython():
    assert_same_as_cpython(shift_out_of_range, Grid(6, 4), compiled=None)


def test_an_augmented_assignment_calls_getitem_then_setitem():
    assert_same_as_cpython(accumulate, Cells(50), 50)


def test_a_class_method_replaced_between_calls_is_seen_by_the_guard():
    import megaguards

    class Doubling(Cells):
        def __getitem__(self, k):
            return 2.0 * self.items[k]

    fast = megaguards.jit(halve_into_next)
    assert fast(Cells(30), 30) == halve_into_next(Cells(30), 30)
    assert fast(Doubling(30), 30) == halve_into_next(Doubling(30), 30)   # another method: CPython runs it
    assert fast(Doubling(30), 30).items != halve_into_next(Cells(30), 30).items
    record, = [record for record in site_records(fast).values() if record["function"] == "halve_into_next"]
    assert record["compiled_runs"] == 1 and record["fallback_runs"] == 2
    assert "'cells.__getitem__' is bound to another function than the one inlined" in record["reasons"]


def checked_steps(a, n, out):
    for i in range(n):
        assert a[i] >= 0, f"negative at {i}"
        out[i] = a[i] ** 0.5
    return out


@pytest.mark.parametrize("bad", [None, 13])
def test_an_assert_compiles_as_a_test_and_a_raise(bad):
    assert_same_as_cpython(checked_steps, make_list(40, bad), 40, [0.0] * 40, compiled=True if bad is None else None)


# -- an inlined function that may return None where its value is used -------------------
def sign(x):
    if x > 0:
        return 1.0
    elif x < 0:
        return -1.0
    elif x == 0:
        return 0.0
    # a NaN falls through: the function returns None


def first_above(row, limit):
    for k in range(len(row)):
        if row[k] > limit:
            return k
    return None


def signs(values, out):
    for i in range(len(values)):
        out[i] = sign(values[i]) * 2.0   # None * 2.0 raises TypeError under CPython
    return out


def positions(rows, limit, out):
    for i in range(len(rows)):
        out[i] = first_above(rows[i], limit)   # None is stored: the list then holds it
    return out


@pytest.mark.parametrize("nan_at", [None, 0, 250, 499])
def test_a_function_that_may_end_without_return_compiles_and_none_goes_to_cpython(nan_at):
    """The path without 'return' stops the kernel (flag): CPython runs the loop and meets
    the None itself (here the TypeError of None * 2.0, after its own partial writes)."""
    values = [float(i % 7) - 3.0 for i in range(500)]
    if nan_at is not None:
        values[nan_at] = float("nan")
    assert_same_as_cpython(signs, values, [0.0] * 500,
                           compiled=True if nan_at is None else "returned None where its value is used")


def test_an_explicit_return_none_whose_value_is_stored():
    rows = [[float(i + j) for j in range(8)] for i in range(40)]
    assert_same_as_cpython(positions, rows, 3.5, [0] * 40)   # every row has one: compiled
    assert_same_as_cpython(positions, rows, 20.5, [0] * 40,
                           compiled="returned None where its value is used")   # rows 0-12 have none: [None, ...]


def scaled_signs(values, out):   # a loop of its own: the CPU tests above specialized signs'
    for i in range(len(values)):
        out[i] = sign(values[i]) * 3.0
    return out


def test_returned_none_on_the_emulated_gpu(emulator):
    values = [float(i % 5) - 2.0 for i in range(300)]
    fast = assert_same_as_cpython(scaled_signs, values, [0.0] * 300)
    assert [record["backend"] for record in site_records(fast).values()] == ["cuda"]
    assert emulator.launches > 0
    values[123] = float("nan")
    assert_same_as_cpython(scaled_signs, values, [0.0] * 300, compiled="returned None where its value is used")
