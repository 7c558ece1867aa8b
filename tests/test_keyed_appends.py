"""Appends to a row picked by a key (``table[k].append(v)``, ir.AppendAt): the kernel keeps
each key and value, and marshal.c appends each value to its row after a clean run, in
order.  The table is a list of lists or a dict of lists keyed 0 .. m-1; a value is a number
or a row of a list the loop walks (that row object itself).  Differential: each function
runs plainly and through megaguards.jit."""
import pytest

from megaguards import config
from megaguards.ir import interp
from megaguards.ir import nodes as ir

from conftest import assert_same_as_cpython, site_for


def nearest(data, centres, clusters):
    """k-means' assignment step, as written in tutorials: each point joins its nearest centre's list."""
    for point in data:
        best = -1
        nearest_so_far = 1e300
        for c in range(len(centres)):
            distance = abs(point[0] - centres[c][0]) + abs(point[1] - centres[c][1])
            if distance <= nearest_so_far:
                nearest_so_far = distance
                best = c
        clusters[best].append(point)
    return clusters


def points(n):
    return [[(i * 7 % 13) * 0.5, (i * 5 % 11) * 0.25] for i in range(n)]


CENTRES = [[0.0, 0.0], [3.0, 1.0], [6.0, 2.5]]


@pytest.mark.parametrize("table", ["dict", "list"])
def test_points_join_their_nearest_centres_rows_as_the_same_objects(table):
    data = points(200)
    fresh = (lambda: {c: [] for c in range(3)}) if table == "dict" else (lambda: [[] for _ in range(3)])
    fast = assert_same_as_cpython(nearest, data, CENTRES, fresh())
    result = fast(data, CENTRES, fresh())
    rows = result.values() if table == "dict" else result
    assert sum(len(row) for row in rows) == 200
    assert all(any(p is q for q in data) for row in rows for p in row)   # the rows themselves, not copies
    assert not any("'mg_values" in reason for site in site_for(fast) for reason in site["reasons"])


