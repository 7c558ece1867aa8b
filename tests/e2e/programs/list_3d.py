# expect: compiled
"""3-D lists of ints and floats."""


def fill(cube, n):
    for i in range(n):  # mg: compiled
        for j in range(n):
            for k in range(n):
                cube[i][j][k] = (i * 100 + j * 10 + k) % 17 - 8


def smooth(src, dst, n):
    for i in range(1, n - 1):  # mg: compiled
        for j in range(1, n - 1):
            for k in range(1, n - 1):
                dst[i][j][k] = (src[i - 1][j][k] + src[i + 1][j][k] + src[i][j - 1][k]
                                + src[i][j + 1][k] + src[i][j][k - 1] + src[i][j][k + 1]) / 6.0


n = 4
cube = [[[0] * n for _ in range(n)] for _ in range(n)]
fill(cube, n)
print(repr(cube))
src = [[[float(cube[i][j][k]) for k in range(n)] for j in range(n)] for i in range(n)]
dst = [[[0.0] * n for _ in range(n)] for _ in range(n)]
smooth(src, dst, n)
print(repr(dst))
total = 0
for i in range(n):  # mg: compiled
    for j in range(n):
        for k in range(n):
            total += cube[i][j][k] * cube[k][j][i]
print(repr(total))
