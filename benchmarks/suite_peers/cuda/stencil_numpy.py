"""Hand-written CUDA peer of benchmarks/suite/stencil_numpy.py: a thread per interior
point (32 x 8 blocks), the sweep loop on the host launching twice per sweep between two
device buffers that start as copies of the grid (so both hold its fixed boundary).
The same sum order as the Python expression: bit-identical."""
import numpy

import _peer

SOURCE = r"""
extern "C" __global__ void sweep(const double *source, double *target, int n) {
    int j = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    int i = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n - 1 || j >= n - 1) {
        return;
    }
    target[i * n + j] = 0.25 * (source[(i - 1) * n + j] + source[(i + 1) * n + j]
                                + source[i * n + j - 1] + source[i * n + j + 1]);
}
"""
BLOCK = (32, 8)


def compute(inputs):
    import cupy

    n = inputs["n"]
    grid = cupy.asarray(inputs["grid"])
    other = grid.copy()
    sweep = _peer.kernel(SOURCE, "sweep")
    blocks = (_peer.blocks(n - 2, BLOCK[0]), _peer.blocks(n - 2, BLOCK[1]))
    for _ in range(inputs["sweeps"]):
        sweep(blocks, BLOCK, (grid, other, numpy.int32(n)))
        sweep(blocks, BLOCK, (other, grid, numpy.int32(n)))
    return grid.get()


def checksum(program, grid):
    return _peer.fsum_nested(grid.tolist())


if __name__ == "__main__":
    _peer.run("stencil_numpy", compute, checksum)
