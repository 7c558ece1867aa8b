"""Hand-written CUDA peer of benchmarks/suite/mm.py: c = a * b with the classic tiled
shared-memory kernel (16 x 16 tiles of a and b staged in shared memory).

Each thread still adds its products in increasing k, as the Python loop does, so with no
FMA contraction the result is bit-identical to CPython's."""
import numpy

import _peer

SOURCE = r"""
#define TILE 16

extern "C" __global__ void multiply(const double *a, const double *b, double *c, int n) {
    __shared__ double tile_a[TILE][TILE];
    __shared__ double tile_b[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    double total = 0.0;
    for (int base = 0; base < n; base += TILE) {
        int k_a = base + threadIdx.x;
        int k_b = base + threadIdx.y;
        tile_a[threadIdx.y][threadIdx.x] = (row < n && k_a < n) ? a[row * n + k_a] : 0.0;
        tile_b[threadIdx.y][threadIdx.x] = (k_b < n && col < n) ? b[k_b * n + col] : 0.0;
        __syncthreads();
        int width = min(TILE, n - base);
        for (int k = 0; k < width; k++) {
            total += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[row * n + col] = total;
    }
}
"""
TILE = 16


def multiply(a, b):
    """c = a * b for square float64 NumPy matrices, on the GPU (copies in and out)."""
    import cupy

    n = a.shape[0]
    device_a, device_b = cupy.asarray(a), cupy.asarray(b)
    device_c = cupy.empty((n, n), dtype=numpy.float64)
    tiles = _peer.blocks(n, TILE)
    _peer.kernel(SOURCE, "multiply")((tiles, tiles), (TILE, TILE),
                                     (device_a, device_b, device_c, numpy.int32(n)))
    return device_c.get()


def compute(inputs):
    return multiply(inputs["a"], inputs["b"])


def checksum(program, c):
    return _peer.fsum_nested(c.tolist())


if __name__ == "__main__":
    _peer.run("mm", compute, checksum)
