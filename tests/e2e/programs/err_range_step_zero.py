# expect: fallback
"""range() with a zero step computed at run time: ValueError, uncaught."""


def stepped(n, step):
    s = 0
    for i in range(0, n, step):
        s += i
    return s


print(repr(stepped(10, 3)))
print(repr(stepped(10, -1)))
k = 0
print(repr(stepped(10, k)))
