"""CPython's bits where C compilers would take liberties: NaN signs through negation, libm
calls folded.  (Ordered float reductions: test_ordered_fold.py.)"""
import math

import numpy
import pytest

from conftest import assert_same_as_cpython

NAN_AND_FRIENDS = [math.nan, -math.nan, 1.0, -0.0, 0.0, math.inf, -math.inf, 2.5]


def negated_sum(a):
    t = 0.0
    for i in range(len(a)):
        t += -a[i]
    return t


def negations(a, out):
    for i in range(len(a)):
        out[i] = 1.0 - (-a[i]) + (-a[i]) * 2.0 + -(a[i] - 5.0)
    return out


def powers(a, out):
    for i in range(len(a)):
        out[i] = a[i] ** 2 + a[i] ** 0.5 * 0.0 + math.pow(a[i], 2.0) - math.sin(0.5) * 0.0
    return out


def test_squares_are_libms_pow_as_in_cpython():
    """glibc's pow(x, 2.0) is not x * x for about 1 value in 1200 (it is within 0.52 ULP, not
    correctly rounded); GCC would fold the call into the product.  These three are such values."""
    values = [float.fromhex(h) for h in ("-0x1.e1d4fb3a9c70ap-1", "-0x1.1f1ac47558070p-1", "0x1.5c328229a1c50p-2")]
    assert any(v ** 2 != v * v for v in values)   # this libm rounds them so (else the test proves nothing here)
    assert_same_as_cpython(powers, [abs(v) for v in values], [0.0] * 3)


@pytest.mark.parametrize("value", NAN_AND_FRIENDS)
def test_negated_operand_keeps_cpythons_nan_sign(value):
    """GCC turns t + (-x) into t - x even at -O0: a NaN x then keeps its own sign."""
    assert_same_as_cpython(negated_sum, [1.0, value, 3.0])


def test_negations_in_expressions_keep_nan_signs():
    assert_same_as_cpython(negations, NAN_AND_FRIENDS, [0.0] * len(NAN_AND_FRIENDS))
    floats32 = numpy.array(NAN_AND_FRIENDS, dtype=numpy.float32)
    with numpy.errstate(invalid="ignore"):
        assert_same_as_cpython(negations, floats32, numpy.zeros(len(floats32), dtype=numpy.float32))


# NumPy's error state (analysis/floatstatus.py) ------------------------------------------------

import warnings  # noqa: E402

import megaguards  # noqa: E402
from megaguards import config  # noqa: E402

from conftest import site_for  # noqa: E402


def scale(a, b):
    for i in range(len(a)):
        b[i] = a[i] * 10.0 + b[i]
    return b


def sum_of_squares(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] * a[i]
    return s


def narrow(a, b):
    for i in range(len(a)):
        b[i] = a[i]
    return b


def with_warnings(function, *arguments):
    """The outcome and the warnings raised, as (message, category, line)."""
    from conftest import outcome

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = outcome(function, arguments)
    return result, [(str(w.message), w.category, w.lineno) for w in caught]


OVERFLOWING = numpy.array([1.0, 1e308, 2.0, 3.0] * 8)


@pytest.mark.parametrize("state", [{"all": "raise"}, {"all": "warn"}, {"over": "warn", "invalid": "ignore"},
                                   {"all": "call"}])
@pytest.mark.parametrize("function, arguments", [
    (scale, lambda: (OVERFLOWING, numpy.zeros(len(OVERFLOWING)))),
    (sum_of_squares, lambda: (OVERFLOWING,)),
    (narrow, lambda: (OVERFLOWING, numpy.zeros(len(OVERFLOWING), dtype=numpy.float32))),
])
def test_numpy_error_state_acts_as_in_cpython(state, function, arguments):
    """The compiled loop notes the IEEE flags; one NumPy would act on sends it to CPython,
    where NumPy raises, warns or calls back exactly as it would (and the arrays hold
    what CPython leaves in them)."""
    calls = []
    fast = megaguards.jit(function)
    with numpy.errstate(**state, call=lambda kind, flag: calls.append(kind)):
        expected = with_warnings(function, *arguments())
        expected_calls, calls[:] = list(calls), []
        assert expected[1] or expected_calls or "'raised'" in repr(expected[0][0])   # NumPy did act
        assert with_warnings(fast, *arguments()) == expected
        assert calls == expected_calls
    loop = site_for(fast)[-1]
    assert loop["fallback_runs"] == 1 and any("numpy.seterr" in reason for reason in loop["reasons"]), loop


