"""Rodinia lud (the unblocked base version): LU decomposition of a dense, diagonally
dominant matrix in place, Doolittle order without pivoting: row i of U, then column i of
L, each entry a dot product of what is already decomposed."""
from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 64}, "medium": {"n": 256}, "large": {"n": 2048}}

# The dot products below are float reductions that megaguards may reassociate in its
# default (non-strict) mode; the factors then differ from CPython's in the last bits.
TOLERANCE = 1e-9


def decompose(a, n):
    for i in range(n):
        for j in range(i, n):
            total = a[i][j]
            for k in range(i):
                total -= a[i][k] * a[k][j]
            a[i][j] = total
        for j in range(i + 1, n):
            total = a[j][i]
            for k in range(i):
                total -= a[j][k] * a[k][i]
            a[j][i] = total / a[i][i]


def make_input(parameters):
    n = parameters["n"]
    random = generator("lud")
    a = [[random.random() for _ in range(n)] for _ in range(n)]
    for i in range(n):
        a[i][i] += n  # diagonally dominant: stable without pivoting
    return {"a": a, "n": n}


def work(parameters):
    """Multiply-adds of the dot products: about n^3 / 3."""
    return parameters["n"] ** 3 / 3.0


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    a = inputs["a"]
    timer = Timer()
    timer.start()
    decompose(a, inputs["n"])
    timer.stop()
    report(fsum_nested(a), timer)


if __name__ == "__main__":
    run(main)
