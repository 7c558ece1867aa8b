# expect: compiled
"""Bucketing floats: int() and // to compute indices, clamping with min/max."""


def bucket(xs, lo, hi, counts):
    nb = len(counts)
    width = (hi - lo) / nb
    for i in range(len(xs)):  # mg: compiled
        k = int((xs[i] - lo) // width)
        k = max(0, min(nb - 1, k))
        counts[k] += 1
    return width


xs = [((i * 7919) % 1000) / 100.0 - 2.0 for i in range(60)]
counts = [0] * 7
print(repr(bucket(xs, -2.0, 8.0, counts)))
print(repr(counts))
counts2 = [0] * 3
print(repr(bucket(xs, 0.0, 1.0, counts2)), repr(counts2))
