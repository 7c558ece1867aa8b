"""numba peer of benchmarks/suite/mandelbrot_numpy.py: the program's loops on its
linspace coordinates, the rows under prange."""
import numba
import numpy

import _peer


@_peer.kernel
def escape_counts(counts, real, imaginary, iterations):
    height, width = counts.shape
    for y in numba.prange(height):
        for x in range(width):
            cr = real[x]
            ci = imaginary[y]
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
    counts = numpy.zeros((inputs["height"], inputs["width"]), dtype=numpy.int64)
    escape_counts(counts, inputs["real"], inputs["imaginary"], inputs["iterations"])
    return counts


def checksum(counts):
    """The sum of the counts: the program's checksum of its nested lists."""
    return int(counts.sum())


if __name__ == "__main__":
    _peer.run("mandelbrot_numpy", compute, checksum)
