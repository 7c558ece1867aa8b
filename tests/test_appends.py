"""Lists that a loop appends to (ir.Append): the kernel collects the values, in order, and
they join the list when the compiled run ends without a flag, each with its own class.
Differential: each function runs plainly and through megaguards.jit."""
import pytest

from conftest import assert_same_as_cpython, site_for


def picks(a, n, out, flags):
    for i in range(n):
        if a[i] % 2 == 0:
            out.append(a[i] * 0.5)       # a float
        elif a[i] % 3 == 0:
            out.append(a[i])             # an int
        else:
            flags.append(a[i] > 10)      # a bool
    return out, flags


def test_appended_values_keep_their_classes_and_order():
    fast = assert_same_as_cpython(picks, list(range(40)), 40, [], [])
    reasons = " ".join(r for site in site_for(fast) for r in site["reasons"])
    assert "appends to 'flags', 'out' joined in iteration order" in reasons   # threads' shares, in order


def test_values_join_what_the_list_held():
    assert_same_as_cpython(picks, list(range(10)), 10, ["kept", 2.5], [None])


def test_no_iteration_appends_nothing():
    assert_same_as_cpython(picks, [1], 0, [7], [], compiled=None)


def test_a_flag_mid_loop_gives_cpythons_partial_appends_and_error():
    """The compiled run is discarded (nothing appended); CPython's run appends up to the error."""
    assert_same_as_cpython(picks, [2, 4, 6], 5, [], [], compiled=False)


def test_one_list_under_two_names_runs_in_cpython():
    """CPython interleaves the two names' appends on the one list."""
    shared = []
    assert_same_as_cpython(picks, list(range(10)), 10, shared, shared, compiled=False)


def test_bools_and_numbers_in_one_list_stay_in_cpython():
    def mixed(a, n, out):
        for i in range(n):
            if i % 2:
                out.append(a[i])
            else:
                out.append(a[i] > 1)
        return out
    assert_same_as_cpython(mixed, [1, 2, 3], 3, [], compiled="collects bools, or ints and floats")


class Collector:
    def __init__(self):
        self.seen = []

    def append(self, value):
        self.seen.append(value * 2)

    def __eq__(self, other):
        return type(other) is Collector and self.seen == other.seen

    __hash__ = None


def test_an_append_method_of_another_class_runs_in_cpython():
    def collect(a, n, out):
        for i in range(n):
            out.append(a[i])
        return out.seen
    assert_same_as_cpython(collect, [1, 2, 3], 3, Collector(), compiled=False)


def test_appending_to_the_list_the_loop_reads_runs_in_cpython():
    def double(a, n, out):
        for i in range(n):
            out.append(a[i] * 2)
        return out
    shared = [1, 2, 3]
    assert_same_as_cpython(double, shared, 3, shared, compiled=False)


def test_a_row_of_a_list_read_that_grows_runs_in_cpython():
    def extend_row(grid, n, row):
        for i in range(n):
            row.append(grid[0][i] + grid[1][i])
        return grid
    grid = [[1, 2, 3], [4, 5, 6]]
    assert_same_as_cpython(extend_row, grid, 3, grid[0], compiled="or a row of one")
    assert_same_as_cpython(extend_row, grid, 3, [])


def lengths(grid, n, out):
    for i in range(n):
        out.append(len(grid[i]) + grid[i][0])
    return out


def test_a_loop_reading_row_lengths_and_appending_compiles():
    assert_same_as_cpython(lengths, [[1, 4], [2, 3]], 2, [])


def test_appending_to_a_row_whose_len_the_loop_reads_runs_in_cpython():
    """CPython sees that row's len() grow with each append: the guard finds the row."""
    grid = [[1, 4], [2, 3]]
    assert_same_as_cpython(lengths, grid, 2, grid[1], compiled="or a row of one")


def smooth(values, n):
    out = []
    for j in range(n):
        if j == 0 or j == n - 1:
            out.append(values[j])
        else:   # the borders left out: values[j - 1] and values[j + 1] proven in range
            out.append((values[j - 1] + values[j] + values[j + 1]) / 3)
    return out


