# expect: compiled
"""Nested functions reading closure variables (and writing through nonlocal)."""


def make_scaler(factor, offset):
    table = [0.0] * 8

    def apply(xs):
        out = [0.0] * len(xs)
        for i in range(len(xs)):  # mg: compiled
            out[i] = xs[i] * factor + offset + table[i % 8]
        return out

    def fill():
        for i in range(8):  # mg: compiled
            table[i] = i * factor
    return apply, fill


apply, fill = make_scaler(2.5, -1.0)
print(repr(apply([1.0, 2.0, 3.0])))
fill()
print(repr(apply([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])))


def counter(n):
    total = 0

    def run():
        nonlocal total
        for i in range(n):  # mg: compiled
            total += i * n
        return total

    return run


r = counter(9)
print(repr(r()), repr(r()))


def outer(k):
    def middle():
        def inner(m):
            s = 0
            for i in range(m):  # mg: compiled
                s += i % k
            return s
        return inner(20)
    return middle()


print(repr(outer(3)), repr(outer(7)))
