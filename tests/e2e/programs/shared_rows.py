# expect: fallback
"""[[0] * n] * m shares one row object: a write to one row shows in all of them."""


def fill(grid, m, n):
    for i in range(m):
        for j in range(n):
            grid[i][j] = grid[i][j] + i * n + j


shared = [[0] * 3] * 4
fill(shared, 4, 3)
print(repr(shared))
fresh = [[0] * 3 for _ in range(4)]
fill(fresh, 4, 3)
print(repr(fresh))

row = [1.0, 2.0]
pair = [row, row]
for i in range(2):  # mg: fallback
    for j in range(2):
        pair[i][j] *= 2.0
print(repr(pair), repr(row))

a = [[0] * 2] * 2
b = [a[0], [5, 5]]
for i in range(2):  # mg: fallback
    b[i][0] = a[0][0] + 1
print(repr(a), repr(b))

reads = [[1, 2, 3]] * 3
s = 0
for i in range(3):  # mg: compiled
    for j in range(3):
        s += reads[i][j] * (i + 1)
print(repr(s))
