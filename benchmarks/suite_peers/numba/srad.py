"""numba peer of benchmarks/suite/srad.py: the image and the per-pixel arrays 2-D, both
stencil passes with their rows under prange.

The image statistics are two float sums: sequentially they run in the program's order
(the checksum is CPython's bit for bit); under ``--parallel`` they are prange reductions,
which add per-thread partial sums, so q0 and then the image differ from CPython's in the
last bits, within the program's TOLERANCE (1e-9, relative), which the peer shares."""
import numba
import numpy

import _peer

program = _peer.suite_program("srad")
LAMBDA = program.LAMBDA
TOLERANCE = program.TOLERANCE


@_peer.kernel
def statistics(image, rows, cols):
    total = 0.0
    total_squares = 0.0
    for i in numba.prange(rows):
        for j in range(cols):
            value = image[i, j]
            total += value
            total_squares += value * value
    mean = total / (rows * cols)
    variance = total_squares / (rows * cols) - mean * mean
    return variance / (mean * mean)


@_peer.kernel
def coefficients(image, north, south, west, east, c, dn, ds, dw, de, rows, cols, q0sqr):
    for i in numba.prange(rows):
        for j in range(cols):
            jc = image[i, j]
            dn[i, j] = image[north[i], j] - jc
            ds[i, j] = image[south[i], j] - jc
            dw[i, j] = image[i, west[j]] - jc
            de[i, j] = image[i, east[j]] - jc
            g2 = (dn[i, j] ** 2 + ds[i, j] ** 2 + dw[i, j] ** 2 + de[i, j] ** 2) / (jc * jc)
            laplacian = (dn[i, j] + ds[i, j] + dw[i, j] + de[i, j]) / jc
            numerator = 0.5 * g2 - (1.0 / 16.0) * laplacian * laplacian
            denominator = 1.0 + 0.25 * laplacian
            qsqr = numerator / (denominator * denominator)
            denominator = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr))
            coefficient = 1.0 / (1.0 + denominator)
            if coefficient < 0.0:
                coefficient = 0.0
            elif coefficient > 1.0:
                coefficient = 1.0
            c[i, j] = coefficient


@_peer.kernel
def update(image, south, east, c, dn, ds, dw, de, rows, cols):
    for i in numba.prange(rows):
        for j in range(cols):
            cn = c[i, j]
            cs = c[south[i], j]
            cw = c[i, j]
            ce = c[i, east[j]]
            divergence = cn * dn[i, j] + cs * ds[i, j] + cw * dw[i, j] + ce * de[i, j]
            image[i, j] = image[i, j] + 0.25 * LAMBDA * divergence


def compute(inputs):
    image, rows, cols = inputs["image"], inputs["rows"], inputs["cols"]
    north = numpy.maximum(numpy.arange(rows) - 1, 0)
    south = numpy.minimum(numpy.arange(rows) + 1, rows - 1)
    west = numpy.maximum(numpy.arange(cols) - 1, 0)
    east = numpy.minimum(numpy.arange(cols) + 1, cols - 1)
    c, dn, ds, dw, de = (numpy.zeros((rows, cols)) for _ in range(5))
    for iteration in range(inputs["iterations"]):
        q0sqr = statistics(image, rows, cols)
        coefficients(image, north, south, west, east, c, dn, ds, dw, de, rows, cols, q0sqr)
        update(image, south, east, c, dn, ds, dw, de, rows, cols)
    return image.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("srad", compute, checksum)
