"""Mandelbrot set on NumPy arrays: the grid's coordinates come from ``numpy.linspace`` and
the escape counts go into an integer array, filled by plain loops."""
import numpy

from common import Timer, arguments, report, run

SIZES = {"small": {"width": 160, "height": 120, "iterations": 100},
         "medium": {"width": 640, "height": 480, "iterations": 200},
         "large": {"width": 4096, "height": 4096, "iterations": 500}}


def escape_counts(counts, real, imaginary, iterations):
    height, width = counts.shape
    for y in range(height):
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


def make_input(parameters):
    width, height = parameters["width"], parameters["height"]
    real = numpy.linspace(-2.0, 1.0, width, endpoint=False)
    imaginary = numpy.linspace(-1.5, 1.5, height, endpoint=False)
    return {"real": real, "imaginary": imaginary, "width": width, "height": height,
            "iterations": parameters["iterations"]}


def work(parameters):
    """Escape iterations at most: every point of the grid up to the iteration limit."""
    return parameters["width"] * parameters["height"] * parameters["iterations"]


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    counts = numpy.zeros((inputs["height"], inputs["width"]), dtype=numpy.int64)
    timer = Timer()
    timer.start()
    escape_counts(counts, inputs["real"], inputs["imaginary"], inputs["iterations"])
    timer.stop()
    report(int(counts.sum()), timer)


if __name__ == "__main__":
    run(main)
