# expect: compiled
"""len() of lists and of rows, in ranges and expressions."""


def frob(grid, out):
    for i in range(len(grid)):  # mg: compiled
        for j in range(len(grid[i])):
            out[i] += grid[i][j] * len(grid[0]) - len(grid)


grid = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
out = [0] * len(grid)
frob(grid, out)
print(repr(out))

v = [2.0, 4.0, 8.0]
mean = 0.0
for i in range(len(v)):  # mg: compiled
    mean += v[i] / len(v)
print(repr(mean))
