# expect: compiled
"""One loop site entered many times with varying sizes and types (specialisation cache)."""


def dot(a, b):
    s = 0
    for i in range(len(a)):  # mg: compiled
        s += a[i] * b[i]
    return s


results = []
for n in range(0, 12):
    a = [k - n for k in range(n)]
    b = [k * k for k in range(n)]
    results.append(dot(a, b))
    fa = [k * 0.5 for k in range(n)]
    results.append(dot(fa, fa))
print(repr(results))


def rec(n):
    if n <= 0:
        return 0
    t = 0
    for i in range(n):  # mg: compiled
        t += i * n
    return t + rec(n - 2)


print(repr(rec(9)))
