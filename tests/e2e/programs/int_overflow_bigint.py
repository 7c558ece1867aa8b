# expect: fallback
"""Integers beyond int64 become big ints: factorial 30, 3 ** 50, overflowing sums."""


def factorial(n):
    f = 1
    for i in range(2, n + 1):  # mg: fallback
        f *= i
    return f


def small_factorial(n):
    f = 1
    for i in range(2, n + 1):  # mg: compiled
        f *= i
    return f


print(repr(small_factorial(20)))
print(repr(factorial(30)))
p = 1
for i in range(50):  # mg: fallback
    p = p * 3
print(repr(p), repr(3 ** 50 == p))
powers = [0] * 6
for i in range(6):  # mg: fallback
    powers[i] = 3 ** (i * 10)
print(repr(powers))

a = [2 ** 62, 2 ** 62, 5]
total = 0
for i in range(3):  # mg: fallback
    total += a[i]
print(repr(total))
big = [2 ** 70, 1]
t2 = 0
for i in range(2):  # mg: fallback
    t2 += big[i]
print(repr(t2))
neg = -(2 ** 63)
r = 0
for i in range(1):  # mg: fallback
    r = -neg + i
print(repr(r), repr(abs(neg) // 1))
sh = 1
for i in range(70):  # mg: fallback
    sh = sh << 1
print(repr(sh))
