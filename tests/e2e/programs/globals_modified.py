# expect: compiled
"""Functions writing globals through 'global'; module constants read in loops."""
LIMIT = 25
SCALE = 0.5
counter = 0
table = [0.0] * 10


def bump(n):
    global counter
    for i in range(n):  # mg: compiled
        counter += i % 4
        table[i % 10] += SCALE * i
    return counter


print(repr(bump(LIMIT)), repr(counter))
print(repr(bump(7)), repr(counter))
print(repr(table))


def reader():
    s = 0
    for i in range(LIMIT):  # mg: compiled
        s += i * counter
    return s


print(repr(reader()))