def test_ignored_numpy_errors_stay_compiled_and_write_in_place():
    fast = megaguards.jit(scale)
    with numpy.errstate(all="ignore"):
        expected = with_warnings(scale, OVERFLOWING, numpy.zeros(len(OVERFLOWING)))
        assert expected[1] == []
        assert with_warnings(fast, OVERFLOWING, numpy.zeros(len(OVERFLOWING))) == expected
    loop = site_for(fast)[-1]
    assert loop["compiled_runs"] == 1 and loop["fallback_runs"] == 0, loop


def test_flags_of_every_thread_are_gathered():
    """Forced parallel on three threads: the overflow is in the last thread's share."""
    saved = config.current()
    config.configure(threads=3)
    try:
        values = numpy.ones(3000)
        values[-1] = 1e308
        fast = megaguards.jit(scale)
        assert with_warnings(fast, values, numpy.zeros(3000)) == with_warnings(scale, values, numpy.zeros(3000))
        assert site_for(fast)[-1]["parallel_depth"] == 1
        assert site_for(fast)[-1]["fallback_runs"] == 1
        fine = numpy.ones(3000)
        assert with_warnings(fast, fine, numpy.zeros(3000)) == with_warnings(scale, fine, numpy.zeros(3000))
        assert site_for(fast)[-1]["compiled_runs"] >= 1
    finally:
        config.configure(threads=saved.threads)


def test_python_floats_need_no_flags():
    """Lists of Python floats: overflow is silent in CPython, and the loop stays compiled."""
    from megaguards.analysis.floatstatus import watched_categories

    values = [1.0, 1e308, 2.0]
    fast = assert_same_as_cpython(scale, values, [0.0] * 3)
    assert site_for(fast)[-1]["fallback_runs"] == 0
    assert watched_categories(numpy.geterr()) != 0   # NumPy's default state does act


NUMPY_GPU_SCRIPT = '''
import numpy
a = numpy.linspace(-2.0, 2.0, 64)
f = numpy.linspace(-2.0, 2.0, 64, dtype=numpy.float32)
b = numpy.zeros(64)
c = numpy.zeros(64, dtype=numpy.float32)
for i in range(64):
    b[i] = a[i] * 3.0 - a[i] / 7.0 + a[i] // 0.5 + a[i] % 0.3
for i in range(64):
    c[i] = a[i] * 0.5 + f[i] * f[i] - f[i] / 3.0
t = 0.25
for i in range(64):
    t += a[i] * 3.0 - a[i]
print(b.sum(), c.sum(), t)
'''


def test_kernels_computing_numpy_flags_compile_with_nvrtc(tmp_path):
    """The GPU computes NumPy's flags itself (prelude's mg_np_*) and keeps the operands of
    float sums for the host's ordered fold: NVRTC must accept both."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) not installed")
    from conftest import run_megaguards

    script = tmp_path / "numpy_gpu.py"
    script.write_text(NUMPY_GPU_SCRIPT)
    result = run_megaguards("explain", "--device", "gpu", "--dump", tmp_path / "dump", script)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "did not compile" not in result.stderr, result.stderr[-3000:]
    kernels = sorted((tmp_path / "dump").glob("*.cu"))
    assert len(kernels) == 3, result.stderr[-3000:]
    sources = "".join(kernel.read_text() for kernel in kernels)
    assert "mg_np_mul_f64(" in sources and "mg_np_div_f32(" in sources and "mg_np_narrow(" in sources
    assert "mg_np_floordiv_f64(" in sources and "mg_np_mod_f64(" in sources
    assert "mg_fvals[(0 * mg_total + mg_iteration)] = " in sources   # an operand kept for the fold
