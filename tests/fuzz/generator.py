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
  ``if``/``elif``/``else``; ``break``/``continue``; ``return`` or ``raise`` from inside the loops and
  ``for ... else`` (feature ``exits``); in a quarter of the programs a list ``out`` the
  loops append floats to (``out.append(e)``, ``out += [e]``; feature ``appends``; in half of
  those ``out`` starts with a value and is read back as it grows, feature ``grown``); at a
  loop body's end, now and then, two rows of a list of lists exchanged (``A[i], A[p] =
  A[p], A[i]``, feature ``rowswaps``), each
  drawn from a stream of their own, so that ``avoid`` gives the earlier programs; in a
  fifth of the programs, lists of floats whose whole-number elements are often ints
  (feature ``mixed``, a stream of its own too); between the top-level loops, folds of
  one 1-D array that become expression sites (``any``/``all`` of a generator, ``min``/
  ``max`` with ``default=`` or ``key=``, ``sum`` of a generator; feature ``folds``); loops
  over a list of 2-tuples ``pairs`` (statements.tuple_loop; feature ``tuples``, own stream);
  before the return, sums of squares of one array (ints and floats mixed in a ``mixed``
  list: Python 3.12's compensated sum from its first float on) and a last loop over a
  work list of the kernel's own (``work = [0.0] * (len(a) + 1)`` or rows of such lists),
  which megaguards does not box back (feature ``scratch``, own stream); inside loops,
  loops over tuple or list displays (``for dv in (-1, 0, 2)``, floats, rows for ``dv, dw``;
  statements.display_loop, feature ``displays``, own stream); a table built row by row
  (statements.table_rows, feature ``rows``) and values grouped by key, ``groups[k].append(v)``
  into a list or dict of lists, or the rows of a list walked (statements.keyed_groups,
  feature ``keyed``), and a loop over a table's rows whose parts a split or an exchange of
  loops serves (statements.split_parts, feature ``splits``), each from its own stream;
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

Parts: ``classes.py`` (the classes of values), this file (parameters, the whole program),
``expressions.py``, ``statements.py``, ``helpers.py`` (helper functions) and ``inputs.py``
(the calls' arguments); the last four are mixins of ``Generator``.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy

from .classes import (DTYPES, PY_BOOL, PY_FLOAT, PY_INT, ArraySpec, Scope, is_int)
from .expressions import ExpressionGeneration
from .helpers import HelperGeneration
from .inputs import InputGeneration
from .statements import StatementGeneration

# --------------------------------------------------------------------------------------
# Programs


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
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
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


class Generator(ExpressionGeneration, HelperGeneration, StatementGeneration, InputGeneration):
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
        # One seed in five is an edge-value program: NaN, infinities, -0.0, subnormals and
        # float32 overflow in its constants and inputs (with the seed's NumPy error state,
        # harness.ERROR_STATES, and NaN signs compared).
        self.special_floats = r.random() < 0.15 or seed % 5 == 2
        self.use_math = r.random() < 0.5
        self.p_layout = r.choice([0.0, 0.0, 0.1, 0.3])
        # Double buffers (``a, b = b, a`` at a loop body's end) draw from a stream of their
        # own: every other choice, and so every earlier seed's program, stays as it was.
        self.swap_rng = random.Random(f"swaps {seed}")
        self.rowswap_rng = random.Random(f"row swaps {seed}")   # rows of a table exchanged (RowSwap)
        # Early exits (``return`` inside loops, ``for ... else``) and a list the loops append
        # to (issue 29's items 2 and 3): streams of their own too.
        self.exit_rng = random.Random(f"exits {seed}")
        self.appends = "appends" not in self.avoid and self.exit_rng.random() < 0.25
        # Half of those start ``out`` with a value and read it back as it grows (``out[-1]``,
        # ``out[k % len(out)]``: a list grown in place), from a stream of its own.
        self.grow_rng = random.Random(f"grown {seed}")
        self.grown = self.appends and "grown" not in self.avoid and self.grow_rng.random() < 0.5
        # Lists of floats holding ints too (issue 29's item 1: typed in by hand, [3, 2.5, 4]).
        self.mixed_rng = random.Random(f"mixed {seed}")
        self.mixed_lists = "mixed" not in self.avoid and self.mixed_rng.random() < 0.2
        # Folds of one array between the loops (expression sites: any/all, min/max with
        # default=, sum of a generator), and lists of tuples read by tuple loop targets
        # (issue 29's item 6): streams of their own.
        self.fold_rng = random.Random(f"folds {seed}")
        r = self.tuple_rng = random.Random(f"tuples {seed}")
        self.pairs = None if "tuples" in self.avoid or r.random() >= 0.2 else \
            (r.choice([PY_INT, PY_FLOAT, PY_FLOAT]), r.choice([PY_INT, PY_FLOAT]), r.choice("NM"))
        # A last loop over a work list of the kernel's own, and sums of squares whose terms
        # may be ints or floats (statements.work_list / square_sums): a stream of their own.
        self.scratch_rng = random.Random(f"scratch {seed}")
        # Loops over tuple or list displays inside loops (statements.display_loop): likewise.
        self.display_rng = random.Random(f"displays {seed}")
        # A table built row by row (statements.table_rows): likewise.
        self.rows_rng = random.Random(f"rows {seed}")
        # Values grouped by key (statements.keyed_groups): likewise.
        self.keyed_rng = random.Random(f"keyed {seed}")
        # A loop over a table's rows whose parts a split or an exchange serves (statements.split_parts).
        self.splits_rng = random.Random(f"splits {seed}")

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
        self.parameters = [a.name for a in self.arrays] + list(self.scalar_params) + ["pairs"] * bool(self.pairs)
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
    def range_header(self, scope: Scope, depth: int) -> tuple[str, str | None]:
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
            return r.choice(["range(0)", f"range({D}, {D})", f"range(0, {D}, -1)", f"range({D}, 0)",
                             "range(-3)"]), dim
        if choice < 0.92:  # a small repetition count, independent of the arrays
            return r.choice(["range(3)", "range(5)", "range(2, 9)", "range(abs(k) + 1)", "range(10, 0, -3)",
                             "range(q % 7)", "range(40)"]), None
        # a step or bound from a parameter: k may be 0 (ValueError) or negative
        return r.choice([f"range(0, {D}, k)", f"range({D} - 1, -1, k)", f"range(k, {D})",
                         f"range(0, {D}, abs(k) + 1)", "range(k)"]), None

    def array_with_dim0(self, dim: str) -> str:
        names = [a.name for a in self.arrays if a.dims[0] == dim]
        return self.rng.choice(names) if names else ("n" if dim == "N" else "m")

    # -- subscripts -----------------------------------------------------------------------------
    def index(self, array: ArraySpec, d: int, scope: Scope) -> str:
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

    def element(self, array: ArraySpec, scope: Scope) -> str:
        indices = [self.index(array, d, scope) for d in range(array.rank)]
        if array.container == "ndarray" and array.rank == 2 and self.rng.random() < 0.5:
            return f"{array.name}[{indices[0]}, {indices[1]}]"
        return array.name + "".join(f"[{i}]" for i in indices)

    # -- expressions ------------------------------------------------------------------------------
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
        scope = Scope(scalars=dict(self.scalar_params))
        self.accumulators = {"acc": PY_INT, "facc": PY_FLOAT, "p": PY_INT}
        self.emit(1, "acc = 0")
        self.emit(1, "facc = 0.0" if r.random() < 0.8 else "facc = s")
        self.emit(1, "p = 1" if r.random() < 0.8 else "p = q")
        if r.random() < 0.2:
            self.accumulators["g"] = PY_FLOAT
            self.emit(1, "g = s * 0.5")
        scope.scalars.update(self.accumulators)
        if self.appends:
            self.emit(1, "out = [0.5]" if self.grown else "out = []")
        prelude_at = len(self.lines)
        self.prelude += self.kernel_lines  # closures and lambdas
        for _ in range(r.choice([1, 1, 2, 2, 3])):
            if r.random() < 0.15:
                self.temporary(scope, 1)
            self.for_loop(scope, 1, 0)
            self.fold(1)
            self.tuple_loop(scope, 1)
            if r.random() < 0.2 and self.loop_vars:
                self.emit(1, f"acc = acc + {r.choice(sorted(self.loop_vars))}")
        returned = list(self.accumulators) + sorted(self.top_loop_vars)[: r.choice([0, 1, 1])]
        if r.random() < 0.1 and self.loop_vars:
            returned.append(r.choice(sorted(self.loop_vars)))
        returned += [t for t in self.returns if r.random() < 0.3]
        if self.appends:
            returned.append("out")
        table = self.table_rows(scope)
        if table is not None:
            returned.append(table)
        groups = self.keyed_groups(scope)
        if groups is not None:
            returned.append(groups)
        returned += self.split_parts(scope)
        self.square_sums(1)
        self.work_list(scope)   # the last loop: nothing but the return after it
        self.emit(1, f"return {', '.join(returned)}")
        self.lines[prelude_at:prelude_at] = ["    " + line for line in self.prelude]
        source = "\n".join(self.lines) + "\n"
        state, mixed_state, tuple_state = self.rng.getstate(), self.mixed_rng.getstate(), self.tuple_rng.getstate()

        def make_calls():  # replays the same random choices: equal, fresh arguments
            self.rng.setstate(state)
            self.mixed_rng.setstate(mixed_state)
            self.tuple_rng.setstate(tuple_state)
            return self.with_pairs(self.calls())
        return Program(self.seed, source, self.parameters, make_calls)


FEATURES = ("readonly", "longrange", "reduction", "containerswitch", "helpers", "cells", "exits", "appends", "grown",
            "rowswaps",
            "mixed", "folds", "tuples", "scratch", "displays", "rows", "keyed", "splits")  # what ``avoid`` may name


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
