"""GPU time-step regions: the host's cost per step, planned against stepped (needs a GPU).

Usage: python benchmarks/micro/region_steps.py [N] [STEPS]      (default 100000 1000)

Three time loops over NumPy arrays of N doubles, STEPS steps each, under ``--device gpu``:
``planned`` (two stencil bands: every step's launches queued before the first), ``stepped``
(the same with a scalar the host updates each step: runtime/cuda_region.py runs the body
statement by statement) and ``reducing`` (a float sum each step, folded in order on the
host, that the next band reads).  Prints one line per loop: the best of 3 warm calls, its
time per step, and its ratio to ``planned`` measured in the same run.
"""
import sys
import time

import numpy

import megaguards
from megaguards import config


def planned(a, b, n, steps):
    for t in range(steps):
        for i in range(1, n - 1):
            b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1])
        for i in range(1, n - 1):
            a[i] = b[i]
    return t


def stepped(a, b, n, steps):
    rate = 0.25
    for t in range(steps):
        for i in range(1, n - 1):
            b[i] = 0.5 * a[i] + rate * (a[i - 1] + a[i + 1])
        for i in range(1, n - 1):
            a[i] = b[i]
        rate = rate * 0.999
    return t


def reducing(a, b, n, steps):
    for t in range(steps):
        total = 0.0
        for i in range(n):
            total += a[i] * a[i] + 1.0
        for i in range(1, n - 1):
            b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]) / total
        for i in range(1, n - 1):
            a[i] = b[i]
    return total


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    config.configure(device="gpu", compile_after=0)
    baseline = None
    for function in (planned, stepped, reducing):
        fast = megaguards.jit(function)
        fast(numpy.linspace(0.0, 1.0, n), numpy.zeros(n), n, 3)   # compiles; CUDA starts
        best = float("inf")
        for _ in range(3):
            a, b = numpy.linspace(0.0, 1.0, n), numpy.zeros(n)
            started = time.perf_counter()
            fast(a, b, n, steps)
            best = min(best, time.perf_counter() - started)
        baseline = baseline or best
        region = "one GPU region" if "GPU region" in megaguards.explain(fast) else "NOT a GPU region"
        print(f"{function.__name__:9} n={n} steps={steps}: {best * 1e3:8.1f} ms, {best / steps * 1e6:7.1f} us a step, "
              f"{best / baseline:5.2f}x planned's time ({region})")


if __name__ == "__main__":
    main()
