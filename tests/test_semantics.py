"""In-process differential tests: each function runs plainly and through
megaguards.jit on copies of the same inputs; everything must match, and the
compiled path must really have run where that is the point."""
import math

import numpy
import pytest

from conftest import assert_same_as_cpython, site_for, sites_of


def int_ops(a, b, out):
    for i in range(len(a)):
        x, y = a[i], b[i]
        out[i] = x + y - x * y + x // y + x % y + (x & y) + (x | y) + (x ^ y) + (x << 2) + (x >> 1) + -x + ~y
    return out


def float_ops(a, b, out):
    for i in range(len(a)):
        x, y = a[i], b[i]
        out[i] = x / y + x // y + x % y + x ** 2 + abs(x) - y
    return out


def test_int_operators_with_negative_operands():
    a = [7, -7, 7, -7, 0, 123456789, -1]
    b = [3, 3, -3, -3, 5, -97, 2]
    assert_same_as_cpython(int_ops, a, b, [0] * len(a))


def test_float_floor_division_and_modulo_follow_python():
    a = [7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1e-300, 3.0]
    b = [2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -7.0, -0.5]
    assert_same_as_cpython(float_ops, a, b, [0.0] * len(a))


def test_true_division_of_ints_is_correctly_rounded():
    def divide(a, b, out):
        for i in range(len(a)):
            out[i] = a[i] / b[i]
    assert_same_as_cpython(divide, [1, 2, 10, -7, 2**52 + 1], [3, 7, 3, 2, 3], [0.0] * 5)


def test_true_division_of_ints_beyond_two_to_the_53_stays_in_cpython():
    """float(a) / float(b) rounds twice: (2**53 + 1) / 3 would give ...330.5, Python ...331.0."""
    def divide(a, b, out):
        for i in range(len(a)):
            out[i] = a[i] / b[i]
    assert (2**53 + 1) / 3 != float(2**53 + 1) / 3.0
    assert_same_as_cpython(divide, [6, 2**53 + 1], [3, 3], [0.0, 0.0], compiled=False)
    assert_same_as_cpython(divide, [6, -7], [2**53 + 1, 3], [0.0, 0.0], compiled=False)


def test_division_by_zero_mid_loop_leaves_cpython_partial_state():
    def scale(a, d):
        for i in range(len(a)):
            a[i] = a[i] / d[i]
    assert_same_as_cpython(scale, [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 0.0, 4.0], compiled=False)


def test_index_error_mid_loop():
    def shift(a, n):
        for i in range(n):
            a[i] = a[i + 1] * 2
    assert_same_as_cpython(shift, [1, 2, 3, 4], 4, compiled=False)
    assert_same_as_cpython(shift, [1, 2, 3, 4], 3, compiled=True)


def test_negative_indices_wrap():
    def rotate(a, out):
        for i in range(len(a)):
            out[i] = a[i - 1] + a[-1]
    assert_same_as_cpython(rotate, [1, 2, 3], [0, 0, 0])


def test_negative_indices_wrap_in_subscripts_checked_inside_the_loop():
    def gather(a, index, out):
        for i in range(len(index)):
            out[i] = a[index[i]]      # not affine: checked (and wrapped) in the loop
    fast = assert_same_as_cpython(gather, [10, 20, 30, 40], [0, -1, 2, -4, 3], [0] * 5)
    assert site_for(fast)[-1]["checks_in_loop"] > 0
    assert_same_as_cpython(gather, [10, 20, 30, 40], [0, -5], [0] * 2, compiled=False)  # IndexError


def test_a_loop_variable_reassigned_in_the_body_is_not_bounded_by_its_range():
    def mirrored(a):
        s = 0
        for i in range(len(a)):
            i = len(a) - 1 - i
            s = s * 3 + a[i]
        return s

    def skip_ahead(a):
        s = 0
        for i in range(len(a)):
            i = i + 2
            s += a[i]                 # IndexError at the third iteration
        return s
    assert_same_as_cpython(mirrored, [1, 2, 3, 4])
    assert_same_as_cpython(skip_ahead, [1, 2, 3, 4], compiled=False)


