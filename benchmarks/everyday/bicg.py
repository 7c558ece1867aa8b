"""The two products of a BiCG step, s = A^T r and q = A p, in one pass over the rows
of an N x M list of lists (the shape of PolyBench's bicg).

    python bicg.py [N] [M]      (default 2000 x 2000)

Entries are small multiples of 1/8 and 1/4, so every sum is exact in any order.
"""
import sys


def bicg(A, r, p, n, m):
    s = [0.0] * m
    q = [0.0] * n
    for i in range(n):
        for j in range(m):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]
    return s, q


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else n
    A = [[((i * 11 + j * 7) % 13) / 8.0 for j in range(m)] for i in range(n)]
    r = [(i % 5) / 4.0 for i in range(n)]
    p = [(j % 6) / 4.0 for j in range(m)]
    s, q = bicg(A, r, p, n, m)
    checksum = 0.0
    for j in range(m):
        checksum += s[j] * ((j % 3) + 1)
    for i in range(n):
        checksum += q[i] * ((i % 5) + 1)
    print("checksum=%r" % checksum)


main()
