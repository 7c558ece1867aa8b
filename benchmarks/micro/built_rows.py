"""Tables built row by row (frontend/built_rows.py): one core against all cores, beside CPython.

Usage: megaguards run --device seq|cpu benchmarks/micro/built_rows.py [N] [SIDE] [STEPS] [CALLS]
       python benchmarks/micro/built_rows.py ...                  (CPython, for the ratio)
       (default 400 1000 3 3)

A matrix product of two N x N lists written with ``row = []``, ``row.append(s)`` and
``C.append(row)``, and STEPS steps of a game of life on a SIDE x SIDE grid written the same
way.  Under megaguards each outer loop compiles whole; on all cores each thread collects its
share of the rows, joined in iteration order.  Prints, per call, the seconds of each and
a checksum (the same under every device and under CPython); the last call is the warm one.
"""
import random
import sys
import time


def matmul(A, B):
    C = []
    for i in range(len(A)):
        row = []
        for j in range(len(B[0])):
            s = 0
            for k in range(len(B)):
                s += A[i][k] * B[k][j]
            row.append(s)
        C.append(row)
    return C


def life(grid):
    n, m = len(grid), len(grid[0])
    new = []
    for i in range(n):
        row = []
        for j in range(m):
            alive = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if (di or dj) and 0 <= i + di < n and 0 <= j + dj < m:
                        alive += grid[i + di][j + dj]
            row.append(1 if alive == 3 or (alive == 2 and grid[i][j]) else 0)
        new.append(row)
    return new


def main() -> None:
    n, side, steps, calls = (int(a) for a in (sys.argv[1:] + ["400", "1000", "3", "3"][len(sys.argv) - 1:]))
    generator = random.Random(1)
    A = [[generator.random() for _ in range(n)] for _ in range(n)]
    B = [[generator.random() for _ in range(n)] for _ in range(n)]
    start = [[generator.randrange(2) for _ in range(side)] for _ in range(side)]
    for _ in range(calls):
        began = time.perf_counter()
        C = matmul(A, B)
        product = time.perf_counter() - began
        grid, began = start, time.perf_counter()
        for _ in range(steps):
            grid = life(grid)
        stepped = time.perf_counter() - began
        print(f"matmul {product:.4f} s  life {stepped:.4f} s  checksum {sum(map(sum, C))!r} {sum(map(sum, grid))}",
              flush=True)


if __name__ == "__main__":
    main()
