# expect: compiled
"""int ** int, float ** float, pow(), including negative bases."""


def int_powers(out):
    k = 0
    for b in range(-4, 5):  # mg: compiled
        for e in range(0, 8):
            out[k] = b ** e
            k += 1


def float_powers(bases, exps, out):
    k = 0
    for i in range(len(bases)):  # mg: compiled
        for j in range(len(exps)):
            out[k] = bases[i] ** exps[j]
            k += 1


out = [0] * 72
int_powers(out)
print(repr(out))
bases = [2.0, 0.5, 1.5, 10.0, 1.0, 3.25]
exps = [0.0, 1.0, 2.0, 0.5, -1.0, -2.5, 3.0, 1e-3]
fout = [0.0] * (len(bases) * len(exps))
float_powers(bases, exps, fout)
print(repr(fout))

neg = [0.0] * 8
for i in range(8):  # mg: compiled
    neg[i] = (-2.0) ** (i - 3) + pow(-1.5, i) + pow(i, 2) * 1.0
print(repr(neg))
s = 0
for i in range(1, 20):  # mg: compiled
    s += pow(i, 3) - 2 ** (i % 10)
print(repr(s))
