"""Hand-written CUDA peer of benchmarks/suite/pathfinder.py: the wall on the device once,
one launch per row (a thread per column takes the three-way minimum of the previous
row's costs), the two cost rows swapped on the host between launches.  Integer costs
(int64, as the NumPy conversion gives): identical to CPython's."""
import numpy

import _peer

SOURCE = r"""
extern "C" __global__ void advance(const long long *previous, long long *current,
                                   const long long *wall_row, int cols) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= cols) {
        return;
    }
    long long best = previous[n];
    if (n > 0 && previous[n - 1] < best) {
        best = previous[n - 1];
    }
    if (n < cols - 1 && previous[n + 1] < best) {
        best = previous[n + 1];
    }
    current[n] = wall_row[n] + best;
}
"""
THREADS = 256


def compute(inputs):
    import cupy

    rows, cols = inputs["rows"], inputs["cols"]
    wall = cupy.asarray(inputs["wall"])
    previous = wall[0].copy()
    current = cupy.empty_like(previous)
    advance = _peer.kernel(SOURCE, "advance")
    for t in range(1, rows):
        advance((_peer.blocks(cols, THREADS),), (THREADS,), (previous, current, wall[t], numpy.int32(cols)))
        previous, current = current, previous
    return previous.get()


def checksum(program, result):
    return program.checksum(result.tolist())


if __name__ == "__main__":
    _peer.run("pathfinder", compute, checksum)
