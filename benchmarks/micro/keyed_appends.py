"""Values grouped by key (``groups[k].append(v)``, frontend/appends.py): one core against all
cores, beside CPython.

Usage: megaguards run --device seq|cpu benchmarks/micro/keyed_appends.py [POINTS] [K] [CALLS]
       python benchmarks/micro/keyed_appends.py ...                  (CPython, for the ratio)
       (default 200000 8 3)

k-means' assignment step as tutorials write it (each of POINTS 2-D points, a list, joins the
list of its nearest of K centres in a dict keyed 0 .. K-1) and a histogram of the same
points' x into 64 bins of a list of lists.  Under megaguards each loop compiles whole; the
points themselves join the clusters (their identity kept).  Prints, per call, the seconds
of each and a checksum (the same under every device and under CPython); the last call is
the warm one.
"""
import random
import sys
import time


def assign(data, centres):
    clusters = {}
    for c in range(len(centres)):
        clusters[c] = []
    for point in data:
        best, best_distance = -1, float("inf")
        for c in range(len(centres)):
            distance = (point[0] - centres[c][0]) ** 2 + (point[1] - centres[c][1]) ** 2
            if distance < best_distance:
                best, best_distance = c, distance
        clusters[best].append(point)
    return clusters


def histogram(data, bins):
    counts = [[] for _ in range(bins)]
    for i in range(len(data)):
        counts[int(data[i][0] * bins) % bins].append(data[i][1])
    return counts


def main() -> None:
    points, k, calls = (int(a) for a in (sys.argv[1:] + ["200000", "8", "3"][len(sys.argv) - 1:]))
    generator = random.Random(2)
    data = [[generator.random(), generator.random()] for _ in range(points)]
    centres = [[generator.random(), generator.random()] for _ in range(k)]
    for _ in range(calls):
        began = time.perf_counter()
        clusters = assign(data, centres)
        grouped = time.perf_counter() - began
        began = time.perf_counter()
        counts = histogram(data, 64)
        binned = time.perf_counter() - began
        sizes = [len(clusters[c]) for c in clusters]
        print(f"assign {grouped:.4f} s  histogram {binned:.4f} s  checksum {sizes} "
              f"{sum(len(row) * (r + 1) for r, row in enumerate(counts))} {sum(map(sum, counts))!r}", flush=True)


if __name__ == "__main__":
    main()
