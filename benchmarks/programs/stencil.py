"""2-D 5-point Jacobi stencil with a time loop, on NumPy float64 arrays.

Usage: python stencil.py N STEPS [REPEATS]

An N x N grid (fixed interior data from an LCG, fixed boundary); each time step
reads A and writes the interior of B (``jacobi_step``), then the two arrays swap
roles.  The time loop is plain Python around the step function, as a scientist
would write it.  ``jacobi`` (STEPS steps) is called REPEATS times (default 1),
each time from the same initial grid, and the program prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               fastest single call of jacobi (the kernel region)
    first=<seconds>              the first call of jacobi in this process
"""
import sys
import time

import numpy


def make(n, seed):
    state = seed
    grid = numpy.zeros((n, n))
    values = []
    for _ in range(n * n):
        state = (state * 1103515245 + 12345) % 2147483648
        values.append(state / 2147483648.0)
    grid[:, :] = numpy.array(values).reshape(n, n)
    return grid


def jacobi_step(A, B, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i, j] = 0.2 * (A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])


def jacobi(A, B, n, steps):
    for step in range(steps):
        jacobi_step(A, B, n)
        A, B = B, A
    return A


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    initial = make(n, 7)
    times = []
    for _ in range(repeats):
        A, B = initial.copy(), initial.copy()
        started = time.perf_counter()
        result = jacobi(A, B, n, steps)
        times.append(time.perf_counter() - started)
    checksum = 0.0
    for i in range(n):
        for j in range(n):
            checksum += float(result[i, j]) * (i + 1) / (j + 1)
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
