# expect: compiled
"""Arithmetic and bitwise operators on bools."""


def bools(xs, ys, ints, logic):
    for i in range(len(xs)):  # mg: compiled
        a = xs[i]
        b = ys[i]
        ints[5 * i] = a + b
        ints[5 * i + 1] = a - b
        ints[5 * i + 2] = a * 3 + b
        ints[5 * i + 3] = a ** 2 + (b << 2)
        ints[5 * i + 4] = a // 1 + b % 2
        logic[3 * i] = a & b
        logic[3 * i + 1] = a | b
        logic[3 * i + 2] = a ^ b


xs = [True, True, False, False]
ys = [True, False, True, False]
ints = [0] * 20
logic = [False] * 12
bools(xs, ys, ints, logic)
print(repr(ints))
print(repr(logic))

total = 0
fl = 0.0
for i in range(10):  # mg: compiled
    t = i % 3 == 0
    total += t
    fl += t * 0.5 + (t / 2)
print(repr(total), repr(fl), repr(t))
