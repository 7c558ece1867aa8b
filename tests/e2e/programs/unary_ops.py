# expect: compiled
"""Unary -, +, ~, not on ints, floats and bools."""


def unary(ints, floats, bools, out_i, out_f, out_b):
    for i in range(len(ints)):  # mg: compiled
        out_i[4 * i] = -ints[i]
        out_i[4 * i + 1] = +ints[i]
        out_i[4 * i + 2] = ~ints[i]
        out_i[4 * i + 3] = -(~-ints[i])
        out_f[3 * i] = -floats[i]
        out_f[3 * i + 1] = +floats[i]
        out_f[3 * i + 2] = -(-floats[i] * 2.0)
        out_b[2 * i] = not ints[i]
        out_b[2 * i + 1] = not floats[i]
    for i in range(len(bools)):  # mg: compiled
        out_i[4 * len(ints) + 3 * i] = -bools[i]
        out_i[4 * len(ints) + 3 * i + 1] = ~bools[i]
        out_i[4 * len(ints) + 3 * i + 2] = +bools[i]
        out_b[2 * len(ints) + i] = not bools[i]


ints = [0, 1, -1, 7, -123, 2 ** 40]
floats = [0.0, -0.0, 1.5, -2.25, 1e300, float("nan")]
bools = [True, False, True]
out_i = [0] * (4 * len(ints) + 3 * len(bools))
out_f = [0.0] * (3 * len(floats))
out_b = [False] * (2 * len(ints) + len(bools))
unary(ints, floats, bools, out_i, out_f, out_b)
print(repr(out_i))
print(repr(out_f))
print(repr(out_b))
