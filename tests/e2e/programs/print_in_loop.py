# expect: compiled
"""Loops containing print() fall back; inner loops without print compile."""


def report(grid):
    for i in range(len(grid)):  # mg: fallback
        s = 0
        for j in range(len(grid[i])):  # mg: compiled
            s += grid[i][j] * (j + 1)
        print("row", i, "sum", repr(s))
    return s


grid = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
print(repr(report(grid)))
acc = 0.0
for k in range(3):  # mg: fallback
    for m in range(5):  # mg: compiled
        acc += k * 0.5 + m / 3
    print(k, repr(acc))
print(repr(acc), repr(k), repr(m))
