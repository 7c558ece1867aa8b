"""Hand-written CUDA peer of benchmarks/suite/mandelbrot.py: one thread per point of the
grid, 32 x 8 blocks, the escape loop per thread; integer counts, identical to CPython's."""
import numpy

import _peer

SOURCE = r"""
#define X_MIN (-2.0)
#define X_MAX 1.0
#define Y_MIN (-1.5)
#define Y_MAX 1.5

extern "C" __global__ void escape_counts(long long *counts, int width, int height, int iterations) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    double ci = Y_MIN + (Y_MAX - Y_MIN) * y / height;
    double cr = X_MIN + (X_MAX - X_MIN) * x / width;
    double zr = 0.0;
    double zi = 0.0;
    int count = 0;
    while (count < iterations && zr * zr + zi * zi <= 4.0) {
        double new_zr = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = new_zr;
        count++;
    }
    counts[y * width + x] = count;
}
"""
BLOCK = (32, 8)


def compute(inputs):
    import cupy

    width, height, iterations = inputs["width"], inputs["height"], inputs["iterations"]
    counts = cupy.empty((height, width), dtype=numpy.int64)
    grid = (_peer.blocks(width, BLOCK[0]), _peer.blocks(height, BLOCK[1]))
    _peer.kernel(SOURCE, "escape_counts")(
        grid, BLOCK, (counts, numpy.int32(width), numpy.int32(height), numpy.int32(iterations)))
    return counts.get()


def checksum(program, counts):
    return program.checksum(counts.tolist())


if __name__ == "__main__":
    _peer.run("mandelbrot", compute, checksum)
