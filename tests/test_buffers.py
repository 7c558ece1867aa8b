"""array.array of every numeric typecode and 1-D memoryviews, read and written in place
(issue 29, item 5): each item converted to the kernel's double or int64 and back; a store
rounds to a float32 item or is checked against a narrower int item, where CPython raises
(OverflowError, ValueError) the loop goes back to CPython with the data untouched.
Memoryviews are built inside each function (a memoryview cannot be deep-copied by the
differential helper); the helper compares the exporters afterwards."""
from __future__ import annotations

import struct
from array import array

import numpy
import pytest
from conftest import assert_same_as_cpython, sites_of

import megaguards

INT_TYPECODES = "bBhHiIlLqQ"


def add_one(a, n):
    for i in range(n):
        a[i] = a[i] + 1
    return a


def sub_one(a, n):
    for i in range(n):
        a[i] = a[i] - 1
    return a


def scale_and_sum(a, n, x):
    s = 0.0
    for i in range(n):
        a[i] = a[i] * x
        s += a[i]   # reads the item as stored: a float32's rounded value
    return s


def scaled_bytes(packed, n, x):
    """The array built from bytes here: arrays holding NaN compare unequal to themselves."""
    a = array("f")
    a.frombytes(packed)
    for i in range(1, n):
        a[i] = a[i] * x
    return a.tobytes()


def view_scale(data, n, x):
    view = memoryview(data)
    for i in range(n):
        view[i] = view[i] * x
    return data


def view_add(data, n):
    view = memoryview(data)
    for i in range(n):
        view[i] = view[i] + 3
    return data


def view_dot(first, second, n):
    a, b = memoryview(first), memoryview(second)
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    return s


def views_of_one_buffer(data, n):
    low, high = memoryview(data)[:n], memoryview(data)[n:]
    for i in range(n):
        high[i] = low[i] * 2.0
    return data


def released_view(data, n):
    view = memoryview(data)
    view.release()
    for i in range(n):
        view[i] = 1.0
    return data


def row_of_matrix_view(data, n):
    view = memoryview(data)
    s = 0.0
    for i in range(n):
        s += view[i]
    return s


@pytest.mark.parametrize("code", INT_TYPECODES)
def test_every_int_typecode_compiles_and_keeps_its_items(code):
    fast = assert_same_as_cpython(add_one, array(code, range(50)), 50)
    assert sites_of(fast)[0]["compiled_runs"] == 1


@pytest.mark.parametrize("code", INT_TYPECODES)
def test_a_store_out_of_an_int_items_range_raises_as_in_cpython_with_the_items_before_it_stored(code):
    size = array(code).itemsize
    signed = code.islower()
    top = (1 << (8 * size - 1)) - 1 if signed else (1 << (8 * size)) - 1
    if size == 8 and not signed:   # held as int64: an item past it stays in CPython at the unboxing
        assert_same_as_cpython(add_one, array(code, [1, top]), 2, compiled="an int beyond int64")
        assert_same_as_cpython(add_one, array(code, [1, (1 << 63) - 1, 5]), 3, compiled="runtime flag")
    else:   # the first item is stored, the second raises OverflowError (int64's own overflow at 8 bytes)
        assert_same_as_cpython(add_one, array(code, [1, top, 5]), 3,
                               compiled="runtime flag" if size == 8 else "runtime flag: a value the items")
    if not signed:
        assert_same_as_cpython(sub_one, array(code, [3, 0, 7]), 3, compiled="runtime flag")


def test_float32_items_round_at_each_store_and_overflow_goes_back_to_cpython():
    assert_same_as_cpython(scale_and_sum, array("f", [0.1 * i for i in range(40)]), 40, 3.3)
    assert_same_as_cpython(scale_and_sum, array("d", [0.1 * i for i in range(40)]), 40, 3.3)
    # 3e38 * 10 is past float32: array('f') keeps inf, the kernel declines and CPython runs.
    assert_same_as_cpython(scale_and_sum, array("f", [1.0, 3e38]), 2, 10.0, compiled="runtime flag")
    assert_same_as_cpython(scaled_bytes, array("f", [1.0, float("inf"), float("nan"), -0.0, -1e-45]).tobytes(), 5, 2.0)


def test_a_float32_nan_the_loop_does_not_write_keeps_its_bits():
    signaling = struct.pack("<I", 0x7F800001) + struct.pack("<f", 1.5) * 3
    assert_same_as_cpython(scaled_bytes, signaling, 4, 2.0)


def test_memoryviews_of_arrays_bytearrays_and_numpy_arrays():
    assert_same_as_cpython(view_scale, array("f", [0.25 * i for i in range(30)]), 30, 1.7)
    assert_same_as_cpython(view_scale, numpy.linspace(0.0, 1.0, 30), 30, 1.7)
    assert_same_as_cpython(view_add, numpy.arange(30, dtype=numpy.int32), 30)
    assert_same_as_cpython(view_add, bytearray(range(30)), 30)
    assert_same_as_cpython(view_add, bytearray(range(250, 256)), 6, compiled="runtime flag")   # ValueError
    assert_same_as_cpython(view_dot, numpy.arange(20.0), array("h", range(20)), 20)


def test_a_cast_view_reads_the_format_it_was_cast_to():
    def through_cast(data, n):
        view = memoryview(data).cast("d")
        for i in range(n):
            view[i] = view[i] + 0.5
        return data
    assert_same_as_cpython(through_cast, bytearray(struct.pack("<4d", 1.0, 2.0, 3.0, 4.0)), 4)


def test_views_that_may_share_memory_stay_in_cpython_when_one_is_written():
    assert_same_as_cpython(views_of_one_buffer, array("d", [1.0] * 8), 4, compiled="may share memory")
    assert_same_as_cpython(view_dot, array("d", [1.0] * 8), array("d", [2.0] * 8), 8)   # read only: compiled


def test_a_released_or_two_dimensional_view_is_cpythons_to_refuse():
    assert_same_as_cpython(released_view, array("d", [1.0, 2.0]), 2, compiled="format 'released'")
    assert_same_as_cpython(row_of_matrix_view, numpy.ones((3, 3)), 3, compiled="format 'd, 2-D'")


def test_storing_a_float_into_int_items_stays_in_cpython():
    def halve(a, n):
        for i in range(n):
            a[i] = a[i] / 2
        return a
    assert_same_as_cpython(halve, array("i", [4, 6]), 2, compiled=False)   # TypeError in CPython


def test_the_signature_tells_the_item_storage_apart():
    """One loop entered with array('d') then array('f'): two specializations (the float32
    one rounds its stores), each CPython's."""
    fast = megaguards.jit(scale_and_sum)
    doubles, floats = array("d", [0.1] * 8), array("f", [0.1] * 8)
    assert fast(doubles, 8, 3.3) == scale_and_sum(array("d", [0.1] * 8), 8, 3.3)
    assert fast(floats, 8, 3.3) == scale_and_sum(array("f", [0.1] * 8), 8, 3.3)
    assert floats.tobytes() == array("f", [array("f", [0.1])[0] * 3.3] * 8).tobytes()
    assert sites_of(fast)[0]["compiled_runs"] == 2
