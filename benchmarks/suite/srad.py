"""Rodinia srad (speckle-reducing anisotropic diffusion, srad_v1/v2 CPU style): each
iteration takes the image's mean and variance (the speckle scale q0), then two stencil
passes over nested lists: directional derivatives and the diffusion coefficient per pixel,
then the divergence that updates the image.  Edges are clamped through Rodinia's
neighbour index lists (north / south / west / east)."""
import math

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"rows": 64, "cols": 64, "iterations": 4},
         "medium": {"rows": 512, "cols": 512, "iterations": 5},
         "large": {"rows": 2048, "cols": 2048, "iterations": 10}}

LAMBDA = 0.5

# The image statistics are float sums that megaguards may reassociate in its default
# (non-strict) mode: q0 then differs in the last bits and so does the diffused image.
TOLERANCE = 1e-9


def statistics(image, rows, cols):
    total = 0.0
    total_squares = 0.0
    for i in range(rows):
        for j in range(cols):
            value = image[i][j]
            total += value
            total_squares += value * value
    mean = total / (rows * cols)
    variance = total_squares / (rows * cols) - mean * mean
    return variance / (mean * mean)


def coefficients(image, north, south, west, east, c, dn, ds, dw, de, rows, cols, q0sqr):
    for i in range(rows):
        for j in range(cols):
            jc = image[i][j]
            dn[i][j] = image[north[i]][j] - jc
            ds[i][j] = image[south[i]][j] - jc
            dw[i][j] = image[i][west[j]] - jc
            de[i][j] = image[i][east[j]] - jc
            g2 = (dn[i][j] ** 2 + ds[i][j] ** 2 + dw[i][j] ** 2 + de[i][j] ** 2) / (jc * jc)
            laplacian = (dn[i][j] + ds[i][j] + dw[i][j] + de[i][j]) / jc
            numerator = 0.5 * g2 - (1.0 / 16.0) * laplacian * laplacian
            denominator = 1.0 + 0.25 * laplacian
            qsqr = numerator / (denominator * denominator)
            denominator = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr))
            coefficient = 1.0 / (1.0 + denominator)
            if coefficient < 0.0:
                coefficient = 0.0
            elif coefficient > 1.0:
                coefficient = 1.0
            c[i][j] = coefficient


def update(image, south, east, c, dn, ds, dw, de, rows, cols):
    for i in range(rows):
        for j in range(cols):
            cn = c[i][j]
            cs = c[south[i]][j]
            cw = c[i][j]
            ce = c[i][east[j]]
            divergence = cn * dn[i][j] + cs * ds[i][j] + cw * dw[i][j] + ce * de[i][j]
            image[i][j] = image[i][j] + 0.25 * LAMBDA * divergence


def srad(image, rows, cols, iterations):
    north = [max(i - 1, 0) for i in range(rows)]
    south = [min(i + 1, rows - 1) for i in range(rows)]
    west = [max(j - 1, 0) for j in range(cols)]
    east = [min(j + 1, cols - 1) for j in range(cols)]
    c, dn, ds, dw, de = ([[0.0] * cols for _ in range(rows)] for _ in range(5))
    for iteration in range(iterations):
        q0sqr = statistics(image, rows, cols)
        coefficients(image, north, south, west, east, c, dn, ds, dw, de, rows, cols, q0sqr)
        update(image, south, east, c, dn, ds, dw, de, rows, cols)
    return image


def make_input(parameters):
    rows, cols = parameters["rows"], parameters["cols"]
    random = generator("srad")
    image = [[math.exp(random.random()) for _ in range(cols)] for _ in range(rows)]
    return {"image": image, "rows": rows, "cols": cols, "iterations": parameters["iterations"]}


def work(parameters):
    """Pixel updates: every pixel by three passes per iteration."""
    return 3 * parameters["rows"] * parameters["cols"] * parameters["iterations"]


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    image = inputs["image"]
    timer = Timer()
    timer.start()
    srad(image, inputs["rows"], inputs["cols"], inputs["iterations"])
    timer.stop()
    report(fsum_nested(image), timer)


if __name__ == "__main__":
    run(main)
