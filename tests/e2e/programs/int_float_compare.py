# expect: compiled
"""Comparisons between ints and floats are exact in Python, even beyond 2**53."""


def compare(ints, floats, out):
    k = 0
    for i in range(len(ints)):  # mg: fallback
        for j in range(len(floats)):
            out[k] = (ints[i] < floats[j]) * 1 + (ints[i] == floats[j]) * 2 + (ints[i] > floats[j]) * 4
            k += 1


ints = [0, 1, -1, 3, 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 62]
floats = [0.0, -0.0, 0.5, 3.0, 9007199254740992.0, 9007199254740994.0, float("inf"), float("nan"), -9007199254740992.0, 4.611686018427388e18]
out = [0] * (len(ints) * len(floats))
compare(ints, floats, out)
print(repr(out))

small = [0] * 8
for i in range(8):  # mg: compiled
    small[i] = (i < 3.5) + (i == 4.0) * 10 + (i * 0.5 >= 2) * 100
print(repr(small))
