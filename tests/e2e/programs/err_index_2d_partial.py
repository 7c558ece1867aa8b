# expect: fallback
"""IndexError in a 2-D list loop nest: rows already written stay written."""


def fill(grid, rows, cols):
    for i in range(rows):  # mg: fallback
        for j in range(cols):
            grid[i][j] = i * 10 + j + grid[i][j - 1]


grid = [[0] * 3 for _ in range(4)]
try:
    fill(grid, 4, 5)
except IndexError as error:
    print("IndexError:", error)
print(repr(grid))
g2 = [[0.5] * 3 for _ in range(2)]
try:
    fill(g2, 3, 3)
except IndexError as error:
    print("IndexError:", error)
print(repr(g2))
