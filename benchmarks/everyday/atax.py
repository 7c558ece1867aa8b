"""y = A^T (A x) for an M x N matrix held as a list of lists, the two inner loops
written out in the outer loop over rows (the shape of PolyBench's atax).

    python atax.py [M] [N]      (default 2000 x 2000)

Entries are small multiples of 1/8 and 1/4, so every sum is exact in any order.
"""
import sys


def atax(A, x, m, n):
    y = [0.0] * n
    for i in range(m):
        t = 0.0
        for j in range(n):
            t += A[i][j] * x[j]
        for j in range(n):
            y[j] += A[i][j] * t
    return y


def main():
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else m
    A = [[((i * 5 + j * 3) % 17) / 8.0 for j in range(n)] for i in range(m)]
    x = [(j % 9) / 4.0 for j in range(n)]
    y = atax(A, x, m, n)
    checksum = 0.0
    for j in range(n):
        checksum += y[j] * ((j % 7) + 1)
    print("checksum=%r" % checksum)


main()
