"""Differential matrix for the built-ins and ``math`` functions compiled loops call:
every function on corner values (signed zeros, infinities, NaN, subnormals, huge
ints, domain errors) through CPython and megaguards.jit, results, result types and
exceptions identical; and each call's CUDA rendering compiles with NVRTC."""
from __future__ import annotations

import importlib.util
import itertools
import math
import sys

import pytest

import megaguards
from conftest import outcome, run_megaguards, site_for

FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 0.1, 1e-300, 5e-324, -5e-324,
          2.2250738585072014e-308, 1e-310, 1e16 + 2.0, 2.0 ** 53 + 2.0, 9.3e18, -9.3e18, 700.0, 710.0,
          -745.5, 1e300, 1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan]
INTS = [0, 1, -1, 2, -3, 7, 10, 2 ** 53 + 1, 2 ** 62, -(2 ** 63), 2 ** 63 - 1]
BOOLS = [True, False]
PAIR_FLOATS = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, 3.0, 1e-310, 1e300, math.inf, -math.inf, math.nan]
PAIR_INTS = [0, 1, -1, 3, -7, 2 ** 62]

ONE_ARGUMENT = ["abs", "int", "float", "bool", "round", *(f"math.{n}" for n in (
    "sqrt", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "floor", "ceil", "trunc", "fabs", "isnan", "isinf", "isfinite"))]
TWO_ARGUMENTS = ["min", "max", "pow", "math.atan2", "math.fmod", "math.copysign", "math.pow", "math.log",
                 "math.hypot"]
VARIADIC = ["min", "max"]  # three and four arguments too


def _kernel_name(function: str, arity: int) -> str:
    return f"k_{function.replace('.', '_')}_{arity}"


