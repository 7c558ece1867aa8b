# expect: compiled
"""Every binary integer operator, positive and negative operands."""


def table(xs, ys, out):
    k = 0
    for i in range(len(xs)):  # mg: compiled
        for j in range(len(ys)):
            a = xs[i]
            b = ys[j]
            out[k] = a + b
            out[k + 1] = a - b
            out[k + 2] = a * b
            out[k + 3] = a // b
            out[k + 4] = a % b
            out[k + 5] = a & b
            out[k + 6] = a | b
            out[k + 7] = a ^ b
            out[k + 8] = a << (b & 7)
            out[k + 9] = a >> (b & 7)
            k += 10
    return k


xs = [17, -17, 5, -5, 0, 1, -1, 123456789, -987654321]
ys = [3, -3, 7, -7, 1, -1, 2, 10]
out = [0] * (len(xs) * len(ys) * 10)
k = table(xs, ys, out)
print(repr(k))
print(repr(out))
print(repr(sum(out)))

# The same at module level, accumulating.
acc = 0
mix = 0
for i in range(-20, 21):  # mg: compiled
    acc += i * 3 - i // 4 + i % 5
    mix = mix ^ (i * 2654435761 & 0xFFFF) | (i & 3)
print(repr(acc), repr(mix), repr(i))
