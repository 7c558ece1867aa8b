"""numba peer of benchmarks/suite/mandelbrot.py: the escape counts into a 2-D int64
array, the rows under prange; each point's coordinates computed as the program does."""
import numba
import numpy

import _peer

program = _peer.suite_program("mandelbrot")
X_MIN, X_MAX = program.X_MIN, program.X_MAX
Y_MIN, Y_MAX = program.Y_MIN, program.Y_MAX


@_peer.kernel
def escape_counts(counts, width, height, iterations):
    for y in numba.prange(height):
        ci = Y_MIN + (Y_MAX - Y_MIN) * y / height
        for x in range(width):
            cr = X_MIN + (X_MAX - X_MIN) * x / width
            zr = 0.0
            zi = 0.0
            count = 0
            while count < iterations and zr * zr + zi * zi <= 4.0:
                new_zr = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = new_zr
                count += 1
            counts[y, x] = count


def compute(inputs):
    width, height = inputs["width"], inputs["height"]
    counts = numpy.zeros((height, width), dtype=numpy.int64)
    escape_counts(counts, width, height, inputs["iterations"])
    return counts


def checksum(counts):
    """The sum of the counts: the program's checksum of its nested lists."""
    return int(counts.sum())


if __name__ == "__main__":
    _peer.run("mandelbrot", compute, checksum)
