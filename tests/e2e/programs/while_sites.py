# expect: compiled
"""while loops as sites of their own: a sieve's ``while`` around its crossing-out loop, a
counting ``while``, a time loop with a float clock, ``break`` and ``while ... else``, a
``while`` at module level, and a failure part-way (CPython's partial state)."""


def sieve(limit):
    flags = [True] * (limit + 1)
    flags[0] = flags[1] = False
    p = 2
    while p * p <= limit:  # mg: compiled
        if flags[p]:
            for multiple in range(p * p, limit + 1, p):
                flags[multiple] = False
        p += 1
    return flags, p


def counted(a):
    i = 0
    total = 0.0
    while i < len(a):  # mg: compiled
        total += a[i] * 0.5
        i += 2
    return total, i


def heat(u, steps):
    t = 0.0
    dt = 0.125
    n = len(u)
    while t < steps * dt:  # mg: compiled
        for k in range(1, n - 1):
            u[k] = u[k] + 0.25 * (u[k - 1] - 2.0 * u[k] + u[k + 1])
        t += dt
    return t


def first_square_above(values, bound):
    k = 0
    found = -1
    while k < len(values):  # mg: compiled
        for j in range(3):
            if values[k] * values[k] > bound + j:
                found = k
                break
        if found >= 0:
            break
        k += 1
    else:
        found = -2
    return found, k


def divides(a, b):
    i = 0
    while i < len(a):  # mg: fallback
        for j in range(2):
            a[i] = a[i] + 100 // b[i]   # b[3] == 0: ZeroDivisionError part-way, a[0..2] changed
        i += 1
    return a


flags, p = sieve(200)
print(sum(flags), p, [k for k in range(60) if flags[k]])
print(counted([1.5, 2.0, 3.25, 4.0, 5.5, 6.0, 7.75]))
u = [0.0] * 10 + [1.0] + [0.0] * 10
print(heat(u, 6), [round(x, 6) for x in u])
print(first_square_above([1, 2, 3, 4, 5], 10), first_square_above([1, 2], 100))
n = 0
acc = 0
while n < 1000:  # mg: compiled
    for q in range(n % 7):
        acc += q * n
    n += 1
print(n, acc)
a = [1, 2, 3, 4, 5]
try:
    divides(a, [1, 2, 3, 0, 5])
except ZeroDivisionError as error:
    print("ZeroDivisionError", error, a)