def histogram(values, n, bins):
    for i in range(len(values)):
        bins[values[i] % n].append(values[i] * 0.5)
        bins[-1 - i % 2].append(i)          # a list's negative keys wrap, as CPython's do
        bins[values[i] % n].extend([values[i] // 3, 1])
    return bins


def test_numbers_keep_their_classes_and_their_order_per_row():
    assert_same_as_cpython(histogram, [3, 8, 1, 4, 4, 7], 4, [[] for _ in range(4)])
    assert_same_as_cpython(histogram, [3, 8, 1], 4, [["kept"], [], [2.5], []])


def test_rows_shared_by_several_keys_receive_in_cpythons_order():
    shared = []
    assert_same_as_cpython(histogram, [3, 8, 1, 4], 2, [shared, shared])
    assert_same_as_cpython(histogram, [3, 8, 1, 4], 3, [[]] * 3)


@pytest.mark.parametrize("values, n, table", [
    ([3, 8, 1], 4, [[], [], []]),                 # key 3 past the list: IndexError mid-loop
    ([1, 2, 5], 4, {0: [], 1: [], 2: [], 3: []}),  # bins[-1] of a dict: KeyError
])
def test_a_key_without_a_row_gives_cpythons_error_and_partial_appends(values, n, table):
    assert_same_as_cpython(histogram, values, n, table, compiled=False)


@pytest.mark.parametrize("table", [
    {1: [], 2: [], 3: [], 0: ()},            # a row that is not a list
    {0: [], 1: [], 2: [], 5: []},            # keys other than 0 .. m-1
    {0: [], 1: [], 2: [], "3": []},          # a key that is not an int
    [[], [], (), []],
])
def test_tables_of_other_shapes_run_in_cpython(table):
    assert_same_as_cpython(histogram, [3, 8, 1, 4], 4, table, compiled="'table[key].append' on a table")


def test_a_table_of_another_class_runs_in_cpython():
    assert_same_as_cpython(histogram, [3, 8], 4, ([], [], [], []), compiled="'table[key].append' on a tuple")


def scale_into(data, n, groups):
    for i in range(n):
        groups[i % 2].append(data[i] * 2)
    return groups


def scale_into_keys(keys, groups):
    for i in range(len(keys)):
        groups[keys[i]].append(i * 0.5)
    return groups


def test_a_row_that_is_the_array_the_loop_reads_runs_in_cpython():
    data = [1, 2, 3, 4]
    assert_same_as_cpython(scale_into, data, 4, [data, []], compiled="appends to is also an array it reads")


def test_a_row_that_is_a_row_of_an_array_the_loop_reads_runs_in_cpython():
    def rows_into(grid, n, groups):
        for i in range(n):
            groups[i % 2].append(grid[i % 2][0] + len(grid[1]))
        return groups
    grid = [[1, 2], [3, 4]]
    assert_same_as_cpython(rows_into, grid, 4, [[], grid[1]], compiled="or a row of one")


def test_a_row_that_is_also_appended_to_directly_runs_in_cpython():
    def both(data, n, groups, out):
        for i in range(n):
            groups[i % 2].append(data[i])
            out.append(-data[i])
        return groups, out
    out = []
    assert_same_as_cpython(both, [1, 2, 3], 3, [out, []], out, compiled="appended to under two names")
    assert_same_as_cpython(both, [1, 2, 3], 3, [[], []], [])


def test_bools_and_numbers_given_to_one_table_stay_in_cpython():
    def flags(data, groups):
        for i in range(len(data)):
            if i % 3:
                groups[i % 2].append(data[i] > 2)
            else:
                groups[i % 2].append(data[i])
        return groups
    assert_same_as_cpython(flags, [1, 2, 3], [[], []], compiled="values appended to the rows of 'groups' are")


def test_a_float_key_stays_in_cpython_with_a_reason():
    def by_float(data, groups):
        for i in range(len(data)):
            groups[data[i] / 2].append(i)
        return groups
    assert_same_as_cpython(by_float, [2, 4], {1.0: [], 2.0: []}, compiled="the key of a row appended to")


def test_the_table_read_otherwise_stays_in_cpython():
    def counted(data, groups):
        for i in range(len(data)):
            groups[data[i]].append(len(groups[0]))
        return groups
    assert_same_as_cpython(counted, [0, 1, 0], [[], []], compiled="appended to and also used otherwise")


@pytest.mark.parametrize("count", [3, 2])
def test_the_parallel_kernel_joins_each_threads_keys_and_values_in_order(count):
    """Several threads, every thread's keys and values joined in iteration order (the static split)."""
    saved = config.current()
    try:
        config.configure(threads=count)
        data = points(3001)
        fast = assert_same_as_cpython(nearest, data, CENTRES, [[] for _ in range(3)])
        assert_same_as_cpython(histogram, list(range(2000)), 7, [[k] for k in range(7)])
        keys = [i % 7 for i in range(3000)]
        keys[2400] = 9   # no such row: IndexError (or KeyError) in the last thread's share only
        assert_same_as_cpython(scale_into_keys, keys, [[] for _ in range(7)], compiled=False)
        assert_same_as_cpython(scale_into_keys, keys, {k: [] for k in range(7)}, compiled=False)
    finally:
        config.configure(threads=saved.threads)
    sites = [s for s in site_for(fast) if s["line"] == nearest.__code__.co_firstlineno + 2]
    assert any(s["backend"] == "c-omp" and s["parallel_depth"] >= 1 for s in sites), sites


def test_the_reference_interpreter_appends_each_value_to_its_row():
    """ir.AppendAt's meaning: the value collected just before joins ``table[key]`` (a row of
    ``source`` where one is named)."""
    data = [[1.0], [2.0], [3.0]]
    groups = {0: [], 1: []}
    body = ir.For("i", ir.Const(0), ir.Const(3), ir.Const(1), (
        ir.Append("mg_values0", ir.Name("i")),
        ir.AppendAt("groups", ir.BinOp("%", ir.Name("i"), ir.Const(2)), values="mg_values0", source="data"),
    ))
    loop = ir.Loop(body, (), (), ("i",), ())
    interp.interpret(loop, {}, {"groups": groups, "data": data}, {})
    assert groups == {0: [[1.0], [3.0]], 1: [[2.0]]}
    assert groups[0][1] is data[2]