def test_triangular_nest_whose_last_row_reads_past_its_end():
    def lower_sum(a, n):
        s = 0
        for i in range(n):
            for j in range(i + 1):
                s += a[i][j + 1]      # j + 1 reaches i + 1: past the end of the last row only
        return s
    rows = [[i * 10 + j for j in range(4)] for i in range(4)]
    assert_same_as_cpython(lower_sum, rows, 3)
    fast = assert_same_as_cpython(lower_sum, rows, 4, compiled=None)
    # The nest's site fell back (CPython then runs the inner loop's own site row by row).
    nest = sites_of(fast)[0]
    assert (nest["compiled_runs"], nest["fallback_runs"]) == (0, 1), nest


def test_overflow_beyond_int64_gives_big_ints():
    def power(n):
        k = 1
        for i in range(1, n):
            k *= i
        return k
    assert_same_as_cpython(power, 15)
    assert_same_as_cpython(power, 30, compiled=False)


def test_zero_trip_loop_keeps_or_leaves_unbound_the_loop_variable():
    def keep(n):
        i = "before"
        for i in range(n):
            pass
        return i

    def unbound(n):
        for i in range(n):
            pass
        return i
    assert_same_as_cpython(keep, 0)
    assert_same_as_cpython(keep, 3)
    assert_same_as_cpython(unbound, 0)
    assert_same_as_cpython(unbound, 4)


def test_ranges_with_steps():
    def collect(a, start, stop, step):
        count = 0
        for i in range(start, stop, step):
            a[count] = i
            count += 1
        return count, i
    for start, stop, step in [(0, 10, 3), (10, 0, -3), (5, -5, -1), (-3, 7, 4)]:
        assert_same_as_cpython(collect, [0] * 20, start, stop, step)
    assert_same_as_cpython(collect, [0] * 20, 0, 10, 0, compiled=False)


def test_while_break_continue_and_tuple_assignment():
    def fib(limit, out):
        a, b = 0, 1
        n = 0
        for i in range(len(out)):
            while True:
                a, b = b, a + b
                if a % 2 == 0:
                    continue
                if a > limit:
                    break
                n += 1
            out[i] = n
            if n > 10:
                break
        return a, b, n
    assert_same_as_cpython(fib, 100, [0] * 5)


def test_math_functions_and_builtins():
    def mix(a, out):
        for i in range(len(a)):
            x = a[i]
            out[i] = (math.sqrt(x) + math.exp(-x) + math.log(x + 1) + math.log10(x + 1) + math.log2(x + 2)
                      + math.sin(x) + math.cos(x) + math.tan(x) + math.atan(x) + math.atan2(x, 2.0)
                      + math.floor(x) + math.ceil(x) + math.trunc(-x) + math.fabs(-x) + math.fmod(x, 0.7)
                      + math.copysign(1.0, -x) + math.tanh(x) + min(x, 1.5) + max(x, 1.0, 0.5 * x)
                      + round(x) + int(x) + float(i) + abs(-x) + pow(x, 2) + math.pi + math.e)
    assert_same_as_cpython(mix, [0.0, 0.5, 1.5, 2.5, 3.25, 10.0], [0.0] * 6)


def test_math_domain_error_falls_back():
    def roots(a, out):
        for i in range(len(a)):
            out[i] = math.sqrt(a[i])
    assert_same_as_cpython(roots, [4.0, 1.0, -1.0, 9.0], [0.0] * 4, compiled=False)


def test_list_element_type_change_selects_another_specialization():
    import megaguards

    def total(a):
        s = 0
        for i in range(len(a)):
            s = s + a[i]
        return s
    fast = megaguards.jit(total)
    assert fast([1, 2, 3]) == 6
    assert fast([1.5, 2.0]) == total([1.5, 2.0])  # int s, float elements: not stable -> CPython
    assert fast([1, 2.5]) == 3.5
    assert fast([4, 5]) == 9


def test_same_list_passed_twice():
    def accumulate(a, b):
        for i in range(1, len(a)):
            a[i] = a[i] + b[i - 1]
    assert_same_as_cpython(accumulate, [1, 1, 1, 1, 1], [1, 1, 1, 1, 1])
    shared = [1, 1, 1, 1, 1]
    assert_same_as_cpython(lambda x: accumulate(x, x), shared, compiled=None)


