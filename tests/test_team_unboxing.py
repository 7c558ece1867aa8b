"""Large lists are unboxed by a team of threads (runtime/marshal_lists.c, unbox_list): rows
of a 2-D list, or contiguous parts of a 1-D one, read without the GIL while the caller
holds it.  The buffer and the answer are the ones a single thread gives: every element in
its place, steps kept, the first failing element's answer (a str before a float: the guard
fails; a float first: the list is retyped int-or-float)."""
from __future__ import annotations

import numpy
import pytest

import megaguards
from conftest import assert_same_as_cpython, site_for
from megaguards import config
from megaguards.codegen.layout import ArrayKind
from megaguards.runtime import backend, marshal

TEAM_ELEMENTS = 1 << 17   # marshal_lists.c: below it, one thread unboxes
DTYPES = {ArrayKind.LIST_BOOL: numpy.uint8, ArrayKind.LIST_INT: numpy.int64, ArrayKind.LIST_FLOAT: numpy.float64}


@pytest.fixture
def library():
    found = backend.compiler()
    if found is None:
        pytest.skip("no C compiler")
    helper = marshal.helper(config.current().cache_dir, found)
    yield helper
    helper.mg_set_unbox_team(config.current().threads or marshal.usable_cores())


def unboxed(library, values, rank: int, kind: ArrayKind, team: int, tuples: bool = False):
    library.mg_set_unbox_team(team)
    shape = [len(values)] + ([len(values[0])] if rank == 2 else [])
    buffer = numpy.full(shape, 7, dtype=DTYPES[kind])   # elements the unboxing misses keep 7
    return library.mg_unbox_into(values, rank, int(kind), buffer, int(tuples)), buffer


