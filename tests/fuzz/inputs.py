"""Arguments of generated programs' calls: sizes, values, element types and containers that
change between calls, and the corners of arrays (overlapping views, strides, read-only,
shared rows, dtypes megaguards does not compile).  Methods of ``generator.Generator`` (a
mixin: they replay its random stream)."""
from __future__ import annotations

import math

import numpy

from .classes import DTYPES


class InputGeneration:
    def calls(self) -> list:
        r = self.rng
        count = r.choice([1, 1, 2, 2, 2, 3])
        calls = []
        change_types = False
        for number in range(count):
            if number > 0:
                change_types = r.random() < 0.3
            calls.append(self.arguments(change_types, first=number == 0))
        return calls

    def arguments(self, change_types: bool, first: bool) -> tuple:
        r = self.rng
        sizes = {"N": r.choice([1, 2, 3, 4, 5, 6, 8, 10, 12]), "M": r.choice([1, 2, 3, 4, 5, 7])}
        if not first and r.random() < 0.1:
            sizes[r.choice("NM")] = 0
        values = {}
        for spec in self.arrays:
            container, element = spec.container, spec.element
            if change_types and r.random() < 0.5:
                if container == "list":
                    element = r.choice(["int", "float"])
                else:
                    element = r.choice(list(DTYPES))
            if change_types and r.random() < 0.15 and "containerswitch" not in self.avoid:  # the other container
                container = "ndarray" if container == "list" else "list"
                element = ({"int": "int64", "float": "float64", "bool": "bool"}[element] if container == "ndarray"
                           else {"int64": "int", "int32": "int", "float64": "float", "float32": "float", "bool": "bool"}[element])
            values[spec.name] = self.make_array(container, element, [sizes[d] for d in spec.dims])
        if self.alias and (first or r.random() < 0.7):
            kind, first_name, second = self.alias
            source = values[first_name]
            if kind == "same":
                values[second] = source
            elif kind == "overlap" and isinstance(source, numpy.ndarray):
                values[first_name], values[second] = self.overlapping(source)
            elif len(source):
                values[second] = source[r.randrange(len(source))]
        if self.shared_rows:
            for spec in self.arrays:
                value = values[spec.name]
                if spec.container == "list" and spec.rank == 2 and len(value) > 1:
                    values[spec.name] = [value[0]] * len(value)
                    break
        n, m = sizes["N"], sizes["M"]
        if r.random() < 0.12:
            n += r.choice([-1, 1, 2])
        if r.random() < 0.08:
            m += r.choice([-1, 1])
        k = r.choice([0, 1, 1, 2, 3, -1, -2, 5])
        q = r.choice([2, 3, 5, 7, 10, -3, 1000, 65537])
        if self.big_ints and r.random() < 0.3:
            q = r.choice([2**31 - 1, 2**40, 3037000500, -(2**62)])
        s = r.choice([0.5, 1.5, -2.25, 3.0, 0.1, 7.0])
        if self.special_floats and r.random() < 0.3:
            s = r.choice([math.nan, math.inf, -0.0, 1e308, 5e-324])
        scalars = {"n": n, "m": m, "k": k, "q": q, "s": s}
        if r.random() < 0.12:  # NumPy scalars (and bools) where Python ints and floats were
            name = r.choice(["n", "m", "k", "q", "s", "s"])
            value = scalars[name]
            if name == "s":
                scalars[name] = r.choice([numpy.float64, numpy.float32])(value)
            elif name == "k" and r.random() < 0.3:
                scalars[name] = bool(value % 2)
            elif abs(value) < 2**31:
                scalars[name] = r.choice([numpy.int64, numpy.int32])(value)
        if change_types and r.random() < 0.3:
            scalars["s"] = r.choice([2, -1, 0])
        if change_types and r.random() < 0.1:
            scalars["q"] = 2**64 + 1  # beyond int64: the guard refuses it
        if change_types and r.random() < 0.05:
            scalars["k"] = 1.0  # a float where an int is expected: TypeError in range() or indexing
        if change_types and r.random() < 0.1:
            scalars["n"] = numpy.int64(n)
        return tuple(values[spec.name] for spec in self.arrays) + tuple(scalars[name] for name in self.scalar_params)

    def with_pairs(self, calls: list) -> list:
        """Each call's arguments and, where the program has ``pairs``, its list of tuples (as
        long as ``n`` or ``m``), from the feature's stream: sometimes empty, with a row of
        three, a list for a tuple, ints among floats or a None."""
        if self.pairs is None:
            return calls
        r = self.tuple_rng
        first, second, dim = self.pairs
        result = []
        for arguments in calls:
            length = max(0, int(arguments[len(self.arrays) + (0 if dim == "N" else 1)]))

            def number(cls):
                if cls is int:
                    return r.randint(-9, 20)
                if self.special_floats and r.random() < 0.15:
                    return r.choice([math.nan, math.inf, -0.0, 1e308])
                return round(r.uniform(-10, 10), r.choice([0, 1, 3]))
            pairs = [(number(first), number(second)) for _ in range(length if r.random() > 0.05 else 0)]
            if pairs and r.random() < 0.12:
                position, corner = r.randrange(len(pairs)), r.choice(["three", "list", "int", "none"])
                x, y = pairs[position]
                pairs[position] = {"three": (x, y, 1.0), "list": [x, y], "none": (x, None),
                                   "int": (int(x) if x == x and abs(x) < 1e300 else 1, y)}[corner]
            result.append(arguments + (pairs,))
        return result

    def overlapping(self, array: numpy.ndarray):
        """Two views of one buffer with ``array``'s length: shifted by one, or reversed."""
        r = self.rng
        if r.random() < 0.5 or len(array) == 0:
            return array, array[::-1]
        base = numpy.empty(len(array) + 1, dtype=array.dtype)
        base[:-1] = array
        base[-1] = base[0]
        return (base[:-1], base[1:]) if r.random() < 0.5 else (base[1:], base[:-1])

    def layout(self, array: numpy.ndarray) -> numpy.ndarray:
        """The same values in another memory layout (or read-only), sometimes."""
        r = self.rng
        if r.random() >= self.p_layout or array.size == 0:
            return array
        variant = r.choice(["reversed", "strided", "transposed", "offset", "readonly"])
        if variant == "reversed":
            return array[::-1].copy()[::-1]
        if variant == "strided":
            base = numpy.zeros((array.shape[0] * 2,) + array.shape[1:], dtype=array.dtype)
            base[1::2] = 7
            base[::2] = array
            return base[::2]
        if variant == "transposed" and array.ndim == 2:
            return array.T.copy().T
        if variant == "offset":
            base = numpy.zeros(array.size + 1, dtype=array.dtype)
            base[1:] = array.ravel()
            return base[1:].reshape(array.shape)
        if "readonly" in self.avoid:
            return array[::-1].copy()[::-1]
        array.flags.writeable = False
        return array

    def make_array(self, container: str, element: str, shape: list):
        r = self.rng
        big = self.big_ints and r.random() < 0.5
        special = self.special_floats and r.random() < 0.5

        def scalar():
            if element == "bool":
                return r.random() < 0.5
            if element in ("int", "int64", "int32"):
                if big and r.random() < 0.4:
                    limit = 2**31 - 1 if element == "int32" else 2**62
                    return r.randint(-limit, limit)
                return r.randint(-9, 20)
            if element == "bool":
                return r.random() < 0.5
            if special and r.random() < 0.2:
                return r.choice([math.nan, math.inf, -math.inf, -0.0, 1e308, 5e-324, 3.4e38])
            return round(r.uniform(-10, 10), r.choice([0, 1, 2, 6]))

        def build(level):
            if level == len(shape):
                return scalar()
            return [build(level + 1) for _ in range(shape[level])]

        nested = build(0)
        if container == "list":
            if element in ("float",):
                nested = _floats(nested)
                if self.mixed_lists:   # whole numbers typed in as ints: [3, 2.5, 4]
                    nested = _some_ints(nested, self.mixed_rng)
            if nested and r.random() < 0.04:  # odd lists: the guard must refuse them
                row = nested if len(shape) == 1 else nested[r.randrange(len(nested))]
                if row:
                    position = r.randrange(len(row))
                    row[position] = r.choice([int(row[position]) if row[position] == row[position] and abs(row[position]) < 1e300 else 1,
                                              float(row[position]) if element != "float" else 2, 2**70, True, None])
            if nested and r.random() < 0.02:
                return tuple(nested)
            return nested
        if r.random() < 0.03:  # dtypes megaguards does not compile
            odd = r.choice(["int16", "uint8", "float16", "uint64", ">f8", ">i8"])
            return numpy.array(numpy.abs(numpy.array(nested, dtype=numpy.float64)), dtype=odd).reshape(shape)
        return self.layout(numpy.array(nested, dtype=element).reshape(shape))


def _some_ints(value, rng):
    if isinstance(value, list):
        return [_some_ints(v, rng) for v in value]
    if value == value and abs(value) < 2**53 and value == int(value) and rng.random() < 0.6:
        return int(value)
    return value


def _floats(value):
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return float(value)
