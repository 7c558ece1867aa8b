# expect: compiled
"""map / comprehensions / sum / reduce outside loops: expression sites (sums of floats
compile on 3.12+ too, compensated as CPython's are)."""
import functools
import math
import operator


def scaled(xs):
    return [math.sqrt(x) * 2
            for x in xs]  # mg: compiled


def table(n, m):
    return [[i * m + j
             for j in range(m)]
            for i in range(n)]  # mg: compiled


def norm(xs):
    return math.sqrt(sum(x * x
                         for x in xs))  # mg: compiled


big = [i % 1000
       for i in range(10**6)]  # mg: compiled
print(functools.reduce(operator.add, big))
print(functools.reduce(lambda a, b: a if a > b else b, big))
print(sum(big), sum(i * i for i in range(1000)))
xs = [i * 0.25
      for i in range(20)]  # mg: compiled
print(scaled(xs))
print(table(3, 4))
print(norm(xs))
print(list(map(lambda a, b: a - b, xs, scaled(xs))))
print(list(map(abs, [-1, 2, -3])))
print([x * 2 for x in []], sum([]), functools.reduce(operator.mul, [], 1))
try:
    print([math.log(x) for x in [1.0, 0.0]])
except ValueError as error:
    print("ValueError:", error)
