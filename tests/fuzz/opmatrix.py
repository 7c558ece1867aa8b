"""The operator matrix: every operator and built-in the generator uses, on each pair of
value classes, on corner values; plain CPython vs megaguards.jit (``harness.same_outcome``).

The random programs of ``generator.py`` combine operations; this sweeps single ones
exhaustively: left operand an array element (list int/float/bool, NumPy int64/int32/
float64/float32/bool) or a scalar live-in (Python int/float/bool, the NumPy scalar
classes), right operand an array element, values around 0, -0.0, +-2**31, 2**53 + 1,
2**62, -2**63, +-inf, nan, subnormals.  One loop site per (operation, classes), so each
type signature compiles once::

    python -m tests.fuzz.opmatrix                   # everything (about 10 minutes on 2 cores)
    python -m tests.fuzz.opmatrix --ops floor,add --pairs 100
"""
from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import warnings

import numpy

from .harness import load_kernel, same_outcome

OPERATIONS = {
    "add": "X + Y", "sub": "X - Y", "mul": "X * Y", "div": "X / Y", "floordiv": "X // Y", "mod": "X % Y",
    "pow": "X ** Y", "and": "X & Y", "xor": "X ^ Y", "lshift": "X << Y", "rshift": "X >> Y",
    "lt": "X < Y", "eq": "X == Y", "chain": "0 < X <= Y", "min": "min(X, Y)", "max": "max(X, Y)",
    "ifexp": "X if X > Y else Y", "neg": "-X", "abs": "abs(X)", "invert": "~X", "int": "int(X)",
    "float": "float(X)", "round": "round(X)", "floor": "math.floor(X)", "ceil": "math.ceil(X)",
    "sqrt": "math.sqrt(X)", "bool": "bool(X)", "copysign": "math.copysign(1.0, X * Y)",
}
HUGE_RESULTS = {"pow", "lshift"}  # small operands only: 2**62 ** 2**62 never ends

ELEMENTS = {"list int": ("list", int), "list float": ("list", float), "list bool": ("list", bool),
            "int64": ("array", "int64"), "int32": ("array", "int32"), "float64": ("array", "float64"),
            "float32": ("array", "float32"), "bool": ("array", "bool")}
SCALARS = {"int": int, "float": float, "bool": bool, "numpy.int64": numpy.int64, "numpy.int32": numpy.int32,
           "numpy.float64": numpy.float64, "numpy.float32": numpy.float32, "numpy.bool": numpy.bool_}

INTS = [0, 1, -1, 3, -7, 63, 64, 2**31 - 1, -2**31, 2**53 + 1, 2**62, -2**63]
FLOATS = [0.0, -0.0, 0.5, 1.5, -2.5, 3.0, -3.0, 1e308, 5e-324, 1e-310, 2.0**53 + 2, math.inf, -math.inf, math.nan]
SMALL_INTS = [0, 1, -1, 3, -7, 63, 64, 100]
SMALL_FLOATS = [0.0, -0.0, 0.5, 1.5, -2.5, 3.0, -3.0, 1e308, 2.0**53 + 2, math.inf, math.nan]


def _kind(cls) -> str:
    if cls in (bool, "bool", numpy.bool_):
        return "bool"
    if cls in (int, "int64", "int32", numpy.int64, numpy.int32):
        return "int32" if cls in ("int32", numpy.int32) else "int"
    return "float"


def corner_values(cls, small: bool) -> list:
    kind = _kind(cls)
    if kind == "bool":
        return [True, False]
    if kind in ("int", "int32"):
        values = SMALL_INTS if small else INTS
        return [v for v in values if kind == "int" or -2**31 <= v < 2**31]
    return SMALL_FLOATS if small else FLOATS


def make_element(name: str, value):
    container, cls = ELEMENTS[name]
    if container == "list":
        return [cls(value)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return numpy.array([value], dtype=cls)


def make_scalar(name: str, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SCALARS[name](value)


def source(operations) -> str:
    """One module: per operation, a function with the left operand an element and one with a scalar."""
    lines = ["import math", ""]
    for name in operations:
        template = OPERATIONS[name]
        for suffix, left in (("element", "x[i]"), ("scalar", "x")):
            lines += [f"def {name}_{suffix}(x, y):", "    for i in range(len(y)):",
                      f"        r = {template.replace('X', left).replace('Y', 'y[i]')}", "    return r", ""]
    return "\n".join(lines)


def run(operations=None, pairs: int = 45, seed: int = 0, report=print, classes=None) -> list[str]:
    """Mismatches as lines (empty when everything matched); ``classes``: the value classes
    (names of ELEMENTS and SCALARS) to take, all by default."""
    import megaguards

    operations = list(operations or OPERATIONS)
    module, _ = load_kernel(source(operations), "opmatrix")
    rng = random.Random(seed)
    mismatches = []
    for name in operations:
        small = name in HUGE_RESULTS
        for suffix, lefts, make_left in (("element", ELEMENTS, make_element), ("scalar", SCALARS, make_scalar)):
            function = getattr(module, f"{name}_{suffix}")
            rights = [c for c in ELEMENTS if classes is None or c in classes]
            for left, right in itertools.product([c for c in lefts if classes is None or c in classes], rights):
                left_class = lefts[left] if suffix == "scalar" else ELEMENTS[left][1]
                candidates = list(itertools.product(corner_values(left_class, small),
                                                    corner_values(ELEMENTS[right][1], small)))
                rng.shuffle(candidates)
                fast = megaguards.jit(function)  # fresh sites: one type signature each
                for x, y in candidates[:pairs]:
                    equal, difference = same_outcome(
                        function, fast, lambda: (make_left(left, x), make_element(right, y)))
                    if not equal:
                        line = f"{OPERATIONS[name]} with X = {left} {x!r}, Y = {right} {y!r}: {difference}"
                        mismatches.append(line)
                        report(line)
    return mismatches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.opmatrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", help=f"comma-separated, from: {', '.join(OPERATIONS)}")
    parser.add_argument("--pairs", type=int, default=45, help="value pairs per pair of classes (default 45)")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args(argv)
    import os
    import tempfile

    os.environ.setdefault("MEGAGUARDS_CACHE_DIR", tempfile.mkdtemp(prefix="mg-opmatrix-"))
    os.environ.setdefault("MEGAGUARDS_PARALLEL_WORK", "0")

    from megaguards import config

    settings = config.from_environment()
    config.configure(**settings._asdict())
    operations = options.ops.split(",") if options.ops else None
    mismatches = run(operations, options.pairs, options.seed, report=lambda line: print(line, flush=True))
    print(f"{len(mismatches)} mismatches")
    return int(bool(mismatches))


if __name__ == "__main__":
    sys.exit(main())
