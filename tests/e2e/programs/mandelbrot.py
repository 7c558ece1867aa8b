# expect: compiled
"""Mandelbrot escape counts on a small grid (while loop with break)."""


def mandel(w, h, max_iter, out):
    for py in range(h):  # mg: compiled
        for px in range(w):
            cr = -2.0 + 3.0 * px / w
            ci = -1.25 + 2.5 * py / h
            zr = 0.0
            zi = 0.0
            n = 0
            while n < max_iter:
                zr2 = zr * zr
                zi2 = zi * zi
                if zr2 + zi2 > 4.0:
                    break
                zi = 2.0 * zr * zi + ci
                zr = zr2 - zi2 + cr
                n += 1
            out[py][px] = n


w, h = 24, 12
out = [[0] * w for _ in range(h)]
mandel(w, h, 50, out)
for row in out:
    print("".join(" .:-=+*#%@"[min(9, v // 5)] for v in row))
print(repr(sum(sum(r) for r in out)))
