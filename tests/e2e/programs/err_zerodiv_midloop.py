# expect: fallback
"""ZeroDivisionError part-way through: partial state and the message."""


def divide(a, b, out):
    for i in range(len(a)):  # mg: fallback
        out[i] = a[i] // b[i]


out = [0] * 5
try:
    divide([10, 20, 30, 40, 50], [3, -4, 0, 2, 1], out)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
print(repr(out))


def fdivide(a, b, out):
    for i in range(len(a)):  # mg: fallback
        out[i] = a[i] / b[i] + out[i]


fout = [1.0] * 4
try:
    fdivide([1.0, 2.0, 3.0, 4.0], [4.0, -0.5, 0.0, 1.0], fout)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
print(repr(fout))

mods = [0.0] * 4
try:
    for i in range(4):  # mg: fallback
        mods[i] = 7.5 % (2 - i)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error, repr(i))
print(repr(mods))

ints = [0] * 4
try:
    for i in range(4):  # mg: fallback
        ints[i] = (i + 1) % (3 - i) + i // (2 - i) + int(i / (2 - i))
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error, repr(i))
print(repr(ints))
