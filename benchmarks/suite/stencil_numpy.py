"""A 2-D 5-point Jacobi stencil on NumPy arrays: every interior point becomes the mean of
its four neighbours, the boundary stays fixed, two arrays swapped each sweep."""
import numpy

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 128, "sweeps": 10}, "medium": {"n": 512, "sweeps": 40},
         "large": {"n": 2048, "sweeps": 100}}


def sweep(source, target, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            target[i, j] = 0.25 * (source[i - 1, j] + source[i + 1, j]
                                   + source[i, j - 1] + source[i, j + 1])


def jacobi(grid, sweeps, n):
    other = grid.copy()
    for s in range(sweeps):
        sweep(grid, other, n)
        sweep(other, grid, n)
    return grid


def make_input(parameters):
    n = parameters["n"]
    random = generator("stencil_numpy")
    grid = numpy.array([[random.random() for _ in range(n)] for _ in range(n)])
    return {"grid": grid, "sweeps": parameters["sweeps"], "n": n}


def work(parameters):
    """Point updates: the (n - 2)^2 interior twice per sweep."""
    return 2 * (parameters["n"] - 2) ** 2 * parameters["sweeps"]


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    grid = inputs["grid"]
    timer = Timer()
    timer.start()
    jacobi(grid, inputs["sweeps"], inputs["n"])
    timer.stop()
    report(fsum_nested(grid.tolist()), timer)


if __name__ == "__main__":
    run(main)
