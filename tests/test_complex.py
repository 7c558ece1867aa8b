"""Complex numbers by scalar replacement: a Python complex inside a compiled loop is a
pair of doubles computed with CPython's own formulas (complexobject.c), so results are
bit-identical, and what CPython raises (complex division by zero, 0j to a negative
power, abs overflow) makes the kernel flag and CPython re-run the loop."""
from __future__ import annotations

import itertools
import math

import pytest

import megaguards
from conftest import assert_same_as_cpython, outcome, site_for

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-310, 1e300, math.inf, -math.inf, math.nan]


def arithmetic(a, b):
    for i in range(1):
        s = a + b
        d = a - b
        p = a * b
        n = -a
        q = +b
    return s, d, p, n, q


def divide(a, b):
    for i in range(1):
        q = a / b
    return q


def power(a, b):
    for i in range(1):
        r = a ** b
    return r


def magnitude(a):
    for i in range(1):
        r = abs(a)
    return r


def parts(a):
    for i in range(1):
        r = a.real * 2.0 - a.imag
        t = a == 1j
        u = a != 2
        v = bool(a)
    return r, t, u, v


def mixed(z, x, k):
    for i in range(1):
        r = z * x + k - 1j
        s = x / z
        t = z == x
        u = z == k
        v = x != z
    return r, s, t, u, v


def constructed(x, y):
    for i in range(1):
        z = complex(x, y)
        w = complex(x)
        u = complex()
        v = complex(z)
    return z, w, u, v


def values(pool):
    return [complex(r, i) for r, i in itertools.product(pool, pool)]


def _matrix(function, argument_lists):
    fast = megaguards.jit(function)
    for arguments in argument_lists:
        assert outcome(fast, arguments) == outcome(function, arguments), arguments
    sites = site_for(fast)
    assert sum(s["compiled_runs"] for s in sites) > 0, [s["reasons"] for s in sites]


def test_add_subtract_multiply_negate_bit_for_bit():
    pool = values(SPECIAL)[::3]
    _matrix(arithmetic, [(a, b) for a in pool for b in pool[::5]])


def test_division_smith_algorithm_and_zero_division():
    pool = values(SPECIAL)
    pairs = [(a, b) for a in pool[::4] for b in pool]
    _matrix(divide, pairs)
    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        megaguards.jit(divide)(1 + 1j, 0j)


def test_power_integer_and_general_exponents():
    bases = [0j, 1 + 1j, -2.5 + 0.5j, 1e-3 - 2j, complex(3, 0), complex(-0.0, 1.0), 1e200 + 1e200j]
    exponents = [0j, 1 + 0j, 2 + 0j, 3 + 0j, -2 + 0j, 100 + 0j, 0.5 + 0j, 1.5 - 0.25j, 1j, -1 + 0j]
    _matrix(power, [(a, b) for a in bases for b in exponents])
    with pytest.raises(ZeroDivisionError):
        megaguards.jit(power)(0j, -1 + 0j)


def test_abs_is_hypot_with_infinities_and_overflow():
    _matrix(magnitude, [(z,) for z in values(SPECIAL + [1.7976931348623157e308])])


def test_real_imag_comparisons_and_truth():
    _matrix(parts, [(z,) for z in values([0.0, -0.0, 1.0, 2.0, math.nan, math.inf])])


def test_mixed_real_operands_enter_as_pairs_with_positive_zero():
    zs = [1 + 2j, -0.0 - 0.0j, complex(math.inf, 0.0), 3j, complex(2.0, -0.0)]
    xs = [0.0, -0.0, 2.0, math.inf]
    ks = [0, 2, -3, 2 ** 60 + 1]
    _matrix(mixed, [(z, x, k) for z in zs for x in xs for k in ks if z != 0])


def test_complex_constructor_from_real_parts():
    _matrix(constructed, [(x, y) for x in (0.0, -0.0, 1.5, 3, True) for y in (-0.0, 2.5, 7)])


def mandelbrot(width, height, limit):
    counts = [0] * (width * height)
    for py in range(height):
        for px in range(width):
            c = complex(-2.0 + 3.0 * px / width, -1.5 + 3.0 * py / height)
            z = 0j
            n = 0
            while n < limit:
                z = z * z + c
                if abs(z) > 2.0:
                    break
                n += 1
            counts[py * width + px] = n
    return counts, z


def test_mandelbrot_with_complex_numbers_compiles_and_matches():
    assert_same_as_cpython(mandelbrot, 24, 16, 50)


def julia_step(zs_real, zs_imag, c, steps):
    z = 0j
    for i in range(len(zs_real)):
        z = complex(zs_real[i], zs_imag[i])
        for k in range(steps):
            z = z * z + c
        zs_real[i] = z.real
        zs_imag[i] = z.imag
    return z


def test_complex_live_in_and_live_out_with_lists_of_parts():
    assert_same_as_cpython(julia_step, [0.1, -0.4, 0.3], [0.0, 0.2, -0.7], -0.8 + 0.156j, 5)


def accumulate(n, w):
    total = 0j
    for i in range(n):
        total = total + w ** 2 / (i + 1)
    return total


def test_complex_accumulation_stays_sequential_and_exact():
    assert_same_as_cpython(accumulate, 50, 0.3 - 0.7j)


def ordered(a, b):
    for i in range(1):
        r = a < b
    return r


def test_ordering_complex_numbers_stays_in_cpython():
    assert_same_as_cpython(ordered, 1j, 2j, compiled=False)


def test_storing_complex_into_a_float_list_stays_in_cpython():
    def store(out, z):
        for i in range(len(out)):
            out[i] = z * i
    assert_same_as_cpython(store, [0.0, 1.0], 1j, compiled=False)


def test_complex_helpers_compile_for_the_cuda_target(tmp_path):
    """The shared prelude's complex helpers compile with NVRTC (complex loops themselves
    stay on the CPU: GPU results carry ints and doubles only)."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) not installed")
    from megaguards.codegen.targets.cuda import CUDA
    from megaguards.runtime.cuda import check_with_nvrtc

    kernel = CUDA.prelude + """
extern "C" __global__ void mg_kernel(const double *in, double *out, int *flag) {
    int mg_err = 0;
    mg_complex z = mg_cmake(in[0], in[1]), c = mg_cmake(in[2], in[3]);
    z = mg_cadd(mg_cmul(z, z), c);
    z = mg_csub(mg_cdiv(z, c, &mg_err), mg_cneg(z));
    z = mg_cpow(z, mg_cmake(2.0, 0.0), &mg_err);
    out[0] = z.re; out[1] = z.im; out[2] = mg_cabs(z, &mg_err) + mg_ceq(z, c) + mg_ctruth(c);
    *flag = mg_err;
}
"""
    assert check_with_nvrtc(kernel, tmp_path)
