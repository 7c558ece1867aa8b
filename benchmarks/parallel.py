"""Parallel CPU benchmark: megaguards on all cores vs its own sequential mode vs
numba.njit(parallel=True) + prange, same kernels, NumPy inputs, one process.

    python benchmarks/parallel.py [--quick] [--out benchmarks/results/parallel.md]

Each row: best of N timed calls after a warm-up call (compilation excluded for every
system). Results are checked equal across systems (the float sum reassociates in
both parallel systems: compared with a relative tolerance)."""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "programs"))
sys.path.insert(0, str(HERE / "peers"))

import megaguards  # noqa: E402
from megaguards import config  # noqa: E402

import parallel_kernels as kernels  # noqa: E402


def best_of(function, make_arguments, repeats: int) -> tuple[float, object]:
    arguments = make_arguments()
    result = function(*arguments)  # warm-up: compiles
    times = []
    for _ in range(repeats):
        arguments = make_arguments()
        started = time.perf_counter()
        result = function(*arguments)
        times.append(time.perf_counter() - started)
    return min(times), (result, arguments)


def cases(quick: bool):
    rng = numpy.random.default_rng(7)
    n = 256 if quick else 1024
    A, B = rng.random((n, n)), rng.random((n, n))
    m = 512 if quick else 4096
    grid = rng.random((m, m))
    w = 256 if quick else 2048
    size = 10**6 if quick else 10**8
    vector = rng.random(size)
    return [
        ("mm n=%d" % n, "matmul", lambda: (A, B, numpy.zeros((n, n)), n), lambda r: r[1][2]),
        ("stencil %dx%d, 10 steps" % (m, m), "stencil", lambda: (grid.copy(), grid.copy(), m, 5),
         lambda r: r[1][0]),
        ("mandelbrot %dx%d, 200 iterations" % (w, w), "mandelbrot",
         lambda: (numpy.zeros((w, w), dtype=numpy.int64), w, w, 200), lambda r: r[1][0]),
        ("float sum of %.0e elements" % size, "total", lambda: (vector,), lambda r: numpy.float64(r[0])),
    ]


def jitted(name: str, device: str):
    config.configure(device=device)
    return megaguards.jit(getattr(kernels, name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "results" / "parallel.md"))
    options = parser.parse_args()
    have_numba = importlib.util.find_spec("numba") is not None
    numba_kernels = importlib.import_module("numba_kernels") if have_numba else None
    rows = []
    for title, name, make, value in cases(options.quick):
        seq_time, seq_result = best_of(jitted(name, "seq"), make, options.repeats)
        cpu_function = jitted(name, "cpu")
        cpu_time, cpu_result = best_of(cpu_function, make, options.repeats)
        report = [l for l in megaguards.report()["loops"] if l["function"] == name][-1]
        assert report["compiled_runs"] > 0, report
        same = numpy.allclose(value(seq_result), value(cpu_result), rtol=1e-9, atol=0)
        exact = numpy.array_equal(value(seq_result), value(cpu_result))
        if have_numba:
            numba_time, numba_result = best_of(getattr(numba_kernels, name), make, options.repeats)
            same = same and numpy.allclose(value(seq_result), value(numba_result), rtol=1e-9, atol=0)
            numba_text = f"{numba_time * 1e3:.2f} ms"
            versus = f"{numba_time / cpu_time:.2f}x"
        else:
            numba_text, versus = "not installed", "-"
        rows.append((title, f"{seq_time * 1e3:.2f} ms", f"{cpu_time * 1e3:.2f} ms",
                     f"{seq_time / cpu_time:.1f}x", numba_text, versus,
                     f"{report['backend']}/{report['parallel_depth']}",
                     "exact" if exact else ("close" if same else "DIFFERENT")))
    header = ("kernel", "megaguards seq", "megaguards cpu", "cpu vs seq (>= 10x)", "numba parallel",
              "cpu vs numba (>= 0.8x)", "backend/depth", "results")
    lines = [f"# Parallel CPU benchmark ({'quick' if options.quick else 'full'})", "",
             f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"threads: {os.environ.get('MEGAGUARDS_THREADS', 'all')}", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(options.out).parent.mkdir(parents=True, exist_ok=True)
    Path(options.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
