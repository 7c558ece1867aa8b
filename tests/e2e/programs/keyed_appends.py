# expect: compiled
"""Values grouped by key inside compiled loops: k-means' assignment step (each point, the
very row object, joins its nearest centre's list in a dict keyed 0 .. k-1), a bucket sort's
scatter (floats into a list of buckets by int(x * n)), and a histogram of ints and floats
kept in their classes, negative keys wrapping as CPython's do."""


def assign(data, centres):
    clusters = {}
    for c in range(len(centres)):
        clusters[c] = []
    for point in data:  # mg: compiled
        best, best_distance = -1, float("inf")
        for c in range(len(centres)):
            distance = 0.0
            for d in range(len(point)):
                distance += (point[d] - centres[c][d]) ** 2
            if distance < best_distance:
                best, best_distance = c, distance
        clusters[best].append(point)
    return clusters


def bucket_sort(values):
    n = len(values)
    buckets = [[] for _ in range(n)]
    for i in range(n):  # mg: compiled
        buckets[int(values[i] * n)].append(values[i])
    result = []
    for bucket in buckets:
        result.extend(sorted(bucket))
    return result


def histogram(values, bins):
    counts = [[] for _ in range(bins)]
    for i in range(len(values)):  # mg: compiled
        counts[values[i] % bins].append(values[i] if i % 3 else values[i] / 4)
        counts[-1].extend([i, 0.5])
    return counts


data = [[(i * 37 % 101) / 10.0, (i * 53 % 97) / 10.0] for i in range(300)]
clusters = assign(data, [[1.0, 1.0], [5.0, 5.0], [8.0, 2.0]])
print({c: len(points) for c, points in clusters.items()}, clusters[0][:2])
print(all(any(p is q for q in data) for points in clusters.values() for p in points))
print(bucket_sort([((i * 7919) % 1000) / 1000.0 for i in range(200)])[:12])
print(histogram([(i * 31) % 17 for i in range(60)], 5))
