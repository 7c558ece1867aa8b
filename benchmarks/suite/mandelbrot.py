"""Mandelbrot set: the escape count of every point of a grid over the complex plane,
nested lists of ints."""
from common import Timer, arguments, report, run

SIZES = {"small": {"width": 160, "height": 120, "iterations": 100},
         "medium": {"width": 640, "height": 480, "iterations": 200},
         "large": {"width": 4096, "height": 4096, "iterations": 500}}

X_MIN, X_MAX = -2.0, 1.0
Y_MIN, Y_MAX = -1.5, 1.5


def escape_counts(counts, width, height, iterations):
    for y in range(height):
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
            counts[y][x] = count


def make_input(parameters):
    return {"width": parameters["width"], "height": parameters["height"],
            "iterations": parameters["iterations"]}


def work(parameters):
    """Escape iterations at most: every point of the grid up to the iteration limit."""
    return parameters["width"] * parameters["height"] * parameters["iterations"]


def checksum(counts):
    return sum(sum(row) for row in counts)


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    width, height, iterations = inputs["width"], inputs["height"], inputs["iterations"]
    counts = [[0] * width for _ in range(height)]
    timer = Timer()
    timer.start()
    escape_counts(counts, width, height, iterations)
    timer.stop()
    report(checksum(counts), timer)


if __name__ == "__main__":
    run(main)
