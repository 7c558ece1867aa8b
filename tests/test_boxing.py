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
