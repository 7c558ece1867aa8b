# expect: fallback
"""Loops that append to a list bound before them compile; loops that build lists of rows
(a list display inside the loop) or extend lists fall back, their inner loops compiling."""


def squares(n):
    out = []
    for i in range(n):  # mg: compiled
        out.append(i * i)
    return out


def rows(n):
    table = []
    for i in range(n):  # mg: fallback
        row = [0] * n
        for j in range(n):  # mg: compiled
            row[j] = i * j - j
        table.append(row)
    return table


print(repr(squares(10)))
print(repr(rows(4)))
evens = []
for i in range(12):  # mg: fallback
    if i % 2 == 0:
        evens.append(i)
    else:
        evens.extend((-i,))
print(repr(evens), repr(i))
