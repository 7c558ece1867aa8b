"""Dense matrix multiply of nested lists: c = a * b with the textbook triple loop and a
running dot product per element."""
from common import Timer, arguments, fsum_nested, generator, report

SIZES = {"small": {"n": 96}, "medium": {"n": 256}, "large": {"n": 1024}}


def multiply(a, b, c, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += a[i][k] * b[k][j]
            c[i][j] = total


def main():
    size, parameters = arguments(SIZES, __doc__)
    n = parameters["n"]
    random = generator("mm")
    a = [[random.random() - 0.5 for _ in range(n)] for _ in range(n)]
    b = [[random.random() - 0.5 for _ in range(n)] for _ in range(n)]
    c = [[0.0] * n for _ in range(n)]
    timer = Timer()
    timer.start()
    multiply(a, b, c, n)
    timer.stop()
    report(fsum_nested(c), timer)


if __name__ == "__main__":
    main()
