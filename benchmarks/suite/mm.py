"""Dense matrix multiply of nested lists: c = a * b with the textbook triple loop and a
running dot product per element."""
from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 96}, "medium": {"n": 256}, "large": {"n": 1024}}


def multiply(a, b, c, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += a[i][k] * b[k][j]
            c[i][j] = total


def make_input(parameters):
    n = parameters["n"]
    random = generator("mm")
    a = [[random.random() - 0.5 for _ in range(n)] for _ in range(n)]
    b = [[random.random() - 0.5 for _ in range(n)] for _ in range(n)]
    return {"a": a, "b": b, "n": n}


def work(parameters):
    """Multiply-adds: n^3."""
    return parameters["n"] ** 3


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    n = inputs["n"]
    c = [[0.0] * n for _ in range(n)]
    timer = Timer()
    timer.start()
    multiply(inputs["a"], inputs["b"], c, n)
    timer.stop()
    report(fsum_nested(c), timer)


if __name__ == "__main__":
    run(main)
