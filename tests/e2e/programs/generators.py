# expect: compiled
"""Generators: loops that yield fall back; loops inside generator functions compile."""


def gen_squares(n):
    for i in range(n):  # mg: fallback
        yield i * i


def chunk_sums(a, size):
    for start in range(0, len(a), size):  # mg: fallback
        s = 0
        for i in range(start, min(start + size, len(a))):  # mg: compiled
            s += a[i]
        yield s


def prepared(n):
    buf = [0.0] * n
    for i in range(n):  # mg: compiled
        buf[i] = (i * 0.5) ** 2
    yield from buf


print(list(gen_squares(6)))
print(list(chunk_sums([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3)))
print(list(prepared(5)))
total = 0
for v in gen_squares(4):
    total += v
print(repr(total))
g = sum(x for x in gen_squares(5))
print(repr(g))
