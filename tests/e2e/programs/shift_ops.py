# expect: compiled
"""<< and >> with negative left operands and large shift counts."""


def shifts(xs, out):
    k = 0
    for i in range(len(xs)):  # mg: compiled
        for s in range(0, 70, 7):
            out[k] = xs[i] >> s
            out[k + 1] = (xs[i] << (s % 20)) >> 3
            k += 2


xs = [1, -1, 255, -256, 123456789, -987654321, 0, 2 ** 40 + 3]
out = [0] * (len(xs) * 20)
shifts(xs, out)
print(repr(out))
try:
    r = 0
    for i in range(3):  # mg: fallback
        r += 5 >> (1 - i)
except ValueError as error:
    print("ValueError:", error, repr(r))
big = 0
for i in range(60, 66):  # mg: fallback
    big += 1 << i
print(repr(big))
