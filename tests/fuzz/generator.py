"""A seeded generator of random loop programs for differential fuzzing.

``generate(seed)`` returns a ``Program``: the Python source of one function
``kernel(...)`` and the argument tuples of one to three calls of it.  The same
seed always gives the same program and the same arguments (``random.Random(seed)``
only; no global state).

What the programs contain (see the issue "differential fuzzing"):

* parameters: 1-D/2-D Python lists of ints, floats (rarely bools) and NumPy arrays
  (float64, int64, int32, float32, rarely bool), int scalars (sizes ``n``/``m``, an
  offset or step ``k``, a multiplier ``q``) and a float scalar ``s``; sometimes NumPy
  scalars instead of Python ones;
* nested ``for`` loops over ``range`` with one to three arguments, negative steps,
  zero-trip ranges, ranges that depend on outer loop variables, steps from a
  parameter (which may be 0), ranges of more than 2**63 values left by ``break``,
  loop variables that rebind a name in use; bounded ``while`` loops;
  ``if``/``elif``/``else``; ``break``/``continue``;
* random expressions (``+ - * / // % & | ^ ** << >> min max abs``, unary ``-`` and
  ``~``, conditional expressions, comparisons (chained too, and as values),
  ``and``/``or``, a few ``math`` calls and ``int``/``float``/``round`` conversions),
  typed as Python and NumPy type them, so that most programs are type-stable;
* affine subscripts (``a[i - 1]``, ``a[n - 1 - i]``, ``a[i + k]``, ``a[-1 - i]``) that
  are mostly in range, sometimes not; data-dependent subscripts; a rare float
  subscript; augmented stores;
* scalar accumulators (including products that overflow int64), the reduction
  idioms of parallel loops (``s += e``, ``s = max(s, e)``, ``if e > s: s = e``),
  tuple and chained assignments, names bound in one branch and read after the
  ``if`` (bound before the loop or not), loop variables read after their loops
  (inner ones too), all returned at the end;
* divisors that are sometimes zero, large ints, special floats (nan, inf, -0.0);
* argument corners: the same list twice, a matrix row passed beside its matrix,
  overlapping NumPy views, shared rows (``[[0] * m] * n``), reversed, strided,
  transposed, offset and read-only arrays, lists the guard must refuse (mixed
  elements, ints beyond int64, None), tuples, dtypes megaguards does not compile;
* one to three calls: later calls with other sizes (sometimes 0), values,
  element types, containers (list <-> ndarray) or scalar types;
* in about 40 % of programs, user-defined helper functions called inside the loops
  (helpers.py: module functions, a closure, a lambda; several returns, tuples,
  writers of arrays, rows, defaults and keywords, recursion/global/print that must
  fall back), drawn from a random stream of their own: the other programs are the
  ones these seeds gave before, and ``--avoid helpers`` gives them for every seed.

The generator tracks the Python/NumPy class of every expression by applying the
real operators to sample values, and inserts ``int(...)``/``float(...)`` where a
store or an assignment would otherwise change a type (which makes megaguards
refuse the loop): only a small, deliberate fraction of programs is not
type-stable.
"""
from __future__ import annotations

import functools
import math
import operator
import random
import warnings
from dataclasses import dataclass, field

import numpy

from .helpers import HelperGeneration

# --------------------------------------------------------------------------------------
# Types: the Python/NumPy class of a value, and what operators make of them.

PY_INT, PY_FLOAT, PY_BOOL = int, float, bool
NP_I64, NP_I32, NP_F64, NP_F32 = numpy.int64, numpy.int32, numpy.float64, numpy.float32
NUMPY_BOOL = numpy.bool_
INTLIKE = (PY_INT, PY_BOOL, NP_I64, NP_I32, NUMPY_BOOL)
FLOATLIKE = (PY_FLOAT, NP_F64, NP_F32)
CTYPE = {PY_INT: "i64", NP_I64: "i64", PY_BOOL: "b", NUMPY_BOOL: "b", NP_I32: "i32",
         PY_FLOAT: "f64", NP_F64: "f64", NP_F32: "f32"}
DTYPES = {"float64": NP_F64, "int64": NP_I64, "int32": NP_I32, "float32": NP_F32, "bool": numpy.bool_}

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
        "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
        "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne}


def _sample(t):
    if t in (PY_BOOL, NUMPY_BOOL):
        return t(True)
    return t(3) if t in INTLIKE else t(0.5)


