# expect: compiled
"""Loops that return from their function, and a site's own ``for ... else``: the loop stops
where CPython's would, the function returns the same value (None for a bare ``return``),
and the variables a ``finally`` block or a later read sees are CPython's."""


def find(a, x):
    for i in range(len(a)):  # mg: compiled
        if a[i] == x:
            return i
    return -1


def is_prime(n):
    for d in range(2, n):  # mg: compiled
        if d * d > n:
            return True
        if n % d == 0:
            return False
    return n >= 2


def first_pair(table, target):
    for i in range(len(table)):  # mg: compiled
        for j in range(len(table[i])):
            if table[i][j] == target:
                return i * 100 + j
    return None


def scaled_until_negative(a):
    total = 0.0
    for x in a:  # mg: compiled
        if x < 0:
            return total
        total += x * 0.5
    return -total


def bare(a, out):
    for i in range(len(a)):  # mg: compiled
        if a[i] == 0:
            return
        out[i] = 10 // a[i]
    out[0] = -1


def with_else(a):
    found = -1
    for i in range(len(a)):  # mg: compiled
        if a[i] > 3:
            found = i
            break
    else:
        found = -2
    return found, i


def in_try(a):
    k = -1
    try:
        for k in range(len(a)):  # mg: compiled
            if a[k] > 2.5:
                return k * 2
    finally:
        print("finally sees k =", k)
    return None


print(find([3, 1, 4, 1, 5, 9, 2, 6], 5), find([3, 1], 7))
print([n for n in range(40) if is_prime(n)])
print(first_pair([[1, 2, 3], [4, 5, 6]], 5), first_pair([[1]], 9))
print(scaled_until_negative([1.0, 2.5, -1.0, 4.0]), scaled_until_negative([2.0, 2.0]))
out = [0] * 5
print(bare([5, 2, 0, 1, 1], out), out)
out = [0] * 3
print(bare([1, 2, 3], out), out)
print(with_else([1, 2, 5, 7]), with_else([1, 2]))
print(in_try([1.0, 2.0, 3.0]), in_try([1.0]))