def _module_source() -> str:
    lines = ["import math", ""]
    arguments = "abcd"
    for function, arity in [(f, 1) for f in ONE_ARGUMENT] + [(f, 2) for f in TWO_ARGUMENTS] + \
            [(f, n) for f in VARIADIC for n in (3, 4)]:
        names = ", ".join(arguments[:arity])
        lines += [f"def {_kernel_name(function, arity)}({names}):",
                  "    for i in range(1):",
                  f"        r = {function}({names})",
                  "    return r", ""]
    lines += ["def k_constants(k):",
              "    for i in range(1):",
              "        r = math.pi * k + math.e - math.tau / 3.0 + (math.inf if k > 1 else 0.0) "
              "+ (math.nan if k > 2 else 0.0)",
              "    return r", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("builtins")
    path = folder / "builtin_kernels.py"
    path.write_text(_module_source())
    spec = importlib.util.spec_from_file_location("builtin_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check(plain, argument_lists) -> dict:
    """Every argument tuple through both; returns the report of the compiled function."""
    fast = megaguards.jit(plain)
    for arguments in argument_lists:
        assert outcome(fast, arguments) == outcome(plain, arguments), (plain.__name__, arguments)
    sites = site_for(fast)
    reasons = [r for s in sites for r in s["reasons"]]
    assert not [r for r in reasons if "internal error" in r or "did not compile" in r], reasons
    return {"compiled": sum(s["compiled_runs"] for s in sites), "reasons": reasons}


@pytest.mark.parametrize("function", ONE_ARGUMENT)
def test_one_argument_functions_match_cpython(kernels, function):
    result = _check(getattr(kernels, _kernel_name(function, 1)), [(v,) for v in FLOATS + INTS + BOOLS])
    assert result["compiled"] > 0, result["reasons"]


@pytest.mark.parametrize("function", TWO_ARGUMENTS)
def test_two_argument_functions_match_cpython(kernels, function):
    if function == "math.hypot" and sys.version_info[:2] not in ((3, 10), (3, 11)):
        pytest.skip("math.hypot compiles for Python 3.10 and 3.11 only")
    # int ** 2**62 would not finish under CPython either: small exponents for pow()
    values = PAIR_FLOATS + (PAIR_INTS[:-1] + [62, 63] if function == "pow" else PAIR_INTS) + [True]
    pairs = list(itertools.product(values, values))
    result = _check(getattr(kernels, _kernel_name(function, 2)), pairs)
    assert result["compiled"] > 0, result["reasons"]


@pytest.mark.parametrize("arity", [3, 4])
@pytest.mark.parametrize("function", VARIADIC)
def test_min_max_of_several_arguments(kernels, function, arity):
    floats = [-0.0, 0.0, 1.0, math.nan, -math.inf]
    ints = [0, -5, 2 ** 62, 3]
    tuples = list(itertools.product(floats, repeat=arity)) + list(itertools.product(ints, repeat=arity))
    result = _check(getattr(kernels, _kernel_name(function, arity)), tuples)
    assert result["compiled"] > 0, result["reasons"]


def test_math_constants_are_module_attribute_reads(kernels):
    result = _check(kernels.k_constants, [(0,), (1,), (2.5,), (3,)])
    assert result["compiled"] > 0, result["reasons"]


def test_hypot_is_cpythons_correctly_rounded_algorithm(kernels):
    """Random doubles over the whole exponent range, subnormals included: bit for bit."""
    if sys.version_info[:2] not in ((3, 10), (3, 11)):
        pytest.skip("math.hypot compiles for Python 3.10 and 3.11 only")
    import random
    import struct

    generator = random.Random(6)

    def double():
        if generator.random() < 0.5:
            return struct.unpack("d", struct.pack("Q", generator.getrandbits(64)))[0]
        return generator.random() * 2.0 ** generator.randint(-1074, 1023)

    plain = kernels.k_math_hypot_2
    fast = megaguards.jit(plain)
    pairs = [(double(), double()) for _ in range(3000)]
    pairs += [(x, x * generator.uniform(0.5, 2.0)) for x, _ in pairs[:1000]]
    for pair in pairs:
        assert outcome(fast, pair) == outcome(plain, pair), pair


def test_round_with_ndigits_stays_in_cpython_with_its_reason():
    def rounded(x):
        for i in range(1):
            r = round(x, 2)
        return r

    fast = megaguards.jit(rounded)
    assert fast(2.675) == rounded(2.675)
    reasons = [r for s in site_for(fast) for r in s["reasons"]]
    assert any("round(x, ndigits)" in r for r in reasons), reasons


def test_sqrt_of_negative_raises_value_error_via_fallback(kernels):
    fast = megaguards.jit(kernels.k_math_sqrt_1)
    with pytest.raises(ValueError, match="math domain error"):
        fast(-1.0)
    assert fast(4.0) == 2.0


CUDA_SCRIPT = '''
import math
xs = [0.25, 1.5, 2.0, 3.75]
ys = [1.0, -2.0, 0.5, 4.0]
out = [0.0] * 4
'''


def test_every_builtin_renders_in_cuda_and_compiles_with_nvrtc(tmp_path):
    """One GPU-eligible loop per function (MEGAGUARDS_REASSOCIATE=1, so that transcendental calls
    may go to the GPU): each CUDA kernel must compile with NVRTC."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) not installed")
    loops = []
    calls = [f"{f}(xs[i])" for f in ONE_ARGUMENT if f not in ("math.log", "math.sqrt", "math.asin",
                                                                "math.acos", "math.log10", "math.log2")]
    calls += ["math.sqrt(xs[i])", "math.log(xs[i])", "math.log10(xs[i])", "math.log2(xs[i])",
              "math.asin(xs[i] / 4.0)", "math.acos(xs[i] / 4.0)"]
    calls += [f"{f}(xs[i], ys[i])" for f in TWO_ARGUMENTS if f not in ("math.log", "math.hypot", "pow",
                                                                       "math.pow")]
    calls += ["math.log(xs[i], 3.0)", "pow(xs[i], 2.0)", "math.pow(xs[i], 3.0)", "min(xs[i], ys[i], 0.5)",
              "max(xs[i], ys[i], 0.5, -1.0)"]
    if "math.hypot" in __import__("megaguards.analysis.functions", fromlist=["FUNCTIONS"]).FUNCTIONS:
        calls.append("math.hypot(xs[i], ys[i])")
    for call in calls:
        loops.append(f"for i in range(len(xs)):\n    out[i] = float({call})\nprint(repr(out))\n")
    script = tmp_path / "calls.py"
    script.write_text(CUDA_SCRIPT + "\n".join(loops))
    result = run_megaguards("explain", "--device", "gpu", "--dump", tmp_path / "dump", script,
                            env={"MEGAGUARDS_REASSOCIATE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "did not compile" not in result.stderr, result.stderr[-3000:]
    kernels_written = len(list((tmp_path / "dump").glob("*.cu")))
    assert kernels_written == len(calls), (kernels_written, len(calls), result.stderr[-3000:])


def shortest_paths(dist, n):
    """Floyd-Warshall as written in algorithm collections: "no edge" is float("inf")."""
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if dist[i][k] != float("inf") and dist[k][j] != float("inf") \
                        and dist[i][k] + dist[k][j] < dist[i][j]:
                    dist[i][j] = dist[i][k] + dist[k][j]
    return dist


def float_texts(values, below, sums):
    for i in range(len(values)):
        x = values[i]
        below[i] = x < float("inf") and x > float("-Infinity")
        sums[i] = float(" 1e3 ") + x if x < 2.0 else float("nan") if x == 2.0 else -x * float("-nan")
    return below, sums


def test_float_of_a_str_constant_is_a_constant_of_the_kernel():
    from conftest import assert_same_as_cpython

    inf = float("inf")
    graph = [[0.0, 3.0, inf, 7.0], [8.0, 0.0, 2.0, inf], [5.0, inf, 0.0, 1.0], [2.0, inf, inf, 0.0]]
    assert_same_as_cpython(shortest_paths, graph, 4)
    values = [1.5, inf, -inf, -0.0, 2.0, 3.0]
    fast = assert_same_as_cpython(float_texts, values, [False] * 6, [0.0] * 6)
    sums = fast(values, [False] * 6, [0.0] * 6)[1]
    plain = float_texts(values, [False] * 6, [0.0] * 6)[1]
    assert [math.copysign(1.0, x) for x in sums] == [math.copysign(1.0, x) for x in plain]   # NaN signs too


def test_float_of_a_str_it_rejects_stays_in_cpython():
    from conftest import assert_same_as_cpython

    def wrong(a):
        for i in range(len(a)):
            a[i] = float("one")
        return a
    assert_same_as_cpython(wrong, [1.0], compiled="float() of 'one' (Python raises ValueError)")


def test_float_rebound_sends_the_loop_back():
    def rebound(a, float):
        s = 0.0
        for i in range(len(a)):
            s += a[i] * float("2.5")
        return s
    fast = megaguards.jit(rebound)
    assert fast([1.0, 2.0], lambda text: 10.0) == 30.0   # the user's float: not the built-in
