"""Exact parallel float reductions: the ordered fold (the default) against reassociated
partial sums (MEGAGUARDS_REASSOCIATE=1) and one core, same kernels, NumPy inputs, one
process.

    python benchmarks/reductions.py [--quick] [--force] [--out benchmarks/results/reductions.md]

Each row: best of N timed calls after a warm-up call (compilation excluded). ``exact /
reassociated`` is the throughput of the ordered fold over the reassociating sum (the
target: at least 0.7 on 16 cores); ``exact / seq`` its gain over one core.  The exact
results must equal CPython's (checked on the first 10^5 elements, where CPython's run is
short) and one core's (the whole input).  ``--force`` folds in parallel even the steps
the analysis keeps sequential (parallel.FOLD_MIN_WEIGHT = 0): how that threshold was
chosen."""
from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent


def total(a, b):
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s


def dot(a, b):
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


def polynomial(a, b):
    s = 0.0
    for i in range(len(a)):
        s += ((a[i] * 0.5 + 1.0) * a[i] - 2.0) * a[i] + b[i] * 3.0 - (b[i] - 0.25) * a[i]
    return s


def norms(a, b):
    s = 0.0
    for i in range(len(a)):
        s += math.sqrt(a[i] * a[i] + b[i] * b[i])
    return s


def transcendental(a, b):
    s = 0.0
    for i in range(len(a)):
        s += math.exp(-a[i]) * math.sin(b[i])
    return s


def rows(matrix, x):
    s = 0.0
    for i in range(len(matrix)):
        t = 0.0
        for j in range(len(x)):
            t += matrix[i][j] * x[j]
        s += t * t
    return s


KERNELS = (total, dot, polynomial, norms, transcendental, rows)


def best_of(function, arguments, repeats: int) -> tuple[float, object]:
    result = function(*arguments)  # warm-up: compiles
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = function(*arguments)
        times.append(time.perf_counter() - started)
    return min(times), result


def gpu_times(megaguards, config, kernel, arguments, repeats: int, expected) -> tuple:
    """((text, seconds) exact, (text, seconds) reassociated, exact equal to one core's) on
    the GPU; text "-" and None seconds where there is no GPU or the loop did not run there."""
    from megaguards.runtime import cuda

    if cuda.cupy_module() is None:
        return ("-", None), ("-", None), True
    config.configure(device="gpu")
    results, equal = [], True
    for jitted in (megaguards.jit(kernel), megaguards.jit(reassociate=True)(kernel)):
        seconds, result = best_of(jitted, arguments, repeats)
        loop = [entry for entry in megaguards.report()["loops"] if entry["function"] == kernel.__name__][-1]
        on_gpu = loop["backend"] == "cuda"
        results.append((f"{1e3 * seconds:.2f} ms" if on_gpu else f"CPU ({1e3 * seconds:.2f} ms)",
                        seconds if on_gpu else None))
        equal = equal and (result == expected or len(results) == 2)
    return results[0], results[1], equal


def inputs(kernel, size: int):
    rng = numpy.random.default_rng(11)
    if kernel is rows:   # lists: Python floats (a NumPy row sum would make 's' change type)
        width = 256
        return rng.random((size // width, width)).tolist(), rng.random(width).tolist()
    return rng.random(size), rng.random(size)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--force", action="store_true", help="fold every float sum in parallel (no weight threshold)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "results" / "reductions.md"))
    options = parser.parse_args()
    os.environ.setdefault("MEGAGUARDS_CACHE_DIR", tempfile.mkdtemp(prefix="mg-reductions-"))
    import megaguards
    from megaguards import config
    from megaguards.analysis import parallel

    if options.force:
        parallel.FOLD_MIN_WEIGHT = 0
    size = 10**6 if options.quick else 10**7
    rows_out = []
    for kernel in KERNELS:
        arguments = inputs(kernel, size)
        # CPython's run on a part: 10^5 elements (400 rows of the matrix).
        first, second = arguments
        sample = (first[:400], second) if kernel is rows else (first[:100_000], second[:100_000])
        config.configure(device="seq", parallel_work=20000)
        seq_time, seq_result = best_of(megaguards.jit(kernel), arguments, options.repeats)
        config.configure(device="cpu")
        exact = megaguards.jit(kernel)
        exact_time, exact_result = best_of(exact, arguments, options.repeats)
        loop = [entry for entry in megaguards.report()["loops"] if entry["function"] == kernel.__name__][-1]
        cpython_equal = exact(*sample) == kernel(*sample)
        loose_time, loose_result = best_of(megaguards.jit(reassociate=True)(kernel), arguments, options.repeats)
        folded = any("folded in iteration order" in reason for reason in loop["reasons"])
        gpu = gpu_times(megaguards, config, kernel, arguments, options.repeats, seq_result)
        rows_out.append((kernel.__name__, seq_time, exact_time, loose_time, folded, loop["parallel_depth"],
                         exact_result == seq_result and cpython_equal and gpu[2],
                         abs(loose_result - seq_result) / abs(seq_result), gpu))
    lines = [f"# Exact parallel float reductions{' (forced: no weight threshold)' if options.force else ''}", "",
             f"machine: {platform.node() or 'unknown'}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"{size:.0e} elements, best of {options.repeats}; command: python benchmarks/reductions.py"
             + (" --quick" if options.quick else "") + (" --force" if options.force else ""), "",
             "| kernel | seq | cpu exact | cpu reassociated | exact / reassociated (>= 0.7) | exact / seq | "
             "exact ran | gpu exact | gpu reassociated | gpu exact / reassociated (>= 0.5) | "
             "exact = seq = CPython | reassociated's relative error |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, seq_time, exact_time, loose_time, folded, depth, equal, error, gpu in rows_out:
        ran = "folded in parallel" if folded and depth else "one core (kept sequential)"
        gpu_exact, gpu_loose = gpu[0], gpu[1]
        gpu_cells = (f"{gpu_exact[0]} | {gpu_loose[0]} | " + (f"{gpu_loose[1] / gpu_exact[1]:.2f}x"
                     if gpu_exact[1] and gpu_loose[1] else "-"))
        lines.append(f"| {name} | {1e3 * seq_time:.2f} ms | {1e3 * exact_time:.2f} ms | {1e3 * loose_time:.2f} ms | "
                     f"{loose_time / exact_time:.2f}x | {seq_time / exact_time:.2f}x | {ran} | {gpu_cells} | "
                     f"{'yes' if equal else 'NO'} | {error:.1e} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if options.out:
        Path(options.out).write_text(text)
    return 0 if all(row[6] for row in rows_out) else 1


if __name__ == "__main__":
    sys.exit(main())
