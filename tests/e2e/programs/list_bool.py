# expect: compiled
"""Lists of bools: a sieve and boolean combinations."""


def sieve(flags, n):
    flags[0] = False
    flags[1] = False
    for i in range(2, n):  # mg: compiled
        if flags[i]:
            for j in range(i * i, n, i):
                flags[j] = False


n = 60
flags = [True] * n
sieve(flags, n)
print(repr(flags))
count = 0
for i in range(n):  # mg: compiled
    if flags[i]:
        count += 1
print(repr(count))

a = [True, False, True, True, False]
b = [False, False, True, False, True]
c = [False] * 5
for i in range(5):  # mg: compiled
    c[i] = (a[i] and not b[i]) or (b[i] and i > 2)
print(repr(c))
grid = [[False] * 4 for _ in range(3)]
for i in range(3):  # mg: compiled
    for j in range(4):
        grid[i][j] = (i + j) % 2 == 0 or grid[i][j]
print(repr(grid))
