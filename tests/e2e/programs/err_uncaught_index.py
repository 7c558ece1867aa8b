# expect: fallback
"""An uncaught IndexError from inside a loop: same return code and exception line."""


def walk(a, n):
    s = 0
    for i in range(n):
        s += a[i] * 2
        a[i] = s
    return s


data = [1, 2, 3, 4]
print(repr(walk(data, 4)))
print(repr(data))
print(repr(walk(data, 9)))
print("not reached")
