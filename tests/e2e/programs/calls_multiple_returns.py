# expect: compiled
"""Helpers with several return statements: if/elif/else and returns inside loops."""


def clamp(x, low, high):
    if x < low:
        return low
    elif x > high:
        return high
    return x


def sign(x):
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


def escape_count(cr, ci, max_iter):
    zr = 0.0
    zi = 0.0
    for n in range(max_iter):
        zr2 = zr * zr
        zi2 = zi * zi
        if zr2 + zi2 > 4.0:
            return n
        zi = 2.0 * zr * zi + ci
        zr = zr2 - zi2 + cr
    return max_iter


def escape_count_while(cr, ci, max_iter):
    zr = zi = 0.0
    n = 0
    while n < max_iter:
        if zr * zr + zi * zi > 4.0:
            return n
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def clamp_all(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = clamp(xs[i], -1.5, 2.0) * sign(xs[i])


def mandel(w, h, max_iter, out):
    for py in range(h):  # mg: compiled
        for px in range(w):
            out[py][px] = escape_count(-2.0 + 3.0 * px / w, -1.25 + 2.5 * py / h, max_iter)


def mandel_while(w, h, max_iter, out):
    for py in range(h):  # mg: compiled
        for px in range(w):
            out[py][px] = escape_count_while(-2.0 + 3.0 * px / w, -1.25 + 2.5 * py / h, max_iter)


xs = [0.37 * k - 2.5 for k in range(16)] + [0.0, -0.0]
out = [0.0] * len(xs)
clamp_all(xs, out)
print(repr(out))
w, h = 24, 12
grid = [[0] * w for _ in range(h)]
mandel(w, h, 40, grid)
for row in grid:
    print("".join(" .:-=+*#%@"[min(9, v // 4)] for v in row))
grid2 = [[0] * w for _ in range(h)]
mandel_while(w, h, 40, grid2)
print(grid == grid2)
