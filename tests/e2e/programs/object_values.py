# expect: compiled
"""A name holding one object of a list (``best = p``, ``best = ps[k]``, ``best = None``): the
kernel keeps the object's index, compares objects by it (``best is p``, ``best is None``),
reads fields through it (``best.m``), and after the run the name holds the object itself,
as in CPython.  An object from elsewhere, or None where a field or method is used, leaves
the loop to CPython (which raises where it raises)."""


class Star:
    def __init__(self, k):
        self.m = float((k * 7919) % 1009)
        self.x = k * 0.25
        self.hits = 0

    def heavier(self, other):
        return self.m > other.m

    def touch(self):
        self.hits += 1


def heaviest(stars):
    best = None
    for s in stars:  # mg: compiled
        if best is None or s.m > best.m:
            best = s
    return best


def heaviest_by_method(stars):
    best = stars[0]
    for s in stars:  # mg: compiled
        if s.heavier(best):
            best = s
    return best


def top_two(stars):
    first = second = None
    for s in stars:  # mg: compiled
        if first is None or s.m > first.m:
            second = first
            first = s
        elif second is None or s.m > second.m:
            second = s
    return first, second


def lightest_from_the_end(stars):
    n = len(stars)
    best = stars[-1]
    for i in range(n):  # mg: compiled
        if stars[i].m < best.m:
            best = stars[i - n]     # a negative index: the same object as stars[i]
    return best


def spread(stars):
    previous = stars[0]
    total = 0.0
    for s in stars:  # mg: compiled
        if s is not previous:
            total += abs(s.x - previous.x) * s.m
        previous = s
    return total, previous


def mark_heaviest(stars, rounds):
    for r in range(rounds):  # mg: compiled
        best = None
        for s in stars:
            if s.hits == r and (best is None or s.m > best.m):
                best = s
        if best is not None:
            best.touch()
    return [s.hits for s in stars][:8]


def from_elsewhere(stars, start):
    best = start
    for s in stars:  # mg: fallback "not one of"
        if s.m > best.m:
            best = s
    return best


def touch_none(stars):
    best = None
    for s in stars:  # mg: fallback "runtime flag"
        best.touch()
        best = s
    return best


stars = [Star(k) for k in range(3000)]
for rounds in range(3):
    best = heaviest(stars)
print(best.m, best.x, best is stars[stars.index(best)])
print(heaviest_by_method(stars) is best, heaviest([]) is None)
first, second = top_two(stars)
print(first is best, second.m, second.x)
light = lightest_from_the_end(stars)
print(light.m, light.x, light is min(stars, key=lambda s: s.m))
print(spread(stars)[0], spread(stars)[1] is stars[-1])
print(mark_heaviest(stars, 4), sum(s.hits for s in stars))
outside = Star(5)
print(from_elsewhere(stars, outside) is best, from_elsewhere(stars[:10], outside).x)
try:
    touch_none(stars)
except AttributeError as error:
    print("AttributeError:", error, sum(s.hits for s in stars))


def heavy_ones(stars, limit):
    chosen = []
    for s in stars:  # mg: compiled
        if s.m > limit:
            chosen.append(s)
    return chosen


def leaders(stars):
    best = None
    trail = [None]
    for s in stars:  # mg: compiled
        if best is None or s.m > best.m:
            best = s
            trail.append(best)
    return trail


def into_itself(stars):
    for k in range(3):  # mg: fallback
        for s in stars:
            if s.m > 1000.0:
                stars.append(s)
                break
    return len(stars)


heavy = heavy_ones(stars, 1000.0)
print(len(heavy), all(h is stars[stars.index(h)] for h in heavy), [h.x for h in heavy][:5])
trail = leaders(stars)
print(trail[0], [t.m for t in trail[1:]][-3:], trail[-1] is best)
few = stars[:50]
print(into_itself(few), few[-1] is few[few.index(few[-1])])
