# expect: compiled
"""Mandelbrot with Python complex numbers: z = z*z + c, abs(z) > 2 (scalar replacement:
each complex is a pair of doubles in the kernel, with CPython's own formulas)."""


def mandel(w, h, max_iter, out):
    for py in range(h):  # mg: compiled
        for px in range(w):
            c = complex(-2.0 + 3.0 * px / w, -1.25 + 2.5 * py / h)
            z = 0j
            n = 0
            while n < max_iter:
                z = z * z + c
                if abs(z) > 2.0:
                    break
                n += 1
            out[py][px] = n
    return z


def orbit(c, steps):
    z = 0.5 - 0.25j
    trace = [0.0] * steps
    for k in range(steps):  # mg: compiled
        z = z * z + c
        if z == 0:
            z = 1j
        trace[k] = z.real - z.imag + abs(z) / (k + 1)
    return z, trace


w, h = 24, 12
out = [[0] * w for _ in range(h)]
last = mandel(w, h, 50, out)
for row in out:
    print("".join(" .:-=+*#%@"[min(9, v // 5)] for v in row))
print(repr(sum(sum(r) for r in out)), repr(last))
z, trace = orbit(-0.75 + 0.1j, 20)
print(repr(z), repr(trace[-3:]))
