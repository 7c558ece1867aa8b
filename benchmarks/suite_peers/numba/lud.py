"""numba peer of benchmarks/suite/lud.py: Doolittle LU in place on a 2-D array.  For each
i, the entries of row i of U and then those of column i of L are independent of one
another (each reads only what earlier i decomposed), so each of the two j loops runs under
prange; every dot product keeps its k order, so the factors are CPython's bit for bit."""
import numba

import _peer


@_peer.kernel
def decompose_row_and_column(a, i, n):
    for j in numba.prange(i, n):
        total = a[i, j]
        for k in range(i):
            total -= a[i, k] * a[k, j]
        a[i, j] = total
    for j in numba.prange(i + 1, n):
        total = a[j, i]
        for k in range(i):
            total -= a[j, k] * a[k, i]
        a[j, i] = total / a[i, i]


def compute(inputs):
    a, n = inputs["a"], inputs["n"]
    for i in range(n):
        decompose_row_and_column(a, i, n)
    return a.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("lud", compute, checksum)
