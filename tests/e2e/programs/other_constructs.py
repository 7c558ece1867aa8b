# expect: fallback
"""Constructs that keep a loop in CPython: comprehensions, dicts, f-strings, lambdas, with.  (A
str whose characters are compared with one-character constants compiles: text_arrays.py.)"""
import contextlib


def words(n):
    parts = ""
    for i in range(n):  # mg: fallback
        parts += f"{i}:{i * i};"
    return parts


def dicts(n):
    d = {}
    for i in range(n):  # mg: fallback
        d[i % 3] = d.get(i % 3, 0) + i
    return d


def comps(n):
    total = 0
    for i in range(n):  # mg: fallback
        total += sum([j for j in range(i)])
        total += (lambda v: v * 2)(i)
    return total


def withs(n):
    acc = []
    for i in range(n):  # mg: fallback
        with contextlib.suppress(ZeroDivisionError):
            acc.append(10 // (i - 2))
    return acc


def tuples(n):
    pairs = [(0, 0)] * n
    for i in range(n):  # mg: fallback
        pairs[i] = (i, -i)
    return pairs


def strings(s):
    count = 0
    for i in range(len(s)):  # mg: compiled
        if s[i] == "a":
            count += 1
    return count


def walrus(xs):
    best = 0
    for i in range(len(xs)):  # mg: fallback
        if (v := xs[i] * 2) > best:
            best = v
    return best


print(repr(words(5)))
print(repr(dicts(10)))
print(repr(comps(6)))
print(repr(withs(5)))
print(repr(tuples(3)))
print(repr(strings("banana bandana")))
print(repr(walrus([3, 9, 2, 7])))
s = 0
for i in range(4):  # mg: fallback
    s += len(str(i))
    assert s > 0
else:
    s += 100
print(repr(s))
