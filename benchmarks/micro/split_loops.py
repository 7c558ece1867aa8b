"""Loops split in parts and nests exchanged (analysis/distribution.py), beside CPython.

Usage: megaguards run [--device cpu] benchmarks/micro/split_loops.py [N] [CALLS]
       python benchmarks/micro/split_loops.py ...                  (CPython, for the ratio)
       (default 2000 3)

PolyBench's atax (A^T A x: a row's dot product, then that row's share of every output) and
bicg (A p and A^T r in one pass) on an N x N table of lists, and the column means of the
same table read row by row.  Each outer loop carries a dependence through one part of its
body: megaguards runs the parts as loops of their own and the column loops outside, in
parallel.  Prints, per call, the seconds of each and a checksum (the same under megaguards
and under CPython, every digit); the last call is the warm one.
"""
import sys
import time


def atax(A, x, y, tmp):
    n, m = len(A), len(A[0])
    for j in range(m):
        y[j] = 0.0
    for i in range(n):
        tmp[i] = 0.0
        for j in range(m):
            tmp[i] = tmp[i] + A[i][j] * x[j]
        for j in range(m):
            y[j] = y[j] + A[i][j] * tmp[i]


def bicg(A, s, q, p, r):
    n, m = len(A), len(A[0])
    for j in range(m):
        s[j] = 0.0
    for i in range(n):
        q[i] = 0.0
        for j in range(m):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]


def column_means(A, means):
    for c in range(len(means)):
        means[c] = 0.0
    for r in range(len(A)):
        for c in range(len(means)):
            means[c] += A[r][c]
    for c in range(len(means)):
        means[c] /= len(A)


def main() -> None:
    n, calls = (int(a) for a in (sys.argv[1:] + ["2000", "3"][len(sys.argv) - 1:]))
    A = [[((i * 31 + j * 17) % 101) / 101.0 - 0.5 for j in range(n)] for i in range(n)]
    x = [1.0 + k / n for k in range(n)]
    y, tmp, s, q, means = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    for _ in range(calls):
        times = []
        for run in (lambda: atax(A, x, y, tmp), lambda: bicg(A, s, q, x, x), lambda: column_means(A, means)):
            began = time.perf_counter()
            run()
            times.append(time.perf_counter() - began)
        print(f"atax {times[0]:.4f} s  bicg {times[1]:.4f} s  column means {times[2]:.4f} s  checksum "
              f"{sum(y)!r} {sum(s)!r} {sum(q)!r} {sum(means)!r}", flush=True)


if __name__ == "__main__":
    main()
