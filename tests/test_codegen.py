"""Rendering C for a typed loop, compiling it, and the on-disk kernel cache."""
import ast
import json
import re
import textwrap

import pytest

from megaguards import config
from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.codegen.layout import plan_layout
from megaguards.codegen.renderer import Renderer
from megaguards.codegen.targets.c import C
from megaguards.frontend.lower import lower_loop
from megaguards.ir.types import Scalar
from megaguards.runtime.compiler import KERNEL_FLAGS, build_shared_object, find_compiler

from conftest import run_megaguards


def render(source: str, scalars, arrays, functions=()):
    loop = lower_loop(next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For)))
    typed = infer_types(loop.body, scalars, arrays, {"range": "range", **{name: name for name in functions}})
    layout = plan_layout(typed, tuple(scalars), tuple(loop.assigned))
    return Renderer(typed, layout, C).render()


def test_matrix_multiply_renders_and_compiles_without_fma_or_fast_math(tmp_path):
    kernel = render(
        "for i in range(n):\n    for j in range(n):\n        t = 0.0\n"
        "        for k in range(n):\n            t += A[i][k] * B[k][j]\n        C[i][j] = t\n",
        {"n": Scalar.PY_INT},
        {name: ArrayInfo(Scalar.PY_FLOAT, 2, name == "C") for name in "ABC"})
    assert "mg_kernel" in kernel.source and kernel.checks_in_loop == 6  # six subscripts, bounds-checked
    assert "-ffp-contract=off" in KERNEL_FLAGS and "-fno-fast-math" in KERNEL_FLAGS
    compiler = find_compiler(None)
    path, cached = build_shared_object(kernel.source, tmp_path, compiler)
    assert path.exists() and not cached
    assert build_shared_object(kernel.source, tmp_path, compiler) == (path, True)


def test_integer_arithmetic_is_checked_and_float_arithmetic_is_plain():
    kernel = render("for i in range(n):\n    a[i] = a[i] * 3 + 1\n    b[i] = b[i] * 3.0 + 1.0\n",
                    {"n": Scalar.PY_INT},
                    {"a": ArrayInfo(Scalar.PY_INT, 1, True), "b": ArrayInfo(Scalar.PY_FLOAT, 1, True)})
    assert "mg_mul_i64" in kernel.source and "mg_add_i64" in kernel.source
    assert "* 3.0) + 1.0)" in kernel.source


LIBC_CLASSIFIERS = re.compile(rb"__(finite|isinf|isnan)\w*")


def test_float_checks_test_bits_instead_of_calling_the_c_library(tmp_path):
    # Under the kernel flags (-fsignaling-nans) GCC makes isfinite, isinf and isnan libc
    # calls; the prelude's own tests of the bits keep them out of checked float arithmetic.
    compiler = find_compiler(None)
    plain, _ = build_shared_object(
        "#include <math.h>\nint f(double x) { return isfinite(x) + isinf(x) + isnan(x); }\n",
        tmp_path / "plain", compiler)
    if not LIBC_CLASSIFIERS.search(plain.read_bytes()):
        pytest.skip("this compiler expands isfinite, isinf and isnan inline under the kernel flags")
    kernel = render("for i in range(n):\n    t = a[i] - 228.0\n"
                    "    b[i] = t ** 2 / 50.0 + math.exp(a[i]) + math.isnan(a[i]) + math.isinf(t)\n",
                    {"n": Scalar.PY_INT},
                    {"a": ArrayInfo(Scalar.PY_FLOAT, 1, False), "b": ArrayInfo(Scalar.PY_FLOAT, 1, True)},
                    functions=("math.exp", "math.isnan", "math.isinf"))
    assert "mg_pow_f64" in kernel.source and "mg_exp" in kernel.source
    path, _ = build_shared_object(kernel.source, tmp_path / "kernel", compiler)
    assert LIBC_CLASSIFIERS.search(path.read_bytes()) is None


def test_second_process_compiles_nothing(tmp_path):
    script = tmp_path / "work.py"
    script.write_text(textwrap.dedent("""
        a = [float(i) for i in range(100)]
        for i in range(100):
            a[i] = a[i] * a[i]
        print(sum(a))
    """))
    cache = tmp_path / "cache"
    env = {"MEGAGUARDS_CACHE_DIR": str(cache)}
    first = run_megaguards("run", "--report-json", tmp_path / "1.json", script, env=env)
    objects = {p: p.stat().st_mtime_ns for p in cache.rglob("*.so")}
    second = run_megaguards("run", "--report-json", tmp_path / "2.json", script, env=env)
    assert first.stdout == second.stdout == "328350.0\n"
    assert objects and {p: p.stat().st_mtime_ns for p in cache.rglob("*.so")} == objects
    for name in ("1.json", "2.json"):
        assert json.loads((tmp_path / name).read_text())["loops"][0]["compiled_runs"] == 1
    assert config.current().cache_dir != cache  # the test used its own cache
