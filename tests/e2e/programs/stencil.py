# expect: compiled
"""Jacobi iteration: two float arrays swapped between sweeps, boundary fixed."""


def sweep(u, v, n):
    for i in range(1, n - 1):   # inlined into the time loop below
        v[i] = 0.5 * (u[i - 1] + u[i + 1])


def residual(u, n):
    r = 0.0
    for i in range(1, n - 1):  # mg: compiled
        d = u[i] - 0.5 * (u[i - 1] + u[i + 1])
        r = max(r, abs(d))
    return r


n = 12
u = [0.0] * n
u[-1] = 1.0
v = list(u)
for it in range(30):  # mg: compiled (the swap exchanges the names: the time loop compiles whole)
    sweep(u, v, n)
    u, v = v, u
print(repr(u))
print(repr(residual(u, n)))
