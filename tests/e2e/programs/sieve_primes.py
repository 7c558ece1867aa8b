# expect: compiled
"""Sieve of Eratosthenes on an int list, then counting and summing primes."""


def sieve(n):
    is_p = [1] * (n + 1)
    is_p[0] = 0
    is_p[1] = 0
    i = 2
    for i in range(2, n + 1):  # mg: compiled
        if i * i > n:
            break
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = 0
    return is_p, i


is_p, stopped = sieve(200)
count = 0
total = 0
last = 0
for k in range(len(is_p)):  # mg: compiled
    if is_p[k]:
        count += 1
        total += k
        last = k
print(repr(count), repr(total), repr(last), repr(stopped))
