# expect: compiled
"""Lists that grow while the loop indexes them: a Fibonacci table built from its own last two
entries, a list of primes tested against the primes found so far, a table allocated by append then filled by index, and
the records of a series in a list empty at start (typed by what it is given), a Collatz
trace read back by negative index; then ints past 64 bits, which CPython computes
and the kernel hands back to it."""


def fibonacci(n):
    table = [0, 1]
    for i in range(2, n):  # mg: compiled
        table.append(table[i - 1] + table[i - 2])
    return table


def primes_below(n):
    primes = [2]
    for candidate in range(3, n, 2):  # mg: compiled
        k = 0
        while primes[k] * primes[k] <= candidate and candidate % primes[k] != 0:
            k += 1
        if primes[k] * primes[k] > candidate:
            primes.append(candidate)
    return primes


def smoothed(values):
    out = [values[0]]
    for i in range(1, len(values)):  # mg: compiled
        out.append(0.0)
        out[i] = 0.75 * out[i - 1] + 0.25 * values[i]
    return out


def records(values):
    best = []
    for i in range(len(values)):  # mg: compiled
        if len(best) == 0 or values[i] > best[-1]:
            best.append(values[i])
    return best


def collatz(start, steps):
    trace = [start]
    for _ in range(steps):  # mg: compiled
        last = trace[-1]
        if last == 1:
            break
        trace.append(last // 2 if last % 2 == 0 else 3 * last + 1)
    return trace


print(fibonacci(60)[-3:], len(fibonacci(90)))
primes = primes_below(20000)
print(len(primes), primes[:8], primes[-3:])
print(smoothed([float(i % 7) for i in range(40)])[-4:])
print(records([(k * 7919) % 1009 * 0.5 for k in range(300)]))
print(collatz(27, 500)[-5:], len(collatz(27, 500)), collatz(97, 20))
print(fibonacci(200)[-1])   # past int64: CPython's ints
