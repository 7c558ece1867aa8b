"""The IR's reference interpreter (ir/interp.py), and the differential tier that runs
CPython, the interpreter and the compiled kernel on the same entries of each loop site
(tests/reference_tier.py): on hand-picked loops and on generated programs."""
from __future__ import annotations

import math

import numpy
import pytest

import test_parallel as corpus
import test_swaps as swaps
from megaguards import config
from megaguards.diagnostics.report import loop_record
from reference_tier import DECLINED, check, entries, run_cpython, run_interpreter


def control(a, out):
    found = -1
    for i in range(len(a)):
        if a[i] < 0:
            continue
        j = 0
        while True:
            j += 1
            if j * j > a[i]:
                break
        out[i] = j
        if a[i] > 90:
            found = i
            break
    return found, i


def arithmetic(a, b, out):
    for i in range(len(a)):
        x, y = a[i], b[i]
        out[i] = x // y + x % y - (x ** 2 if x < 9 else -x) + (x << 2) - (~y & 7) + abs(x - y) + max(x, y)


def float_math(a, out):
    for i in range(len(a)):
        out[i] = math.sqrt(abs(a[i])) + math.floor(a[i] / 3.0) + a[i] % 2.5 - math.exp(-a[i] * a[i])


def failing(a, d, out):
    for i in range(len(a)):
        out[i] = a[i] // d[i]


def numpy_rows(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] * 2 + j


CASES = [
    (corpus.stencil, (corpus.grid(6), corpus.grid(6), 6)),
    (corpus.int_sum_and_max, ([3, -1, 7, 7, 2],)),
    (corpus.mandelbrot, ([[0] * 5 for _ in range(4)], 4, 5)),
    (control, ([5, -3, 16, 99, 4], [0] * 5)),
    (arithmetic, ([7, -7, 13, 0, 5], [3, 3, -4, 5, -2], [0] * 5)),
    (float_math, ([1.5, -2.25, 0.0, 7.0], [0.0] * 4)),
    (failing, ([5, 6, 7], [1, 0, 3], [0, 0, 0])),
    (numpy_rows, (numpy.arange(12, dtype=numpy.int64).reshape(3, 4), numpy.zeros((3, 4), dtype=numpy.int64))),
    (swaps.pathfinder, (swaps.wall_of(5, 9), swaps.wall_of(1, 9, seed=3)[0], [0] * 9, 5, 9)),
    (swaps.rotate, (numpy.arange(4.0), numpy.ones(4), numpy.zeros(4), 5, 4)),
]


@pytest.mark.parametrize("function, arguments", CASES, ids=[function.__name__ for function, _ in CASES])
def test_cpython_interpreter_and_kernel_agree(function, arguments):
    seen = entries(function, *arguments)
    assert seen, "no loop site was entered"
    interpreted = compiled = 0
    for entry in seen:
        ran_interpreter, ran_compiled = check(entry)
        interpreted += ran_interpreter
        compiled += ran_compiled
    assert interpreted, "the interpreter never ran to the end"
    if function is not failing:
        assert compiled, "no compiled run was compared"


# float_math stays off the GPU by default (CUDA's exp is not glibc's).
GPU_CASES = [CASES[0], CASES[1], CASES[2], CASES[4], CASES[7]]


@pytest.mark.parametrize("device", ["seq", "cpu"])
@pytest.mark.parametrize("function, arguments", CASES, ids=[function.__name__ for function, _ in CASES])
def test_each_cpu_kernel_agrees_with_cpython_and_the_interpreter(function, arguments, device):
    """The same tier on one core and on all cores (OpenMP, four threads), each forced."""
    saved = config.current()
    config.configure(device=device, threads=1 if device == "seq" else 4)
    try:
        seen = entries(function, *arguments)
        results = [check(entry) for entry in seen]
        backends = {record["backend"] for entry in seen for record in [loop_record(entry.site)]}
    finally:
        config.configure(device=saved.device, threads=saved.threads)
    assert any(interpreted for interpreted, _ in results)
    if function is not failing:
        assert any(compiled for _, compiled in results)
        assert backends <= {"c-seq", None} if device == "seq" else "c-omp" in backends or function is control


@pytest.mark.parametrize("function, arguments", GPU_CASES, ids=[function.__name__ for function, _ in GPU_CASES])
def test_the_cuda_kernel_agrees_with_cpython_and_the_interpreter(function, arguments, cuda_device):
    """The same tier with the GPU's kernels: on the GPU where there is one, else emulated
    on the CPU (tests/cuda_emulator.py)."""
    seen = entries(function, *arguments)
    results = [check(entry) for entry in seen]
    assert any(interpreted for interpreted, _ in results) and any(compiled for _, compiled in results)
    assert any(loop_record(entry.site)["backend"] == "cuda" for entry in seen), "no kernel ran on the GPU"


def test_the_interpreter_raises_python_s_exception_where_the_kernel_declines():
    (entry, *_) = entries(failing, [5, 6, 7], [1, 0, 3], [0, 0, 0])
    assert run_cpython(entry)[:2] == ("raised", "ZeroDivisionError")
    assert run_interpreter(entry) == run_cpython(entry)


def test_the_interpreter_declines_a_reduction_over_nothing():
    def row_maxima(a, out, m):
        for i in range(len(a)):
            out[i] = max(a[i][j] for j in range(m))
    seen = entries(row_maxima, [[4, 9], [2, 1]], [0, 0], 0)
    declined = [entry for entry in seen if run_interpreter(entry) == DECLINED]
    assert declined and all(run_cpython(entry)[0] == "raised" for entry in declined)


def compare_generated(seed: int) -> tuple[int, int]:
    """Every entry of every call of the generated program of ``seed``, compared: how many
    ran the interpreter to the end, and how many a compiled kernel."""
    from fuzz import generator, harness

    program = generator.generate(seed)
    module, _ = harness.load_kernel(program.source, f"interpreted_{seed}")
    interpreted = compiled = 0
    for arguments in program.make_calls():
        for entry in entries(module.kernel, *arguments):
            ran_interpreter, ran_compiled = check(entry)
            interpreted += ran_interpreter
            compiled += ran_compiled
    return interpreted, compiled


@pytest.mark.parametrize("seed", range(10, 50))
def test_generated_programs(seed):
    compare_generated(seed)


def test_generated_programs_are_really_compared():
    """The tier is not vacuous: generated programs' entries reach the interpreter and kernels."""
    interpreted, compiled = map(sum, zip(*map(compare_generated, range(10))))
    assert interpreted >= 20 and compiled >= 10, (interpreted, compiled)
