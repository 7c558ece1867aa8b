# expect: compiled
"""1-D int lists: prefix sums, reversal in place, histogram."""


def prefix_sums(a):
    for i in range(1, len(a)):  # mg: compiled
        a[i] += a[i - 1]
    return a


def reverse(a):
    n = len(a)
    for i in range(n // 2):  # mg: compiled
        a[i], a[n - 1 - i] = a[n - 1 - i], a[i]


def histogram(values, bins, nbins):
    for i in range(len(values)):  # mg: compiled
        bins[values[i] % nbins] += 1


a = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]
print(repr(prefix_sums(a)))
reverse(a)
print(repr(a))
bins = [0] * 7
histogram(a, bins, 7)
print(repr(bins))
histogram([-1, -8, 13, 0, 6], bins, 7)
print(repr(bins))