@pytest.mark.parametrize("n", [9, 2, 1])
def test_a_smoothing_building_its_result_with_append_compiles(n):
    values = [float((k * 37) % 11) for k in range(n)]
    fast = assert_same_as_cpython(smooth, values, n)
    assert not any("hoisted check failed" in r for site in site_for(fast) for r in site["reasons"])


def test_extending_by_a_list_display_appends_each_value():
    def spread(a, n, out):
        for i in range(n):
            out += [a[i], a[i] * 0.5]
            out.extend([i])
        return out
    assert_same_as_cpython(spread, [3, 4, 5], 3, [1.5])
    assert_same_as_cpython(spread, [3, 4, 5], 3, (1.5,), compiled=False)   # a tuple: Python's TypeError


def add_scaled(points, value):
    points.append(value * 2)


LOG = []


def note(value):
    LOG.append(value)


def test_appends_inside_an_inlined_function_join_the_callers_list():
    def collect(a, n, out):
        LOG.clear()
        for i in range(n):
            if a[i] > 0:
                add_scaled(out, a[i])
            note(i)
        return out, list(LOG)
    assert_same_as_cpython(collect, [3, -1, 2.5, 4], 4, [])
    assert_same_as_cpython(collect, [1], 1, [])


def tenfold_logged(x):
    LOG.append(x * 10)
    return x + 1


def test_two_lists_get_their_own_values_whatever_order_they_are_met_in():
    """The helper's append runs before the caller's, whose value it computes: each list still
    receives its own values (the kernel's buffers and the guard's lists agree on one order)."""
    def run(a, n, out):
        LOG.clear()
        for i in range(n):
            out.append(tenfold_logged(a[i]))
        return out, list(LOG)
    assert_same_as_cpython(run, [1, 2, 3], 3, [])


def kept(a, grid, threshold, out, cells):
    for i in range(len(a)):
        if a[i] > threshold:
            out.append(a[i])             # the element itself: CPython appends that object
        for j in range(len(grid[0])):
            if grid[i % len(grid)][j] == threshold:
                cells.append(grid[i % len(grid)][j])
    return out, cells


def test_elements_appended_are_the_lists_own_objects():
    """TypedLoop.references: the kernel collects the element's indices and marshal.c appends
    the object at them (identity kept, nothing allocated), floats and ints beyond the cache."""
    a = [k * 0.75 for k in range(50)] + [10 ** 12 + k for k in range(4)]
    grid = [[(i * 7 + j) % 5 for j in range(4)] for i in range(3)]
    fast = assert_same_as_cpython(kept, a, grid, 3, [], [])
    out, cells = fast(a, grid, 3, [], [])
    assert out and all(any(o is x for x in a) for o in out)
    assert cells and all(any(c is x for row in grid for x in row) for c in cells)
    with_threads = assert_same_as_cpython(kept, a * 40, grid, 3, [0.5], [])
    assert with_threads is not None


def test_values_of_an_array_the_loop_writes_are_boxed_as_values():
    """An element the loop may change later in the run: CPython appended the object of the
    moment, so the kernel appends the value (a new object of that value and class)."""
    def doubled(a, out):
        for i in range(len(a)):
            a[i] = a[i] * 2
            out.append(a[i])
        return a, out
    assert_same_as_cpython(doubled, [1.5, 2, 3.25], [])


def test_elements_and_computed_values_in_one_list_are_all_boxed():
    def both(a, out):
        for i in range(len(a)):
            out.append(a[i] if i % 2 else a[i] + 1)
            out.append(a[i])
        return out
    assert_same_as_cpython(both, [1.5, 2.0, 3.25], [])


def test_elements_of_a_list_written_under_another_name_are_boxed_as_values():
    """``a`` and ``b`` name one list: CPython appended each element as it was, before the
    loop changed it through ``b`` (a lookup after the run would find the new value)."""
    def through_another_name(a, b, out):
        for j in range(len(b)):
            out.append(a[j])
            b[j] = b[j] * 2.5
        return out
    shared = [1.5, 2.5, 3.5]
    assert_same_as_cpython(through_another_name, shared, shared, [])
    assert_same_as_cpython(through_another_name, [1.5, 2.5], [0.5, 1.0], [])
