# expect: compiled
"""Methods that keep state in their object, called from a loop (a random generator's
``self.i = I``, a counter's ``self.count += 1``), and locals naming an array the object
holds (``I, J, m = self.i, self.j, self.m`` then ``m[I]``): the attributes are variables of
the loop, read at entry and set on the object after the run, as if the loop assigned them
itself.  An attribute of a global object, or a local that may name another array, keeps the
loop in CPython."""
from array import array


class Lagged:
    """A lagged-Fibonacci generator written as scimark writes its own."""

    modulus = (1 << 30) + ((1 << 30) - 1)
    scale = 1.0 / float(modulus)

    def __init__(self, seed):
        self.m = array('d', [0]) * 17
        for k in range(17):
            seed = (seed * 9069) % 65536
            self.m[k] = float(seed * 16384 + k)
        self.i, self.j = 4, 16
        self.drawn = 0

    def next(self):
        I, J, m = self.i, self.j, self.m
        k = m[I] - m[J]
        if k < 0:
            k += self.modulus
        self.m[J] = k
        self.i = 16 if I == 0 else I - 1
        self.j = 16 if J == 0 else J - 1
        self.drawn += 1
        return self.scale * k


def pi(rnd, samples):
    inside = 0
    for count in range(samples):  # mg: compiled
        x = rnd.next()
        y = rnd.next()
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / samples


class Rebinding(Lagged):
    def next(self):
        m = self.m
        self.m = array('d', m)   # another array under the same path: m is not self.m any more
        m[0] += 1.0
        return m[0]


def sum_draws(rnd, n):
    total = 0.0
    for k in range(n):  # mg: fallback
        total += rnd.next()
    return total


SHARED = Lagged(3)


def shared_next():
    SHARED.drawn += 1   # an attribute of a global object: the loop's own names only
    return SHARED.drawn


def count_shared(n):
    total = 0
    for k in range(n):  # mg: fallback "inside a called function"
        total += shared_next()
    return total


rnd = Lagged(11)
print(pi(rnd, 200000), rnd.i, rnd.j, rnd.drawn, list(rnd.m)[:4])
print(pi(rnd, 1000), rnd.drawn)
other = Rebinding(5)
print(sum_draws(other, 20000), list(other.m)[:2], other.drawn)
print(count_shared(30000), SHARED.drawn)
