"""saxpy, y = a * x + y, on NumPy float64 arrays.

Usage: python saxpy.py N [REPEATS]

Two float64 arrays of N elements (fixed data: x[i] = (i % 1000) * 0.001,
y[i] = 1.0 - (i % 777) * 0.002); ``saxpy`` is called REPEATS times (default 1),
each time on a fresh copy of y, and the program prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               fastest single call of saxpy (the kernel region)
    first=<seconds>              the first call of saxpy in this process
"""
import sys
import time

import numpy


def saxpy(a, x, y, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10**7
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    index = numpy.arange(n)
    x = (index % 1000) * 0.001
    initial = 1.0 - (index % 777) * 0.002
    times = []
    for _ in range(repeats):
        y = initial.copy()
        started = time.perf_counter()
        saxpy(2.5, x, y, n)
        times.append(time.perf_counter() - started)
    weights = 1.0 + (index % 13)
    checksum = float(numpy.dot(y, weights))  # numpy.dot's own summation order: same under every interpreter
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
