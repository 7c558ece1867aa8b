# expect: compiled
"""A variable that changes type inside the loop (int to float) compiles as int-or-float: its
kernel value carries its class, so each result is an int or a float as in CPython."""


def mean(a):
    s = 0
    for i in range(len(a)):
        s += a[i]
    return s / len(a), s


print(repr(mean([0.5, 1.5, 2.25])))
print(repr(mean([1, 2, 4])))


def halve(n):
    x = n
    for i in range(5):
        x = x / 2
    return x


print(repr(halve(100)), repr(halve(7.0)))


def toggles(n):
    v = 0
    for i in range(n):  # mg: compiled
        if i % 2:
            v = i * 0.5
        else:
            v = i
    return v


print(repr(toggles(4)), repr(toggles(5)))
