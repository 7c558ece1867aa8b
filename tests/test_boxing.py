"""Boxing results back into lists: a float object only the list refers to gets its new
value in place (no allocation); any float someone else can see is replaced, never changed."""
from __future__ import annotations

import megaguards
from conftest import assert_same_as_cpython


def scale(xs, out, factor):
    for i in range(len(xs)):
        out[i] = xs[i] * factor
    return out


def test_repeated_writes_give_python_values():
    fast = megaguards.jit(scale)
    out = [0.0] * 5
    for factor in (1.5, 2.5, -0.0, float("inf")):
        expected = scale([0.5, 1.0, 2.0, -3.0, 0.0], [0.0] * 5, factor)
        assert repr(fast([0.5, 1.0, 2.0, -3.0, 0.0], out, factor)) == repr(expected)  # nan, -0.0


def test_floats_seen_elsewhere_are_not_changed_in_place():
    fast = megaguards.jit(scale)
    out = fast([1.0, 2.0, 3.0], [0.0] * 3, 2.0)  # three fresh floats, each held by the list only
    kept = out[1]
    shared = [out[0]] * 2
    fast([1.0, 2.0, 3.0], out, 10.0)
    assert out == [10.0, 20.0, 30.0]
    assert kept == 4.0 and kept is not out[1]
    assert shared == [2.0, 2.0]


def test_in_place_boxing_matches_cpython_on_shared_rows_of_floats():
    row = 0.25
    assert_same_as_cpython(scale, [1.0, 2.0], [row, row], 3.0)


def test_bools_among_ints_keep_their_type():
    """True is an int to Python's arithmetic but prints as True: a list mixing them is not
    an int list (unboxed, True would come back as 1)."""
    def copy_into(a, b):
        for i in range(len(a)):
            b[i] = a[i]
    assert_same_as_cpython(copy_into, [1, 2, 3], [0, 0, 0])
    assert_same_as_cpython(copy_into, [1, True, 2], [0, 0, 0], compiled=False)
    assert_same_as_cpython(copy_into, [1, 2, False], [5, 6, 7], compiled=False)


def third_column(A, n):
    s = 0
    for i in range(n):
        s = s * 10 + A[i][2]
    return s


def test_ragged_rows_fail_the_guard():
    """The matrix's shape comes from its first row; unboxing checks every row it unboxes
    against it.  A shorter row would otherwise shift the rows after it in the buffer: A[1][2]
    (IndexError in Python) would read 6, row 2's second element.  Rows the loop cannot
    touch are not unboxed (the hoisted subscripts bound them), so they may be anything."""
    assert_same_as_cpython(third_column, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1]], 3)
    ragged = [[1, 2, 3], [4], [5, 6, 7], [8, 9, 10]]
    assert_same_as_cpython(third_column, ragged, 3, compiled="not rectangular")
    assert_same_as_cpython(third_column, ragged, 1, compiled=True)   # only row 0 is read, and unboxed
