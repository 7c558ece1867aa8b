# expect: compiled
"""and/or as values and as conditions; conditional expressions."""


def pick(a, b, out):
    for i in range(len(a)):  # mg: compiled
        out[i] = a[i] or b[i]
        out[len(a) + i] = a[i] and b[i]
        out[2 * len(a) + i] = (a[i] and b[i]) or -1
        out[3 * len(a) + i] = a[i] if a[i] > b[i] else b[i] if b[i] > 0 else 0


a = [0, 1, 2, 0, -3, 5]
b = [7, 0, 3, 0, 4, -2]
out = [99] * (4 * len(a))
pick(a, b, out)
print(repr(out))


def fpick(x, y):
    r = [0.0] * len(x)
    for i in range(len(x)):  # mg: compiled
        r[i] = (x[i] or y[i]) + (x[i] and y[i]) * 2.0 + (1.0 if x[i] < y[i] else -1.0)
    return r


print(repr(fpick([0.0, 1.5, -0.0, 2.0, float("nan")], [3.0, 0.0, -2.0, 0.0, 1.0])))

n = 0
flags = [True, False, False, True, True]
for i in range(len(flags)):  # mg: compiled
    if flags[i] and i > 1 or not flags[i] and i == 1:
        n += 10
    elif flags[i] or i > 3:
        n += 1
    v = (i > 2) and flags[i]
    n += v
print(repr(n), repr(v))
