# expect: compiled
"""range() with one, two and three arguments, negative and large steps."""


def collect(start, stop, step, out):
    k = 0
    for i in range(start, stop, step):  # mg: compiled
        out[k] = i
        k += 1
    return k


cases = [(0, 10, 1), (0, 10, 3), (10, 0, -1), (10, 0, -3), (-5, 5, 2), (5, -5, -2),
         (0, 0, 1), (3, 3, -1), (0, 10, -1), (10, 0, 1), (-10, -1, 4), (7, -8, -5),
         (0, 10, 100), (0, -10, -100), (-3, 4, 7)]
for start, stop, step in cases:
    out = [0] * 30
    k = collect(start, stop, step, out)
    print(start, stop, step, repr(out[:k]))

s = 0
for i in range(-3, 4):  # mg: compiled
    s += i
n = 5
for i in range(n * 2, -n, -(n // 2)):  # mg: compiled
    s += i * 7
for i in range(n - 1, -1, -1):  # mg: compiled
    s = s * 3 + i
print(repr(s), repr(i))
t = 0
for i in range(True, 5):  # mg: compiled
    t += i
print(repr(t))
