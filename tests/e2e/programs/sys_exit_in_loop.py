# expect: fallback
"""sys.exit() from inside a loop: exit status and the partial output."""
import sys


def search(a, target):
    for i in range(len(a)):  # mg: fallback
        if a[i] == target:
            print("found at", i)
            sys.exit(3)


counts = [0] * 4
for i in range(40):  # mg: compiled
    counts[i % 4] += i
print(repr(counts))
search(counts, 190)
print("not reached")
