# expect: fallback
"""Helpers with side effects the loop cannot own: printing, writing a global,
writing a global list's elements, calling an unknown function: these loops stay in
CPython.  Appending to a global list compiles (the values join it after the run)."""

calls = 0
log = []


def noisy(x):
    print("noisy", x)
    return x * 2.0


def counting(x):
    global calls
    calls += 1
    return x + calls


def logging_helper(x):
    log.append(x)
    return -x


COUNTS = [0] * 4


def bump(k):
    COUNTS[k % 4] += 1
    return k


def opaque(x):
    return float(str(x)) + 0.5


def run_noisy(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: fallback "side effects"
        total += noisy(xs[i])
    return total


def run_counting(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: fallback "global"
        total += counting(xs[i])
    return total


def run_logging(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += logging_helper(xs[i])
    return total


def run_opaque(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: fallback "not bound to a supported"
        total += opaque(xs[i])
    return total


def run_bump(n):
    total = 0
    for i in range(n):  # mg: compiled
        total += bump(i * i)
    return total


xs = [0.5, 1.5, -2.0]
print(repr(run_noisy(xs)))
print(repr(run_counting(xs)), calls)
print(repr(run_counting(xs)), calls)
print(repr(run_logging(xs)), repr(log))
print(repr(run_opaque(xs)))
print(repr(run_bump(10)), repr(COUNTS))
