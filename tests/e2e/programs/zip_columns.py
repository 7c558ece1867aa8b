# expect: compiled
"""A table's columns walked with zip(*rows), as tutorials transpose: per-column minimum,
maximum and mean of a table of measurements, a min-max normalisation written into a new
table, and the column of largest spread.  The loops read the columns in place; the loop's
name holds the last column's tuple afterwards, as in CPython."""


def column_summary(rows):
    lows, highs, means = [], [], []
    for column in zip(*rows):  # mg: compiled
        lows.append(min(column))
        highs.append(max(column))
        means.append(sum(column) / len(column))
    return lows, highs, means, column


def normalised(rows, lows, highs):
    out = [[0.0] * len(rows[0]) for _ in rows]
    for j, column in enumerate(zip(*rows)):  # mg: compiled
        span = highs[j] - lows[j]
        for i in range(len(column)):
            out[i][j] = (column[i] - lows[j]) / span if span else 0.0
    return out


def widest(rows):
    best, best_spread, k = -1, -1.0, 0
    for column in zip(*rows):  # mg: compiled
        spread = max(column) - min(column)
        if spread > best_spread:
            best, best_spread = k, spread
        k += 1
    return best, best_spread


readings = [[((r * 13 + c * 29) % 47) * 0.25 + c for c in range(6)] for r in range(250)]
lows, highs, means, last = column_summary(readings)
print("lows", lows)
print("highs", highs)
print("means", means)
print("last column", len(last), last[:4], type(last).__name__)
scaled = normalised(readings, lows, highs)
print("scaled", [round(sum(row), 12) for row in scaled[:5]], scaled[-1])
print("widest", widest(readings))