@functools.lru_cache(maxsize=None)
def result_type(op: str, left: type, right: type) -> type | None:
    """The class of ``left op right`` on ordinary values (None if Python refuses)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return type(_OPS[op](_sample(left), _sample(right)))
        except Exception:
            return None


@functools.lru_cache(maxsize=None)
def call_type(function: str, *types: type) -> type | None:
    target = {"abs": abs, "min": min, "max": max, "int": int, "float": float, "round": round,
              "math.sqrt": math.sqrt, "math.floor": math.floor, "math.sin": math.sin,
              "math.fabs": math.fabs, "math.ceil": math.ceil, "math.exp": math.exp,
              "math.atan2": math.atan2, "math.copysign": math.copysign}[function]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return type(target(*(_sample(t) for t in types)))
        except Exception:
            return None


def is_int(t) -> bool:
    return t in INTLIKE


def is_float(t) -> bool:
    return t in FLOATLIKE


# --------------------------------------------------------------------------------------
# Programs


@dataclass
class ArraySpec:
    name: str
    container: str            # "list" or "ndarray"
    element: str              # "int" / "float" / "bool" for lists, a dtype name for arrays
    dims: tuple               # dimension symbols, e.g. ("N",) or ("N", "M")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_type(self):
        if self.container == "list":
            return {"int": PY_INT, "float": PY_FLOAT, "bool": PY_BOOL}[self.element]
        return DTYPES[self.element]


@dataclass
class Program:
    seed: int
    source: str
    parameters: list                       # names, in order
    make_calls: object = None              # () -> [argument tuple per call], fresh objects each time

    def describe_calls(self) -> str:
        return "\n".join(f"# call {k}: {format_arguments(self.parameters, call)}"
                         for k, call in enumerate(self.make_calls()))


def format_value(value) -> str:
    if isinstance(value, numpy.ndarray):
        notes = []
        if not value.flags.writeable:
            notes.append("read-only")
        if not value.flags.c_contiguous:
            notes.append(f"view: strides {value.strides}")
        elif value.base is not None and value.base.size != value.size:
            notes.append("view into a larger buffer")
        note = f"  # {', '.join(notes)}" if notes else ""
        return f"numpy.array({value.tolist()!r}, dtype=numpy.{value.dtype}){note}"
    if isinstance(value, float):
        if value != value:
            return "math.nan"
        if value in (math.inf, -math.inf):
            return "math.inf" if value > 0 else "-math.inf"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return repr(value)


def format_arguments(names, values) -> str:
    seen: dict[int, str] = {}
    parts = []
    for name, value in zip(names, values):
        if isinstance(value, (list, numpy.ndarray)) and id(value) in seen:
            parts.append(f"{name}={seen[id(value)]}")
            continue
        if isinstance(value, (list, numpy.ndarray)):
            seen[id(value)] = name
        parts.append(f"{name}={format_value(value)}")
    return ", ".join(parts)


class _Scope:
    """What a statement may read: loop variables (with the dimension their values
    stay inside, or None) and scalar variables with their classes."""

    def __init__(self, loops=(), scalars=None):
        self.loops = list(loops)             # [(name, dim or None)] outer first
        self.scalars = dict(scalars or {})   # name -> class

    def child(self):
        return _Scope(self.loops, self.scalars)


class Generator(HelperGeneration):
    MAX_DEPTH = 3

    def __init__(self, seed: int, avoid=frozenset()) -> None:
        self.seed = seed
        self.avoid = frozenset(avoid)  # features to leave out (e.g. "readonly" while a bug is open)
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.temp_count = 0
        r = self.rng
        # Features of this program (varied per seed to reach many corners).
        self.p_unsafe_index = r.choice([0.0, 0.02, 0.05, 0.12])
        self.p_unsafe_div = r.choice([0.0, 0.03, 0.1])
        self.p_unstable = r.choice([0.0, 0.0, 0.03, 0.08])
        self.big_ints = r.random() < 0.15
        self.special_floats = r.random() < 0.15
        self.use_math = r.random() < 0.5
        self.p_layout = r.choice([0.0, 0.0, 0.1, 0.3])

    # -- helpers -------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def temp(self) -> str:
        self.temp_count += 1
        return f"t{self.temp_count}"

    # -- parameters ------------------------------------------------------------------
    def choose_parameters(self) -> None:
        r = self.rng
        self.arrays: list[ArraySpec] = []
        count = r.choice([1, 2, 2, 3, 3, 4])
        names = iter("abcdefgh")
        for _ in range(count):
            rank = 1 if r.random() < 0.65 else 2
            container = "list" if r.random() < 0.55 else "ndarray"
            if container == "list":
                element = r.choice(["int", "int", "float", "float", "float"] + (["bool"] if r.random() < 0.1 else []))
            else:
                element = r.choice(["float64", "float64", "int64", "int64", "int32", "float32"]
                                   + (["bool"] if r.random() < 0.05 else []))
            dims = (r.choice("NNM"),) if rank == 1 else r.choice([("N", "M"), ("M", "N"), ("N", "N"), ("M", "M")])
            name = next(names)
            if rank == 2:
                name = name.upper()
            self.arrays.append(ArraySpec(name, container, element, dims))
        self.scalar_params = {"n": PY_INT, "m": PY_INT, "k": PY_INT, "q": PY_INT, "s": PY_FLOAT}
        self.parameters = [a.name for a in self.arrays] + list(self.scalar_params)
        # aliasing: a second name for one array, or a row of a matrix passed as a vector
        self.alias = None
        if r.random() < 0.1 and len(self.arrays) >= 2:
            first, second = r.sample(self.arrays, 2)
            if first.rank == second.rank == 1:
                kind = r.choice(["same", "overlap", "overlap"])
                if kind == "overlap":
                    first.container = "ndarray"
                    if first.element not in DTYPES:
                        first.element = r.choice(["float64", "int64"])
                second.container, second.element, second.dims = first.container, first.element, first.dims
                self.alias = (kind, first.name, second.name)
            elif first.rank == 2 and second.rank == 1:
                second.container, second.element, second.dims = first.container, first.element, (first.dims[1],)
                self.alias = ("row", first.name, second.name)
        self.shared_rows = r.random() < 0.04

    # -- dimension expressions -----------------------------------------------------------
    def dim_expr(self, dim: str) -> str:
        """An expression for the size ``dim`` (mostly exact, via len/shape/n/m)."""
        r = self.rng
        options = [("n" if dim == "N" else "m")]
        for a in self.arrays:
            if a.dims[0] == dim:
                options.append(f"len({a.name})")
            if a.rank == 2 and a.dims[1] == dim:
                options.append(f"len({a.name}[0])")
                if a.container == "ndarray":
                    options.append(f"{a.name}.shape[1]")
            if a.container == "ndarray" and a.dims[0] == dim:
                options.append(f"{a.name}.shape[0]")
        return r.choice(options)

    # -- ranges ------------------------------------------------------------------------------
    def range_header(self, scope: _Scope, depth: int) -> tuple[str, str | None]:
        """(range(...) text, the dimension the loop variable stays inside or None)."""
        r = self.rng
        dim = r.choice("NNM")
        D = self.dim_expr(dim)
        outer = [(name, d) for name, d in scope.loops if d == dim]
        choice = r.random()
        if outer and choice < 0.35:  # a range depending on an outer loop variable
            v = r.choice(outer)[0]
            form = r.choice([f"range({v})", f"range({v}, {D})", f"range({v} + 1, {D})",
                             f"range(0, {v}, 2)", f"range({v}, -1, -1)", f"range({D} - 1, {v}, -1)",
                             f"range({v} - 1, -1, -2)"])
            return form, dim
        if choice < 0.75:
            form = r.choice([f"range({D})", f"range({D})", f"range(len({self.array_with_dim0(dim)}))",
                             f"range(1, {D})", f"range(0, {D}, 2)", f"range({D} - 1, -1, -1)",
                             f"range({D} - 1, 0, -2)", f"range(1, {D} - 1)", f"range({D} - 2, -1, -3)"])
            return form, dim
        if choice < 0.82:  # zero-trip ranges (or nearly)
            return r.choice([f"range(0)", f"range({D}, {D})", f"range(0, {D}, -1)", f"range({D}, 0)",
                             "range(-3)"]), dim
        if choice < 0.92:  # a small repetition count, independent of the arrays
            return r.choice(["range(3)", "range(5)", "range(2, 9)", "range(abs(k) + 1)", "range(10, 0, -3)",
                             "range(q % 7)", "range(40)"]), None
        # a step or bound from a parameter: k may be 0 (ValueError) or negative
        return r.choice([f"range(0, {D}, k)", f"range({D} - 1, -1, k)", f"range(k, {D})",
                         f"range(0, {D}, abs(k) + 1)", f"range(k)"]), None

    def array_with_dim0(self, dim: str) -> str:
        names = [a.name for a in self.arrays if a.dims[0] == dim]
        return self.rng.choice(names) if names else ("n" if dim == "N" else "m")

    # -- subscripts -----------------------------------------------------------------------------
    def index(self, array: ArraySpec, d: int, scope: _Scope) -> str:
        r = self.rng
        dim = array.dims[d]
        inside = [name for name, ld in scope.loops if ld == dim]
        if array.rank == 1 or d == 0:
            D = self.dim_expr(dim)
        elif r.random() < 0.7:
            D = f"len({array.name}[0])" if array.container == "list" or r.random() < 0.5 else f"{array.name}.shape[1]"
        else:
            D = self.dim_expr(dim)
        if r.random() < self.p_unsafe_index:
            anyvar = [name for name, _ in scope.loops] or ["0"]
            v = r.choice(anyvar)
            return r.choice([f"{v} + 1", f"{v} + k", f"2 * {v}", f"{v} - {D}", f"{D}", f"-{D} - 1",
                             f"{v} * {v}", f"{v} + q", f"{v} // 2 + 1"])
        if r.random() < 0.03:
            ints = [a for a in self.arrays if a.rank == 1 and is_int(a.element_type)
                    and a.element_type not in (PY_BOOL,) and a.dims[0] in [ld for _, ld in scope.loops]]
            if ints:
                source = r.choice(ints)
                v = r.choice([name for name, ld in scope.loops if ld == source.dims[0]])
                return f"{source.name}[{v}] % {D}"
        if r.random() < 0.005:
            v = r.choice([name for name, _ in scope.loops] or ["1"])
            return f"{v} / 1"  # a float index: TypeError (list) or IndexError (NumPy)
        if not inside:
            return r.choice(["0", "-1", f"{D} - 1", "0", f"k % {D}"])
        v = r.choice(inside)
        return r.choice([v, v, v, f"{v} - 1", f"{D} - 1 - {v}", f"-1 - {v}", f"({v} + 3) % {D}",
                         f"{v} // 2", f"{v} - {D}", f"({v} * 7 + k) % {D}", f"{v} % {D}"])

    def element(self, array: ArraySpec, scope: _Scope) -> str:
        indices = [self.index(array, d, scope) for d in range(array.rank)]
        if array.container == "ndarray" and array.rank == 2 and self.rng.random() < 0.5:
            return f"{array.name}[{indices[0]}, {indices[1]}]"
        return array.name + "".join(f"[{i}]" for i in indices)

    # -- expressions ------------------------------------------------------------------------------
    def int_constant(self) -> str:
        r = self.rng
        if self.big_ints and r.random() < 0.25:
            return r.choice(["2147483647", "4294967296", "1000000007", "3037000499", "9223372036854775807",
                             "-9223372036854775807", "1099511627776", "-(2 ** 62)"])
        return str(r.choice([0, 1, 1, 2, 2, 3, 3, 5, 7, 10, -1, -2, -3, 100]))

    def float_constant(self) -> str:
        r = self.rng
        if self.special_floats and r.random() < 0.2:
            return r.choice(["1e308", "-0.0", "5e-324", "1e-300", "math.inf", "math.nan", "-math.inf",
                             "1e16", "0.1"])
        return r.choice(["0.5", "1.5", "2.0", "-0.25", "3.0", "0.1", "1.0", "-1.5", "0.0", "10.0", "1e-3"])

    def leaf(self, kind: str, scope: _Scope) -> tuple[str, type]:
        r = self.rng
        options = []
        arrays = [a for a in self.arrays
                  if all(any(ld == dim for _, ld in scope.loops) for dim in a.dims) or r.random() < 0.3]
        want_int = kind == "int"
        for a in arrays:
            if (is_int(a.element_type) == want_int) or r.random() < 0.2:
                options.append(("array", a))
        for name, _ in scope.loops:
            if want_int or r.random() < 0.3:
                options.append(("var", name, PY_INT))
        for name, t in scope.scalars.items():
            if is_int(t) == want_int or r.random() < 0.15:
                options.append(("var", name, t))
        options.append(("const",))
        options.append(("const",))
        if want_int and r.random() < 0.08:
            kind = r.choice(["int", "float"])
            (a, ta), (b, tb) = self.leaf(kind, scope), self.leaf(kind, scope)
            op = r.choice(["<", "<=", ">", "==", "!="])
            t = result_type(op, ta, tb)
            if t is not None:
                return f"({a} {op} {b})", t
        if r.random() < 0.03:
            (a, ta), (b, tb) = self.leaf(kind, scope), self.leaf(kind, scope)
            if ta is tb:
                return f"({a} {r.choice(['and', 'or'])} {b})", ta
        pick = r.choice(options)
        if pick[0] == "array":
            a = pick[1]
            return self.element(a, scope), a.element_type
        if pick[0] == "var":
            return pick[1], pick[2]
        if want_int:
            return self.int_constant(), PY_INT
        return self.float_constant(), PY_FLOAT

    def expr(self, kind: str, scope: _Scope, depth: int = 3) -> tuple[str, type]:
        """An expression of kind "int" or "float" (the class may be Python's or NumPy's),
        sometimes passed to a helper function (helpers.py)."""
        text, t = self.plain_expr(kind, scope, depth)
        return self.maybe_call(text, t, kind, scope)

    def plain_expr(self, kind: str, scope: _Scope, depth: int = 3) -> tuple[str, type]:
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.leaf(kind, scope)
        roll = r.random()
        if roll < 0.5:
            return self.binary(kind, scope, depth)
        if roll < 0.58:
            text, t = self.expr(kind, scope, depth - 1)
            result = {PY_BOOL: PY_INT, NUMPY_BOOL: None}.get(t, t)
            if result is None:
                return text, t
            if t in (PY_INT, NP_I64, NP_I32) and r.random() < 0.2:
                return f"~{self.wrap(text)}", t
            return f"-{self.wrap(text)}", result
        if roll < 0.66:
            text, t = self.expr(kind, scope, depth - 1)
            result = call_type("abs", t)
            return (f"abs({text})", result) if result is not None else (text, t)
        if roll < 0.76:
            function = r.choice(["min", "max"])
            (a, ta), (b, tb) = self.same_type_pair(kind, scope, depth - 1)
            if r.random() < 0.3:
                c, tc = self.coerce(*self.expr(kind, scope, depth - 1), ta)
                if tc is ta:
                    return f"{function}({a}, {b}, {c})", ta
            return f"{function}({a}, {b})", ta
        if roll < 0.84:
            test = self.condition(scope, depth - 1)
            (a, ta), (b, tb) = self.same_type_pair(kind, scope, depth - 1)
            return f"({a} if {test} else {b})", ta
        return self.call(kind, scope, depth)

    def wrap(self, text: str) -> str:
        simple = text.replace("_", "").replace(".", "").isalnum() or (text.endswith("]") and "(" not in text and " " not in text)
        return text if simple else f"({text})"

    def coerce(self, text: str, t: type, target: type) -> tuple[str, type]:
        """Convert an expression to the class ``target`` where a Python conversion exists."""
        if t is target:
            return text, t
        if target is PY_INT:
            return f"int({text})", PY_INT
        if target is PY_FLOAT:
            return f"float({text})", PY_FLOAT
        return text, t

    def same_type_pair(self, kind, scope, depth):
        a, ta = self.expr(kind, scope, depth)
        b, tb = self.expr(kind, scope, depth)
        if ta is not tb:
            target = PY_INT if kind == "int" else PY_FLOAT
            if self.chance(self.p_unstable):
                return (a, ta), (b, tb)
            a, ta = self.coerce(a, ta, target)
            b, tb = self.coerce(b, tb, target)
        return (a, ta), (b, tb)

    def binary(self, kind: str, scope: _Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if kind == "int":
            op = r.choice(["+", "+", "-", "-", "*", "*", "//", "%", "&", "|", "^", "**", "<<", ">>"])
            if op in ("**", "<<", ">>") and r.random() < 0.6:
                op = "*"
        else:
            op = r.choice(["+", "+", "-", "*", "*", "/", "/", "//", "%", "**"])
            if op == "**" and r.random() < 0.5:
                op = "+"
        left_kind = kind if kind == "int" or r.random() < 0.75 else "int"
        a, ta = self.expr(left_kind, scope, depth - 1)
        if op == "**":
            b, tb = (r.choice(["2", "2", "3", "0", "-1"]), PY_INT) if kind == "int" else (
                r.choice(["2", "0.5", "2.0", "-1", "3"]), PY_INT)
            if kind == "float" and "." in b:
                tb = PY_FLOAT
            if kind == "float" and not is_float(ta):
                a, ta = f"float({a})", PY_FLOAT
        elif op in ("<<", ">>"):
            b, tb = self.expr("int", scope, depth - 1)
            b = f"({b}) % 8" if r.random() < 0.9 else b
            tb = result_type("%", tb, PY_INT) or tb
        elif op in ("//", "%", "/"):
            b, tb = self.divisor(kind, scope, depth - 1)
        else:
            right_kind = kind if kind == "int" or r.random() < 0.7 else "int"
            b, tb = self.expr(right_kind, scope, depth - 1)
        if op in ("&", "|", "^", "<<", ">>") and not (is_int(ta) and is_int(tb)):
            op = "+"
        if kind == "int" and op == "/":
            op = "//"
        result = result_type(op, ta, tb)
        if result is None or (kind == "int" and not is_int(result) and op != "**"):
            op = "+"
            result = result_type(op, ta, tb)
        if result is None:
            return a, ta
        if result is NUMPY_BOOL or result is PY_BOOL:
            result = PY_INT if result is PY_BOOL else result
        return f"{self.wrap(a)} {op} {self.wrap(b)}", result

    def divisor(self, kind: str, scope: _Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if r.random() < self.p_unsafe_div:
            return self.expr(kind if r.random() < 0.5 else "int", scope, depth)
        roll = r.random()
        if roll < 0.45:
            if kind == "int":
                return r.choice(["2", "3", "7", "-3", "10", "-1"]), PY_INT
            text = r.choice(["2.0", "3.0", "0.5", "-4.0", "7", "3"])
            return text, PY_FLOAT if "." in text else PY_INT
        e, t = self.expr(kind, scope, depth)
        if is_int(t):
            if t in (PY_BOOL, NUMPY_BOOL):
                return "2", PY_INT
            text = f"(abs({e}) % 5 + 1)" if r.random() < 0.5 else f"({e} * {e} + 1)"
            return text, result_type("+", t, PY_INT) or t
        return f"({e} * {e} + 1.0)", result_type("+", t, PY_FLOAT) or t

    def call(self, kind: str, scope: _Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if kind == "int":
            a, ta = self.expr("float", scope, depth - 1)
            function = r.choice(["int", "int", "round"] + (["math.floor", "math.ceil"] if self.use_math else []))
            t = call_type(function, ta)
            return (f"{function}({a})", t) if t is not None and is_int(t) else (f"int({a})", call_type("int", ta) or PY_INT)
        a, ta = self.expr(r.choice(["int", "float"]), scope, depth - 1)
        functions = ["float"]
        if self.use_math:
            functions += ["math.sqrt", "math.sin", "math.fabs", "math.exp", "math.atan2", "math.copysign"]
        function = r.choice(functions)
        if function == "math.sqrt" and r.random() < 0.9:
            a = f"abs({a})"
        if function == "math.exp":
            a = f"{self.wrap(a)} % 50" if r.random() < 0.8 else a
            ta = result_type("%", ta, PY_INT) or ta
        if function in ("math.atan2", "math.copysign"):
            b, tb = self.expr("float", scope, depth - 1)
            t = call_type(function, ta, tb)
            return (f"{function}({a}, {b})", t) if t else (f"float({a})", PY_FLOAT)
        t = call_type(function, ta)
        return (f"{function}({a})", t) if t else (f"float({a})", PY_FLOAT)

    def condition(self, scope: _Scope, depth: int) -> str:
        return self.maybe_call_in_condition(self.plain_condition(scope, depth), scope)

    def plain_condition(self, scope: _Scope, depth: int) -> str:
        r = self.rng
        roll = r.random()
        if roll < 0.75 or depth <= 0:
            kind = r.choice(["int", "int", "float"])
            a, _ = self.expr(kind, scope, min(depth, 1))
            b, _ = self.expr(r.choice([kind, "int", "float"]), scope, min(depth, 1))
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            if r.random() < 0.1:
                c, _ = self.expr(kind, scope, 0)
                return f"{self.wrap(a)} {op} {self.wrap(b)} {r.choice(['<', '<=', '!='])} {self.wrap(c)}"
            return f"{self.wrap(a)} {op} {self.wrap(b)}"
        if roll < 0.9:
            return f"{self.condition(scope, depth - 1)} {r.choice(['and', 'or'])} {self.condition(scope, depth - 1)}"
        if roll < 0.95:
            return f"not ({self.condition(scope, depth - 1)})"
        v = r.choice([name for name, _ in scope.loops] or ["k"])
        return r.choice([f"{v} % 2 == 0", f"{v} > k", f"{v} == 0"])

    # -- statements ---------------------------------------------------------------------------------
    def statements(self, scope: _Scope, depth: int, loop_depth: int, count: int, in_loop: bool) -> None:
        for _ in range(count):
            self.statement(scope, depth, loop_depth, in_loop)
            self.maybe_helper_statement(scope, depth, in_loop)

    def statement(self, scope: _Scope, depth: int, loop_depth: int, in_loop: bool) -> None:
        r = self.rng
        roll = r.random()
        if depth >= 6:  # deep enough: simple statements only
            roll = r.random() * 0.62
        if roll < 0.32:
            self.store(scope, depth)
        elif roll < 0.52:
            self.accumulate(scope, depth)
        elif roll < 0.62:
            self.temporary(scope, depth)
        elif roll < 0.74:
            self.conditional(scope, depth, loop_depth, in_loop)
        elif roll < 0.88 and loop_depth < self.MAX_DEPTH:
            self.for_loop(scope, depth, loop_depth)
        elif roll < 0.93 and loop_depth <= self.MAX_DEPTH:
            self.while_loop(scope, depth, loop_depth)
        elif roll < 0.96 and in_loop:
            self.jump(scope, depth)
        elif roll < 0.955:
            self.reduction(scope, depth)
        elif roll < 0.965:
            self.multiple(scope, depth)
        elif roll < 0.98 and scope.loops:
            # read the loop variable of an inner loop after it, or reassign a loop variable
            v = r.choice(scope.loops)[0]
            if r.random() < 0.5:
                self.emit(depth, f"acc = acc + {v}")
            else:
                self.emit(depth, f"{v} = {v} + 1")
        else:
            self.store(scope, depth)

    def store(self, scope: _Scope, depth: int) -> None:
        r = self.rng
        array = r.choice(self.arrays)
        target = self.element(array, scope)
        element = array.element_type
        if element in (PY_BOOL, NUMPY_BOOL):
            condition = self.condition(scope, 1)
            self.emit(depth, f"{target} = {f'bool({condition})' if r.random() < 0.6 else condition}")
            return
        kind = "int" if is_int(element) else "float"
        if array.container == "ndarray" and r.random() < 0.15:
            kind = "float" if kind == "int" else "int"
        value, t = self.expr(kind, scope, r.choice([1, 2, 3]))
        if r.random() < 0.4:
            op = r.choice(["+", "+", "-", "*", "//", "%", "/"] if kind == "float" else ["+", "+", "-", "*", "//", "%", "|", "^"])
            if op in ("//", "%", "/"):
                value, t = self.divisor(kind, scope, 1)
            if array.container == "list":
                if result_type(op, element, t) is not element:
                    value, t = self.coerce(value, t, element)
                if result_type(op, element, t) is not element:
                    op = "+"
                if result_type(op, element, t) is not element and not self.chance(self.p_unstable):
                    return self.emit(depth, f"{target} = {self.coerce(value, t, element)[0]}")
            self.emit(depth, f"{target} {op}= {value}")
            return
        if array.container == "list" and t is not element and not self.chance(self.p_unstable):
            value, t = self.coerce(value, t, element)
        self.emit(depth, f"{target} = {value}")

    def accumulate(self, scope: _Scope, depth: int) -> None:
        r = self.rng
        names = [n for n in scope.scalars if n in self.accumulators]
        name = r.choice(names)
        t = scope.scalars[name]
        kind = "int" if is_int(t) else "float"
        scope = scope.child()
        for accumulator in self.accumulators:
            if is_int(self.accumulators[accumulator]):
                scope.scalars.pop(accumulator, None)
        if name == "p":  # a product: overflows int64 when the loop is long enough
            value, vt = self.expr("int", scope, 1)
            if r.random() < 0.7:
                loops = [n for n, _ in scope.loops]
                value, vt = r.choice(["q", "(q + 1)", "3", "k"] + [f"({v} + 2)" for v in loops]), PY_INT
            op = "*"
        else:
            value, vt = self.expr(kind, scope, r.choice([1, 2, 3]))
            op = r.choice(["+", "+", "-", "*", "^"] if kind == "int" else ["+", "+", "-", "*"])
            if op == "^" and not is_int(vt):
                op = "+"
        result = result_type(op, t, vt)
        if result is None or CTYPE.get(result) != CTYPE[t] or (result is not t and r.random() < 0.7):
            if not self.chance(self.p_unstable):
                value, vt = self.coerce(value, vt, t)
                result = result_type(op, t, vt)
        if r.random() < 0.5:
            self.emit(depth, f"{name} {op}= {value}")
        else:
            self.emit(depth, f"{name} = {name} {op} {self.wrap(value)}")

    def reduction(self, scope: _Scope, depth: int) -> None:
        """The reduction idioms a parallel loop may keep: s += e, s = max(s, e), if e > s: s = e."""
        r = self.rng
        name = r.choice([n for n in self.accumulators if n != "p"])
        t = self.accumulators[name]
        kind = "int" if is_int(t) else "float"
        arrays = [a for a in self.arrays if is_int(a.element_type) == (kind == "int")
                  and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if arrays and r.random() < 0.8:
            array = r.choice(arrays)
            value, vt = self.element(array, scope), array.element_type
        else:
            value, vt = self.expr(kind, scope, 1)
        if CTYPE.get(vt) != CTYPE[t] or r.random() < 0.3:
            value, vt = self.coerce(value, vt, t)
        form = r.choice(["if_gt", "if_lt", "max", "min", "add", "mul", "bit"])
        if form in ("if_gt", "if_lt"):
            lines = [f"if {self.wrap(value)} {'>' if form == 'if_gt' else '<'}{r.choice(['', '='])} {name}:",
                     f"    {name} = {value}"]
        elif form in ("max", "min"):
            operands = [name, value] if r.random() < 0.7 else [value, name]
            lines = [f"{name} = {form}({', '.join(operands)})"]
        elif form == "bit" and kind == "int" and is_int(vt):
            lines = [f"{name} {r.choice(['|', '^', '&'])}= {value}"]
        elif form == "mul" and kind == "float":
            lines = [f"{name} *= {value}"]
        else:
            lines = [f"{name} {r.choice(['+', '+', '-'])}= {value}"]
        if "reduction" in self.avoid:  # the same random choices were made: only the statement goes
            lines = ["pass"]
        for line in lines:
            self.emit(depth, line)

    def multiple(self, scope: _Scope, depth: int) -> None:
        r = self.rng
        if r.random() < 0.5:
            value, t = self.expr("int", scope, 1)
            self.emit(depth, f"acc, p = p, acc + {self.wrap(self.coerce(value, t, PY_INT)[0])}")
        else:
            first, second = self.temp(), self.temp()
            value, t = self.expr("float", scope, 2)
            self.emit(depth, f"{first} = {second} = {value}")
            scope.scalars[first] = scope.scalars[second] = t

    def temporary(self, scope: _Scope, depth: int) -> None:
        r = self.rng
        name = self.temp()
        kind = r.choice(["int", "float"])
        value, t = self.expr(kind, scope, r.choice([1, 2, 3]))
        self.emit(depth, f"{name} = {value}")
        if t in CTYPE:
            scope.scalars[name] = t
            if depth <= 1 or r.random() < 0.3:
                self.returns.append(name)

    def conditional(self, scope: _Scope, depth: int, loop_depth: int, in_loop: bool) -> None:
        r = self.rng
        self.emit(depth, f"if {self.condition(scope, 2)}:")
        late = None
        if r.random() < 0.25:  # bound in one branch only, read after the if
            late = f"c{self.temp_count + 1}"
            self.temp_count += 1
            target = r.choice([PY_INT, PY_FLOAT])
            value, t = self.expr("int" if target is PY_INT else "float", scope, 2)
            self.emit(depth + 1, f"{late} = {self.coerce(value, t, target)[0]}")
            if r.random() < 0.6:  # bound before the loops too (else: maybe UnboundLocalError)
                self.prelude.append(f"{late} = {r.choice(['0', '7', '-1']) if target is PY_INT else '0.5'}")
        self.statements(scope.child(), depth + 1, loop_depth, r.choice([1, 1, 2]), in_loop)
        if r.random() < 0.2:
            self.emit(depth, f"elif {self.condition(scope, 1)}:")
            self.statements(scope.child(), depth + 1, loop_depth, 1, in_loop)
        if r.random() < 0.4:
            self.emit(depth, "else:")
            self.statements(scope.child(), depth + 1, loop_depth, r.choice([1, 2]), in_loop)
        if late is not None:
            self.emit(depth, f"{'acc' if target is PY_INT else 'facc'} += {late}")

    def jump(self, scope: _Scope, depth: int) -> None:
        self.emit(depth, f"if {self.condition(scope, 1)}:")
        self.emit(depth + 1, self.rng.choice(["break", "continue"]))

    def while_loop(self, scope: _Scope, depth: int, loop_depth: int) -> None:
        r = self.rng
        counter = self.temp()
        bound = r.choice(["3", "2", "k", "4"])
        self.emit(depth, f"{counter} = 0")
        test = f"{counter} < {bound}"
        if r.random() < 0.5:
            test += f" and {self.condition(scope, 1)}"
        self.emit(depth, f"while {test}:")
        self.emit(depth + 1, f"{counter} += 1")
        inner = scope.child()
        inner.scalars[counter] = PY_INT
        self.statements(inner, depth + 1, loop_depth + 1, r.choice([1, 2]), True)

    def for_loop(self, scope: _Scope, depth: int, loop_depth: int) -> None:
        r = self.rng
        header, dim = self.range_header(scope, depth)
        used = {name for name, _ in scope.loops}
        var = next(v for v in ("i", "j", "l", "u", "w") if v not in used)
        if r.random() < 0.03:  # a loop variable that rebinds a name in use (an outer loop's, or k)
            var = r.choice(sorted(used) + ["k"])
            dim = dim if var != "k" else None
        long_range = r.random() < 0.03
        if long_range and "longrange" in self.avoid:
            long_range = False
            r.random()  # the same random choices as with the feature, for everything that follows
        if long_range:  # more than 2**63 values (or nearly): only a break ends it
            start, stop, step, last = r.choice([
                ("-k - 3", "sys.maxsize", "1", f"{var} >= 6 - k"),
                ("k", "-sys.maxsize - 1", "-1", f"{var} <= k - 7"),
                ("-sys.maxsize", "sys.maxsize", "1", f"{var} >= -sys.maxsize + 5"),
                ("-q", "q", "1", f"{var} >= -q + 4"),
                ("sys.maxsize", "-sys.maxsize", "-3", f"{var} < sys.maxsize - 20"),
                ("0", "sys.maxsize", "1", f"{var} > 6")])
            header, dim = f"range({start}, {stop}, {step})", None
        self.emit(depth, f"for {var} in {header}:")
        if long_range:
            self.emit(depth + 1, f"if {last}:")
            self.emit(depth + 2, "break")
        inner = scope.child()
        inner.loops.append((var, dim))
        self.loop_vars.add(var)
        if loop_depth == 0:
            self.top_loop_vars.add(var)
        self.statements(inner, depth + 1, loop_depth + 1, r.choice([1, 2, 2, 3]), True)
        if loop_depth > 0 and r.random() < 0.2:  # the variable after its (maybe zero-trip) loop
            self.emit(depth, f"acc = acc + {var}")

    # -- the whole program ---------------------------------------------------------------------
    def program(self) -> Program:
        r = self.rng
        self.choose_parameters()
        self.init_helpers()  # from a random stream of its own: self.rng is not used
        self.loop_vars: set[str] = set()
        self.top_loop_vars: set[str] = set()
        self.prelude: list[str] = []
        self.returns: list[str] = []
        self.emit(0, "import math")
        self.emit(0, "import sys")
        self.emit(0, "import numpy")
        self.emit(0, "")
        self.emit(0, "")
        for line in self.module_lines:
            self.emit(0, line)
        self.emit(0, f"def kernel({', '.join(self.parameters)}):")
        scope = _Scope(scalars=dict(self.scalar_params))
        self.accumulators = {"acc": PY_INT, "facc": PY_FLOAT, "p": PY_INT}
        self.emit(1, "acc = 0")
        self.emit(1, "facc = 0.0" if r.random() < 0.8 else "facc = s")
        self.emit(1, "p = 1" if r.random() < 0.8 else "p = q")
        if r.random() < 0.2:
            self.accumulators["g"] = PY_FLOAT
            self.emit(1, "g = s * 0.5")
        scope.scalars.update(self.accumulators)
        prelude_at = len(self.lines)
        self.prelude += self.kernel_lines  # closures and lambdas
        for _ in range(r.choice([1, 1, 2, 2, 3])):
            if r.random() < 0.15:
                self.temporary(scope, 1)
            self.for_loop(scope, 1, 0)
            if r.random() < 0.2 and self.loop_vars:
                self.emit(1, f"acc = acc + {r.choice(sorted(self.loop_vars))}")
        returned = list(self.accumulators) + sorted(self.top_loop_vars)[: r.choice([0, 1, 1])]
        if r.random() < 0.1 and self.loop_vars:
            returned.append(r.choice(sorted(self.loop_vars)))
        returned += [t for t in self.returns if r.random() < 0.3]
        self.emit(1, f"return {', '.join(returned)}")
        self.lines[prelude_at:prelude_at] = ["    " + line for line in self.prelude]
        source = "\n".join(self.lines) + "\n"
        state = self.rng.getstate()

        def make_calls():  # replays the same random choices: equal, fresh arguments
            self.rng.setstate(state)
            return self.calls()
        return Program(self.seed, source, self.parameters, make_calls)

    # -- arguments ---------------------------------------------------------------------------------
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


def _floats(value):
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return float(value)


FEATURES = ("readonly", "longrange", "reduction", "containerswitch", "helpers", "cells")  # what ``avoid`` may name


def generate(seed: int, avoid=()) -> Program:
    """The program of one seed (deterministic); ``avoid``: features from FEATURES to leave out."""
    unknown = set(avoid) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown generator features {sorted(unknown)}; known: {FEATURES}")
    return Generator(seed, avoid).program()


if __name__ == "__main__":  # python -m tests.fuzz.generator SEED: print a program and its calls
    import sys

    for argument in sys.argv[1:] or ["0"]:
        program = generate(int(argument))
        print(f"# seed {program.seed}")
        print(program.source)
        print(program.describe_calls())
