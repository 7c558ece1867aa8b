# expect: fallback
"""IndexError in the middle of a loop: the partial writes must be CPython's."""


def fill(a, n):
    for i in range(n):  # mg: compiled
        a[i] = i * i + a[i - 1]


a = [1] * 6
try:
    fill(a, 10)
except IndexError as error:
    print("IndexError:", error)
print(repr(a))


def copy2(src, dst, n):
    for i in range(n):  # mg: fallback
        dst[i] = src[i] * 2.5


src = [1.0, 2.0, 3.0]
dst = [0.0] * 8
try:
    copy2(src, dst, 6)
except IndexError as error:
    print("IndexError:", error)
print(repr(dst))

b = [0] * 5
try:
    for i in range(0, 20, 2):  # mg: fallback
        b[i // 2] += i
        b[i] -= 1
except IndexError as error:
    print("IndexError:", error, repr(i))
print(repr(b))
ok = [0] * 5
fill(ok, 5)
print(repr(ok))
