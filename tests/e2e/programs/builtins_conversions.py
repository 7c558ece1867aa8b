# expect: compiled
"""int(), float(), bool(), round(), pow() inside compiled loops."""


def convert(xs, ints, floats, flags):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        ints[3 * i] = int(x)
        ints[3 * i + 1] = round(x)
        ints[3 * i + 2] = int(x * 10.0) + round(x * 2.0)
        floats[2 * i] = float(ints[3 * i]) + float(True)
        floats[2 * i + 1] = pow(x, 2.0) + float(i)
        flags[2 * i] = bool(x)
        flags[2 * i + 1] = bool(int(x))


xs = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.675, 3.7, -3.7, 0.0, -0.0, 1e15 + 0.5, 123456.499999]
ints = [0] * (3 * len(xs))
floats = [0.0] * (2 * len(xs))
flags = [False] * (2 * len(xs))
convert(xs, ints, floats, flags)
print(repr(ints))
print(repr(floats))
print(repr(flags))

acc = 0
for i in range(-6, 7):  # mg: compiled
    acc += int(i / 4) + round(i) + int(True) + pow(i, 2) + bool(i) + int(-i // 3)
print(repr(acc))