def test_aliased_rows_written_fall_back():
    def fill(grid):
        for i in range(len(grid)):
            for j in range(len(grid[0])):
                grid[i][j] = grid[i][j] + i
    def fill_and_return(grid):
        fill(grid)
        return grid
    assert_same_as_cpython(fill_and_return, [[0] * 3] * 3, compiled=False)
    assert_same_as_cpython(fill_and_return, [[0] * 3 for _ in range(3)], compiled=None)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool"])
def test_numpy_arrays_of_each_dtype(dtype):
    def step(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * 2 + (1 if a[i] > 0 else 0)
    a = numpy.array([0, 1, 2, 3, 5, 8], dtype=dtype)
    out = numpy.zeros(6, dtype=dtype if dtype != "bool" else "int64")
    if dtype == "bool":
        a = numpy.array([0, 1, 2, 3, 5, 8]) > 2
    assert_same_as_cpython(step, a, out)


def test_numpy_reduction_changes_python_float_to_numpy_float64():
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s, type(s).__name__
    assert_same_as_cpython(total, numpy.linspace(0.0, 1.0, 11))
    assert_same_as_cpython(total, numpy.zeros(0))


def test_numpy_strided_views():
    def copy_scaled(src, dst):
        for i in range(len(src)):
            for j in range(len(src[0])):
                dst[i, j] = src[i][j] * 0.5
    base = numpy.arange(48, dtype=numpy.float64).reshape(6, 8)
    assert_same_as_cpython(copy_scaled, base[::2, ::3], numpy.zeros((3, 3)))
    assert_same_as_cpython(copy_scaled, base.T, numpy.zeros((8, 6)))


def test_overlapping_views_fall_back_correctly():
    """A view the loop only reads, overlapping one it writes, must see the writes (Python
    reads base[i] after iteration i - 1 wrote it); the kernel, writing into a shadow copy
    (math.sqrt may raise), would read the old values: the guard sends such a call to
    CPython.  (The views are made inside the test: the deep copies assert_same_as_cpython
    makes of its arguments would not share memory.)"""
    def shift(a, b):
        for i in range(len(b)):
            a[i] = math.sqrt(b[i]) + 1.0
    import megaguards

    fast = megaguards.jit(shift)
    expected, base = numpy.zeros(64), numpy.zeros(64)
    shift(expected[1:], expected[:-1])
    fast(base[1:], base[:-1])
    assert base.tobytes() == expected.tobytes()
    (loop,) = sites_of(fast)
    assert loop["compiled_runs"] == 0, loop
    assert any("overlapping NumPy views, one of them written" in reason for reason in loop["reasons"]), loop


def test_methods_reading_attributes():
    class Grid:
        def __init__(self, n):
            self.n = n
            self.cells = [float(i) for i in range(n)]

        def smooth(self):
            total = 0.0
            for i in range(1, self.n - 1):
                total += (self.cells[i - 1] + self.cells[i + 1]) / 2
            return total
    import megaguards

    plain = Grid(10)
    Grid.smooth = megaguards.jit(Grid.smooth)
    fast = Grid(10)
    assert fast.smooth() == 36.0
    assert site_for(Grid.smooth)[-1]["compiled_runs"] == 1
    del plain


def test_variable_reset_each_row_then_accumulating_numpy_values():
    def row_sums(a, out, m):
        s = -1.0
        for i in range(a.shape[0]):
            s = 0.0
            for j in range(m):
                s += a[i, j]
            out[i] = s
        return s, type(s).__name__
    a = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
    assert_same_as_cpython(row_sums, a, numpy.zeros(3), 4)
    assert_same_as_cpython(row_sums, a, numpy.zeros(3), 0)  # s stays a Python float


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")   # NumPy's own, as under CPython
def test_numpy_writes_when_a_flag_can_be_raised_go_through_shadows():
    def divide(a, b):
        for i in range(len(a)):
            a[i] = a[i] // b[i]

    def guarded_shift(a, b):
        for i in range(len(a)):
            if i < len(a) - 1:
                b[i] = a[i + 1] * 2.0   # the hoisted check fails: the checked loop runs
    base = numpy.arange(12, dtype=numpy.int64).reshape(3, 4)
    assert_same_as_cpython(divide, base[:, 1], numpy.array([1, 0, 2]), compiled=False)
    assert_same_as_cpython(divide, base[::2, 2], numpy.array([2, 3]))
    strided = numpy.zeros(10)[::2]
    assert_same_as_cpython(guarded_shift, numpy.arange(5.0), strided)