@pytest.mark.parametrize("team", [2, 3, 7])
def test_a_team_fills_the_buffer_a_thread_fills(library, team):
    n = TEAM_ELEMENTS + 12345
    cases = [([float(i) * 0.5 for i in range(n)], 1, ArrayKind.LIST_FLOAT),
             ([i * 3 - n for i in range(n)], 1, ArrayKind.LIST_INT),
             ([i % 3 == 0 for i in range(n)], 1, ArrayKind.LIST_BOOL),
             ([[float(i * 517 + j) for j in range(517)] for i in range(n // 517 + 1)], 2, ArrayKind.LIST_FLOAT),
             ([[i - j for j in range(7)] for i in range(n // 7 + 3)], 2, ArrayKind.LIST_INT)]
    for values, rank, kind in cases:
        alone, expected = unboxed(library, values, rank, kind, 1)
        together, actual = unboxed(library, values, rank, kind, team)
        assert alone == together == 0
        assert actual.tobytes() == expected.tobytes()
        assert actual.tolist() == values


def test_a_team_refuses_what_a_thread_refuses(library):
    n = TEAM_ELEMENTS * 2
    for broken in (lambda v: v.__setitem__(n - 1, "x"), lambda v: v.__setitem__(5, 2**70),
                   lambda v: v.__setitem__(n // 2, 1.5)):
        values = list(range(n))
        broken(values)
        answers = {unboxed(library, values, 1, ArrayKind.LIST_INT, team)[0] for team in (1, 2, 4)}
        assert len(answers) == 1 and answers != {0}
    rows = [[1.0] * 1000 for _ in range(TEAM_ELEMENTS // 1000 + 5)]
    rows[-1] = rows[-1][:-1]   # the last row ragged: refused, whoever reads it
    assert {unboxed(library, rows, 2, ArrayKind.LIST_FLOAT, team)[0] for team in (1, 2)} != {0}


def test_tuple_rows_only_where_allowed(library):
    pairs = [(float(i), float(-i)) for i in range(TEAM_ELEMENTS)]
    for team in (1, 3):
        assert unboxed(library, pairs, 2, ArrayKind.LIST_FLOAT, team)[0] != 0   # a list to box back into
        answer, buffer = unboxed(library, pairs, 2, ArrayKind.LIST_FLOAT, team, tuples=True)
        assert answer == 0 and buffer.tolist() == [list(pair) for pair in pairs]
    assert unboxed(library, tuple(pairs), 2, ArrayKind.LIST_FLOAT, 2, tuples=True)[0] != 0   # rows only


def strided(values, start, n, step):
    total = 0.0
    for i in range(start, n, step):
        values[i] = values[i] * 2.0 + 1.0
        total += values[i]
    return total


def inner_rows(a, out, n, m):
    for i in range(1, n - 1):
        for j in range(m):
            out[i][j] = a[i - 1][j] + a[i + 1][j] * 0.5


def mixed_total(values, n):
    total = 0
    for i in range(n):
        total += values[i] * 2
    return total


def flat_sum(values, n):
    total = 0
    for i in range(n):
        total += values[i]
    return total


def test_sites_over_large_lists_give_cpython_results(library):
    library.mg_set_unbox_team(4)
    n = 3 * TEAM_ELEMENTS + 11
    assert_same_as_cpython(strided, [float(i % 97) for i in range(n)], 5, n, 3)   # gaps of 3, from 5
    rows, columns = 700, 400
    a = [[float((i * 7 + j) % 13) for j in range(columns)] for i in range(rows)]
    assert_same_as_cpython(inner_rows, a, [[0.0] * columns for _ in range(rows)], rows, columns)
    mixed = [i if i % 5 else i * 0.25 for i in range(TEAM_ELEMENTS + 99)]   # ints and floats: int-or-float
    assert_same_as_cpython(mixed_total, mixed, len(mixed))


@pytest.mark.parametrize("first, second", [("early", 0.5), (0.5, "late")])
def test_the_first_failing_element_decides_as_for_one_thread(library, first, second):
    """A str before a float: the guard fails at once; a float first: the list is first
    retyped int-or-float (then the str fails it too).  Either way CPython raises."""
    library.mg_set_unbox_team(4)
    n = 2 * TEAM_ELEMENTS
    values = list(range(n))
    values[1000], values[n - 5] = first, second
    fast = megaguards.jit(flat_sum)
    with pytest.raises(TypeError) as raised:
        flat_sum(values, n)
    with pytest.raises(TypeError) as again:
        fast(values, n)
    assert str(again.value) == str(raised.value)
    reasons = [reason for record in site_for(fast) for reason in record["reasons"]]
    assert any("ints and floats" in reason for reason in reasons) == isinstance(first, float), reasons


EDGES = [0, 1, -1, 2 ** 30 - 1, -(2 ** 30 - 1), 2 ** 30, -(2 ** 30), 2 ** 31, 2 ** 53 + 1, -(2 ** 60) - 3,
         2 ** 63 - 1, -(2 ** 63)]


@pytest.mark.parametrize("team", [1, 3])
def test_ints_of_every_size_unbox_to_their_values(library, team):
    """A compact int (one digit) is read in place, any other through CPython's conversion:
    each edge between them, both signs, a zero, and the ends of int64, in a list a team
    reads and in one a thread reads; one past either end of int64 is refused."""
    for n in (len(EDGES) * 3, TEAM_ELEMENTS + 5):
        values = [EDGES[i % len(EDGES)] for i in range(n)]
        answer, buffer = unboxed(library, values, 1, ArrayKind.LIST_INT, team)
        assert answer == 0 and buffer.tolist() == values
        for outside in (2 ** 63, -(2 ** 63) - 1):
            assert unboxed(library, [*values[:-1], outside], 1, ArrayKind.LIST_INT, team)[0] != 0


def square_in_place(values, n):
    for i in range(n):
        values[i] = values[i] * values[i] - values[i]


def test_ints_boxed_back_compare_by_value():
    """Boxing back keeps an int object that already holds the kernel's value (int_stays reads
    it as the unboxing does): the list afterwards holds CPython's values, 0 and 1 included."""
    values = [EDGES[i % 8] for i in range(40)] + [2, 0, 1]   # squares within int64
    assert_same_as_cpython(square_in_place, values, len(values))


PATTERN = [500, 3, 500, 500, -2, 1000, 500, 257, 257, 0, -6, -6]


def copy_pattern(counts, pattern, rows, columns):
    for y in range(rows):
        for x in range(columns):
            counts[y][x] = pattern[(y + x) % len(pattern)] * 1


def test_repeated_ints_boxed_back_hold_their_values():
    """A row boxed back gives the int it last allocated to the elements that follow with its
    value (marshal_lists.c box_int), past small ints (-5 to 256: CPython's own objects);
    each element's value is CPython's, runs share one object."""
    assert_same_as_cpython(copy_pattern, [[0] * 300 for _ in range(40)], PATTERN, 40, 300)
    counts = [[0] * 300 for _ in range(40)]
    megaguards.jit(copy_pattern)(counts, PATTERN, 40, 300)
    assert counts == [[PATTERN[(y + x) % len(PATTERN)] for x in range(300)] for y in range(40)]
    row = counts[0]
    assert row[0] is row[2] is row[3] and row[7] is row[8] and row[10] is row[11]
