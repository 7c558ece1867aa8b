# expect: compiled
"""Which function runs: the object the name is bound to, with its own globals --
decorated helpers, lambdas, functions from exec and from another module whose
globals differ from the script's."""
import functools

from e2e_helpers import calls_helpers
from e2e_helpers.calls_helpers import norm, scale

SCALE = 100.0  # the script's SCALE: calls_helpers.scale must keep reading its own


def replace_with_cube(function):
    return lambda x: x * x * x


@replace_with_cube
def decorated(x):
    return x + 1.0


def passthrough(function):
    @functools.wraps(function)
    def wrapper(x):
        return function(x) * 2.0
    return wrapper


@passthrough
def wrapped(x):
    return x - 0.5


square = lambda x: x * x  # noqa: E731


def plus_one(x):
    return x + 1.0


namespace = {}
exec("def from_exec(x):\n    return x * 4.0 - 1.0\n", namespace)
from_exec = namespace["from_exec"]


def run(xs, which):
    out = [0.0] * len(xs)
    if which == 0:
        for i in range(len(xs)):  # mg: compiled
            out[i] = decorated(xs[i]) - 1.0
    elif which == 4:
        for i in range(len(xs)):  # mg: fallback "decorated"
            out[i] = wrapped(xs[i])
    elif which == 1:
        for i in range(len(xs)):  # mg: compiled
            out[i] = square(xs[i]) + plus_one(xs[i])
    elif which == 2:
        for i in range(len(xs)):  # mg: fallback "source"
            out[i] = from_exec(xs[i])
    elif which == 3:
        for i in range(len(xs)):  # mg: compiled
            out[i] = scale(xs[i]) + calls_helpers.scale(xs[i]) + norm(xs[i], 1.0)
    return out


xs = [0.5 * k - 1.0 for k in range(7)]
for which in range(5):
    print(which, repr(run(xs, which)))
calls_helpers.SCALE = 0.5
print(repr(run(xs, 3)))
