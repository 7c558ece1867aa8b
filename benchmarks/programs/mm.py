"""Matrix multiply on nested lists of floats (plain Python; runs as is under CPython).

Usage: python mm.py N [REPEATS]

Builds two N x N matrices of floats (a fixed LCG, so every run sees the same
data), calls ``matmul`` REPEATS times (default 1) and prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               fastest single call of matmul (the kernel region)
    first=<seconds>              the first call of matmul in this process
"""
import sys
import time


def make(n, seed):
    state = seed
    matrix = []
    for i in range(n):
        row = []
        for j in range(n):
            state = (state * 1103515245 + 12345) % 2147483648
            row.append(state / 2147483648.0)
        matrix.append(row)
    return matrix


def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    A, B = make(n, 1), make(n, 2)
    C = [[0.0] * n for _ in range(n)]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        matmul(A, B, C, n)
        times.append(time.perf_counter() - started)
    checksum = 0.0
    for i in range(n):
        for j in range(n):
            checksum += C[i][j] * (i + 1) / (j + 1)
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
