# expect: compiled
"""The same loop called with int lists, float lists, then a mixed list."""


def total(a):
    s = 0
    for i in range(len(a)):  # mg: compiled
        s += a[i]
    return s


def double(a):
    for i in range(len(a)):  # mg: compiled
        a[i] = a[i] * 2
    return a


for data in ([1, 2, 3], [1.0, 2.0], [1, 2.5], [True, False, True], [3, 4, 5], [0.5], [2.5, 1]):
    print(repr(total(data)), type(total(data)).__name__)
    print(repr(double(list(data))))

scale = 3
vals = [1, 2]
for rnd in range(3):
    out = [0] * 2 if rnd != 1 else [0.0] * 2
    for i in range(2):
        out[i] = vals[i] * scale
    print(repr(out))
    scale = 1.5 if rnd == 0 else 7
