"""numba peer of benchmarks/suite/mm_numpy.py: the same triple loop as the program, the rows
of c under prange; each dot product runs in k order, as in the program."""
import numba
import numpy

import _peer


@_peer.kernel
def multiply(a, b, c, n):
    for i in numba.prange(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += a[i, k] * b[k, j]
            c[i, j] = total


def compute(inputs):
    n = inputs["n"]
    c = numpy.zeros((n, n))
    multiply(inputs["a"], inputs["b"], c, n)
    return c.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("mm_numpy", compute, checksum)
