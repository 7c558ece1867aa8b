"""Hand-written CUDA peer of benchmarks/suite/lud.py, the unblocked Doolittle order of
the Python program (not Rodinia's blocked CUDA, which sums in another order): for each i
one launch computes row i of U (a thread per column), a second one column i of L (a
thread per row), each entry's dot product in increasing k as in Python: bit-identical."""
import numpy

import _peer

SOURCE = r"""
extern "C" __global__ void upper_row(double *a, int n, int i) {
    int j = i + blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) {
        return;
    }
    double total = a[i * n + j];
    for (int k = 0; k < i; k++) {
        total -= a[i * n + k] * a[k * n + j];
    }
    a[i * n + j] = total;
}

extern "C" __global__ void lower_column(double *a, int n, int i) {
    int j = i + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) {
        return;
    }
    double total = a[j * n + i];
    for (int k = 0; k < i; k++) {
        total -= a[j * n + k] * a[k * n + i];
    }
    a[j * n + i] = total / a[i * n + i];
}
"""
THREADS = 128


def compute(inputs):
    import cupy

    n = inputs["n"]
    a = cupy.asarray(inputs["a"])
    upper_row = _peer.kernel(SOURCE, "upper_row")
    lower_column = _peer.kernel(SOURCE, "lower_column")
    for i in range(n):
        upper_row((_peer.blocks(n - i, THREADS),), (THREADS,), (a, numpy.int32(n), numpy.int32(i)))
        if i + 1 < n:
            lower_column((_peer.blocks(n - i - 1, THREADS),), (THREADS,), (a, numpy.int32(n), numpy.int32(i)))
    return a.get()


def checksum(program, a):
    return _peer.fsum_nested(a.tolist())


if __name__ == "__main__":
    _peer.run("lud", compute, checksum)
