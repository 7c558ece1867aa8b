# expect: compiled
"""Loops at module level read and write globals."""
N = 12
data = [((i * 37) % 11) * 1.5 for i in range(N)]
total = 0.0
for i in range(N):  # mg: compiled
    total += data[i]
print(repr(total), repr(i))

best = -1.0
best_at = -1
for j in range(N):  # mg: compiled
    if data[j] > best:
        best = data[j]
        best_at = j
print(repr(best), repr(best_at), repr(j))

counts = [0] * 5
for k in range(100):  # mg: compiled
    counts[(k * k) % 5] += 1
print(repr(counts), repr(k))

a, b = 0, 1
for step in range(30):  # mg: compiled
    a, b = b, a + b
print(repr(a), repr(b), repr(step))
