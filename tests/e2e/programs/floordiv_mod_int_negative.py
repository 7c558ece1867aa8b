# expect: compiled
"""Python's floor division and modulo round toward negative infinity."""


def divmods(n, q, r):
    for a in range(-n, n + 1):  # mg: compiled
        for b in range(-4, 5):
            if b == 0:
                continue
            q[(a + n) * 9 + b + 4] = a // b
            r[(a + n) * 9 + b + 4] = a % b


n = 9
q = [0] * ((2 * n + 1) * 9)
r = [0] * ((2 * n + 1) * 9)
divmods(n, q, r)
print(repr(q))
print(repr(r))
ok = True
for a in range(-n, n + 1):  # mg: compiled
    for b in range(1, 5):
        if (a // b) * b + a % b != a:
            ok = False
        if (a // -b) * -b + a % -b != a:
            ok = False
print(repr(ok))


def check(x):
    total = 0
    for i in range(1, 30):  # mg: compiled
        total += (x - i) // 7 - (i - x) % 6 + (-i) // 3 + (-i) % 4
    return total


print(repr(check(10)), repr(check(-10)), repr(check(0)))
