"""Dense matrix multiply on NumPy arrays, written with the textbook triple loop over
``a[i, k] * b[k, j]`` (as a scientist ports loop code to arrays) rather than ``a @ b``."""
import numpy

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 64}, "medium": {"n": 256}, "large": {"n": 1024}}


def multiply(a, b, c, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += a[i, k] * b[k, j]
            c[i, j] = total


def make_input(parameters):
    n = parameters["n"]
    random = generator("mm_numpy")
    a = numpy.array([[random.random() - 0.5 for _ in range(n)] for _ in range(n)])
    b = numpy.array([[random.random() - 0.5 for _ in range(n)] for _ in range(n)])
    return {"a": a, "b": b, "n": n}


def work(parameters):
    """Multiply-adds: n^3."""
    return parameters["n"] ** 3


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    n = inputs["n"]
    c = numpy.zeros((n, n))
    timer = Timer()
    timer.start()
    multiply(inputs["a"], inputs["b"], c, n)
    timer.stop()
    report(fsum_nested(c.tolist()), timer)


if __name__ == "__main__":
    run(main)
