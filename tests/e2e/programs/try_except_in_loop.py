# expect: fallback
"""try/except inside loops: the loop runs in CPython, exactly."""


def safe_inverse(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: fallback
        try:
            out[i] = 1.0 / xs[i]
        except ZeroDivisionError:
            out[i] = float("inf")
        finally:
            xs[i] = -xs[i]
    return out


xs = [2.0, 0.0, -4.0, 0.5]
print(repr(safe_inverse(xs)), repr(xs))


def lookup(table, keys):
    hits = 0
    for i in range(len(keys)):  # mg: fallback
        try:
            hits += table[keys[i]]
        except IndexError:
            hits -= 100
        else:
            hits += 1
    return hits


print(repr(lookup([10, 20, 30], [0, 5, 2, -1, -7])))
count = 0
for i in range(5):  # mg: fallback
    try:
        if i == 3:
            raise ValueError("three")
        count += i
    except ValueError as error:
        count += 1000
        msg = str(error)
print(repr(count), repr(msg))
