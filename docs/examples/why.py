"""Four loops for `megaguards explain`: one compiles in parallel, one compiles but stays
sequential, two run in CPython (the troubleshooting page walks through the output)."""


def scale(xs, factor, out):
    for i in range(len(xs)):        # compiles, parallel: iterations are independent
        out[i] = xs[i] * factor


def prefix_sums(xs, out):
    total = 0.0
    for i in range(len(xs)):        # compiles, sequential: 'total' carries from one iteration to the next
        total += xs[i]
        out[i] = total


def noisy(xs):
    for i in range(len(xs)):        # CPython: print() has side effects
        if xs[i] < 0:
            print("negative at", i)


def unstable(n):
    odd = False
    for i in range(n):              # CPython: 'odd' is a bool, then an int
        odd = odd + i % 2
    return odd


xs = [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0] * 15_000
out = [0.0] * len(xs)
scale(xs, 2.0, out)
prefix_sums(xs, out)
noisy(xs[:3])
print(out[-1], unstable(10))
