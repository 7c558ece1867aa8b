# expect: compiled
"""min() and max() of one iterable outside loops (issue 29): a generator or list
comprehension (its ``if`` clauses too) or a list, compiled as a loop that starts from the
first element and keeps the first extreme one, as the built-ins do: NaN first stays, a NaN
later is passed over, 0.0 and -0.0 keep their order, an int and an equal float keep the
first.  With ``key=`` (a lambda, or a function) the element whose key is first found
smallest (largest) is kept.  An empty iterable, or one whose elements are all filtered
out, raises CPython's ValueError; ``default=`` stays in CPython."""
import math


def converged(new, old, n):
    return max(abs(new[i] - old[i])
               for i in range(n))  # mg: compiled


def lowest(values):
    return min(values)


def below(values, limit):
    return max(v
               for v in values if v < limit)  # mg: compiled


def doubled(values):
    return max([2.0 * v
                for v in values])  # mg: compiled


def remainder(values):
    return min(v % 97
               for v in values)  # mg: compiled


def shortest(rows):
    return min(len(row) for row in rows)


def nearest(points, x):
    return min(points, key=lambda p: abs(p - x))


def argmax(values):
    return max(range(len(values)), key=lambda i: values[i])


def farthest(points):
    return max(points, key=abs)


def with_default(values):
    return min(values, default=0.0)


def run(label, function, *arguments):
    try:
        print(label, repr(function(*arguments)))
    except Exception as error:
        print(label, type(error).__name__, error)


new = [math.sin(0.001 * i) for i in range(5000)]
old = [math.sin(0.001 * i + 1e-6) for i in range(5000)]
run("converged", converged, new, old, len(new))
run("lowest", lowest, [3.5, -2.25, 7.0, -2.25])
run("lowest ints", lowest, [5, 3, 9, 3])
run("below", below, [0.5, 9.0, 4.5, 2.0], 5.0)
run("below none", below, [9.0, 7.0], 5.0)
run("below empty", below, [], 5.0)
run("nan first", doubled, [float("nan"), 1.0, 2.0])
run("nan later", doubled, [1.0, float("nan"), 2.0])
run("zeros", lowest, [0.0, -0.0])
run("zeros reversed", lowest, [-0.0, 0.0])
run("int then float", doubled, [1, 1.0])
run("mixed", lowest, [2, 1.0, 1, 3])
run("remainder", remainder, list(range(1000, 3000, 7)))
run("shortest", shortest, [[1, 2], [3], [4, 5, 6]])
run("nearest", nearest, [0.5, 2.5, 4.0], 3.0)
run("nearest tie", nearest, [2, 4.0, 4], 3.0)
run("argmax", argmax, [1.0, 7.5, float("nan"), 7.5])
run("argmax empty", argmax, [])
run("farthest", farthest, [-3, 3, 2.5])
run("with default", with_default, [])
