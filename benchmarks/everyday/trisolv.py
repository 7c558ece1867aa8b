"""Forward substitution L x = b for a lower-triangular N x N list of lists, for
several right-hand sides in turn (the shape of PolyBench's trisolv).

    python trisolv.py [N] [RHS]      (default 2000, 5 right-hand sides)
"""
import sys


def trisolv(L, b, n):
    x = [0.0] * n
    for i in range(n):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i][j] * x[j]
        x[i] = x[i] / L[i][i]
    return x


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rhs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    L = [[(((i + 2 * j) % 7) - 3) / (8.0 * n) if j < i else (2.0 if j == i else 0.0) for j in range(n)]
         for i in range(n)]
    checksum = 0.0
    for k in range(rhs):
        b = [((i * (k + 3)) % 11) / 4.0 for i in range(n)]
        x = trisolv(L, b, n)
        for i in range(n):
            checksum += x[i] * ((i + k) % 5 + 1)
    print("checksum=%r" % checksum)


main()
