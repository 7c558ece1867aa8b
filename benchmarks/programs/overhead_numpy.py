"""Per-entry cost of a tiny loop whose array live-ins are NumPy arrays.

Usage: python overhead_numpy.py CALLS ITERATIONS [BATCHES] [WRITE]

Like overhead.py, with two NumPy float64 arrays of 8 elements instead of a list:
``tiny`` runs a loop of ITERATIONS (1 to 8) iterations reading both arrays and
accumulating into a scalar; with WRITE=1, ``tiny_write`` also stores into a third
NumPy array (so each entry pays megaguards' copy + commit of the written array).
Called CALLS times per batch, BATCHES times (default 5); the driver is a ``while``
loop so that it is not a loop site itself.  Prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               per call, fastest batch (warm)
    first=<seconds>              per call, first batch (includes any compile)
"""
import sys
import time

import numpy


def tiny(xs, ys, scale, n):
    total = 0.0
    for i in range(n):
        total += xs[i] * ys[i] * scale
    return total


def tiny_write(xs, ys, out, scale, n):
    total = 0.0
    for i in range(n):
        out[i] = xs[i] * ys[i] * scale
        total += out[i]
    return total


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    batches = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    write = len(sys.argv) > 4 and sys.argv[4] == "1"
    xs = numpy.array([0.5, 1.25, -2.0, 3.0, 0.75, -1.5, 2.25, 4.0])
    ys = numpy.array([1.5, -0.25, 2.0, 0.125, -3.0, 0.5, 1.75, -1.0])
    out = numpy.zeros(8)
    if not 1 <= n <= len(xs):
        raise SystemExit(f"ITERATIONS must be between 1 and {len(xs)}")
    checksum = 0.0
    times = []
    for _ in range(batches):
        count = 0
        started = time.perf_counter()
        if write:
            while count < calls:
                checksum += float(tiny_write(xs, ys, out, 1.5, n))
                count += 1
        else:
            while count < calls:
                checksum += float(tiny(xs, ys, 1.5, n))
                count += 1
        times.append((time.perf_counter() - started) / calls)
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
