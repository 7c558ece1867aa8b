# expect: compiled
"""enumerate's counter as the range loop's own variable (``for i, x in enumerate(xs)``: ``out[i]``
is indexed by the loop, so the loop runs in parallel), and where the body assigns the counter
a name of its own: the counter ends as enumerate leaves it after a break, an empty loop, an
else."""
def a(xs, out):
    for i, x in enumerate(xs):  # mg: compiled
        out[i] = x * 2.0
    return i
def b(xs, out):
    for i, x in enumerate(xs, 1):  # mg: compiled
        out[i - 1] = x + i
    return i
def c(xs, out):
    i = -5
    for i, x in enumerate(xs):
        if x > 3.0:
            break
        out[i] = x
    return i
def d(xs, out):
    for i, x in enumerate(xs):
        out[i] = x
        i = i + 10
    return i
def e(xs):
    i = "unset"
    for i, x in enumerate(xs):
        pass
    return i
def f(xs, out):
    for i, x in enumerate(xs):
        out[i] = x
    else:
        i = i * 100
    return i
xs = [float(k) for k in range(8)]
for fn in (a, b, c, d, f):
    out = [0.0] * 8
    print(fn.__name__, fn(xs, out), out)
print(e([]), e(xs))
