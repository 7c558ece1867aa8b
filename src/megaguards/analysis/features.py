"""Static features of a compiled loop for choosing its device (Leung et al.; Wang,
Grewe and O'Boyle): what one iteration of each loop of the nest costs, by kind of
operation, kept symbolic in the loops' trip counts.

``loop_template`` is pure analysis over the typed IR, done once per specialization.
``evaluate`` instantiates it on one entry's trip counts (from the kernel's prologue,
which computes every hoisted loop's range from the live-ins alone) and array sizes:
the numbers the cost model and the learned selector read.  A loop whose range is not
known before the loop (a ``while``, or a range the prologue does not compute) counts
``UNKNOWN_TRIPS`` iterations.

The prologue's range of a loop is the hull of its variable's values over every
iteration of the loops around it: for ``range(i, n)`` inside ``for i in range(n)`` that
is ``n`` values, while one entry runs ``n - i`` of them, ``n / 2`` on average.  A loop
whose bounds are affine in enclosing loop variables therefore counts its average trips:
with ``start = a + p*i`` and ``stop = b + q*i``, the hull is wider than the average
range by ``(|p| + |q|) * W / 2``, ``W`` being the span of ``i`` (a triangle halves, a
sliding window ``range(i - 1, i + 2)`` keeps its 3).
"""
from __future__ import annotations

import math
from itertools import repeat
from operator import add, mul

from ..record import record
from ..ir import nodes as ir
from .mapping import TRANSCENDENTAL

UNKNOWN_TRIPS = 16
KINDS = ("int", "float", "transcendental", "branch", "load", "store")
# Relative cost of one operation of each kind in the scalar "work" figure (a float
# division or a libm call costs far more than an add; loads hit caches mostly).
WEIGHTS = {"int": 1.0, "float": 1.0, "transcendental": 20.0, "branch": 1.0, "load": 1.0, "store": 1.0}
_WEIGHT_VECTOR = tuple(WEIGHTS[kind] for kind in KINDS)
FEATURE_NAMES = ("log_work", "log_parallel_trips", "log_band_trips", "log_inner_trips", "log_bytes",
                 "log_list_elements", "log_launches", "coalesced", "transcendental_share", "float_share",
                 "branch_share", "memory_share")


@record
class LoopCost:
    """The operations directly in one loop's body (not in loops nested in it)."""

    loop: int                 # nid of the ir.For / ir.While
    parent: int | None        # the enclosing loop's id (None: the site's outermost loop)
    counts: tuple             # count per KINDS entry
    parallel: bool            # planned parallel (OpenMP)
    step: int = 1             # |step| of the range (1 if not constant)
    narrowing: tuple = ()     # (enclosing loop id, |p| + |q|, its |step|): see the module doc


@record
class LoopTemplate:
    loops: tuple[LoopCost, ...]          # outer before inner
    outer_parallel: int | None           # nid of the outermost parallel loop
    coalesced: float                     # share of the band's accesses whose last subscript follows threadIdx.x


def _expression_counts(expression: ir.Expr, functions: dict, counts: dict) -> None:
    for node in ir.walk(expression):
        if isinstance(node, ir.BinOp):
            counts["float" if node.type is not None and node.type.is_float else "int"] += 1
        elif isinstance(node, ir.UnaryOp):
            counts["float" if node.type is not None and node.type.is_float else "int"] += 1
        elif isinstance(node, (ir.Compare, ir.BoolOp, ir.IfExp)):
            counts["branch"] += 1
        elif isinstance(node, ir.Call):
            canonical = functions.get(node.function, node.function)   # an inlined call's f.__globals__.math.sqrt too
            key = "transcendental" if canonical in TRANSCENDENTAL or canonical in ("math.sqrt", "math.hypot") else "float"
            counts[key] += 1
        elif isinstance(node, ir.Load):
            counts["load"] += 1


def _statement_counts(statements, functions: dict, counts: dict, nested: list) -> None:
    for statement in statements:
        if isinstance(statement, (ir.For, ir.While)):
            nested.append(statement)
            if isinstance(statement, ir.While):
                _expression_counts(statement.test, functions, counts)
            continue
        if isinstance(statement, ir.If):
            counts["branch"] += 1
            _expression_counts(statement.test, functions, counts)
            _statement_counts(statement.body, functions, counts, nested)
            _statement_counts(statement.orelse, functions, counts, nested)
            continue
        if isinstance(statement, ir.Store):
            counts["store"] += 1
        for value in statement.__dict__.values():
            for child in value if isinstance(value, tuple) else (value,):
                if isinstance(child, ir.Expr):
                    _expression_counts(child, functions, counts)


def coefficient(expression: ir.Expr, var: str) -> int | None:
    """The integer coefficient of ``var`` in ``expression``; None where it is not affine in it."""
    if isinstance(expression, ir.Name):
        return int(expression.id == var)
    if not any(isinstance(node, ir.Name) and node.id == var for node in ir.walk(expression)):
        return 0
    if isinstance(expression, ir.UnaryOp) and expression.op in ("-", "+"):
        inner = coefficient(expression.operand, var)
        return None if inner is None else (-inner if expression.op == "-" else inner)
    if isinstance(expression, ir.BinOp) and expression.op in ("+", "-"):
        left, right = coefficient(expression.left, var), coefficient(expression.right, var)
        if left is None or right is None:
            return None
        return left + right if expression.op == "+" else left - right
    if isinstance(expression, ir.BinOp) and expression.op == "*":
        for factor, other in ((expression.left, expression.right), (expression.right, expression.left)):
            value, inner = ir.int_constant(factor), coefficient(other, var)
            if value is not None and inner is not None:
                return value * inner
    return None


def _narrowing(loop, enclosing: tuple) -> tuple[int, tuple]:
    """(|step|, narrowing) of a ``for`` loop inside the ``enclosing`` ir.For nodes."""
    step = ir.int_constant(loop.step) if isinstance(loop, ir.For) else None
    if not step:
        return 1, ()
    found = []
    for outer in enclosing:
        outer_step = ir.int_constant(outer.step)
        start, stop = coefficient(loop.start, outer.var), coefficient(loop.stop, outer.var)
        if outer_step and start is not None and stop is not None and (start or stop):
            found.append((outer.nid, abs(start) + abs(stop), abs(outer_step)))
    return abs(step), tuple(found)


def loop_template(typed, plan=None, band=None) -> LoopTemplate:
    """Per-loop operation counts of a typed loop nest; ``plan`` (analysis.parallel) marks
    the parallel loops, ``band`` (analysis.mapping.GpuBand) the GPU thread mapping."""
    parallel = set(plan.loops) if plan is not None else set()
    loops: list[LoopCost] = []
    outer_parallel = None

    def visit(node, parent, enclosing):
        nonlocal outer_parallel
        counts = dict.fromkeys(KINDS, 0)
        nested: list = []
        _statement_counts(node.body, typed.functions, counts, nested)
        is_parallel = node.nid in parallel
        if is_parallel and outer_parallel is None:
            outer_parallel = node.nid
        step, narrowing = _narrowing(node, enclosing)
        loops.append(LoopCost(node.nid, parent, tuple(counts[k] for k in KINDS), is_parallel, step, narrowing))
        inside = enclosing + ((node,) if isinstance(node, ir.For) else ())
        for child in nested:
            visit(child, node.nid, inside)

    visit(typed.body, None, ())
    return LoopTemplate(tuple(loops), outer_parallel, _coalesced_share(band))


def trip_count_names(loop: ir.Stmt) -> frozenset:
    """The names an entry's trip counts depend on: those in the nest's ``for`` bounds and
    ``while`` tests, and (to a fixed point) those assigned to them inside the nest.  Other
    int live-ins (a pixel's coordinates, an offset) change the work of no entry."""
    names, assigned = set(), {}
    for node in ir.walk(loop):
        if isinstance(node, ir.For):
            names.update(n.id for part in (node.start, node.stop, node.step)
                         for n in ir.walk(part) if isinstance(n, ir.Name))
        elif isinstance(node, ir.While):
            names.update(n.id for n in ir.walk(node.test) if isinstance(n, ir.Name))
        elif isinstance(node, ir.Assign):
            assigned.setdefault(node.target, set()).update(
                n.id for n in ir.walk(node.value) if isinstance(n, ir.Name))
    pending = list(names)
    while pending:
        for name in assigned.get(pending.pop(), ()):
            if name not in names:
                names.add(name)
                pending.append(name)
    return frozenset(names)


def sizing_positions(loop: ir.Stmt, scalar_paths: tuple) -> tuple[int, ...]:
    """Positions in ``scalar_paths`` (a binding's scalars) of the live-ins that set trip counts."""
    names = trip_count_names(loop)
    return tuple(k for k, path in enumerate(scalar_paths) if path in names or path.split(".")[0] in names)


def _coalesced_share(band) -> float:
    """Accesses in the band whose last subscript mentions the threadIdx.x loop's variable
    (neighbouring threads touch neighbouring elements) or no band variable at all (one
    element for the whole warp), over all accesses; 0 without a GPU band."""
    if band is None:
        return 0.0
    x_var = band.loops[band.x_loop].var
    band_vars = {loop.var for loop in band.loops}
    total = good = 0
    for node in ir.walk(band.loops[-1]):
        if isinstance(node, (ir.Load, ir.Store)) and node.indices:
            total += 1
            last = {n.id for n in ir.walk(node.indices[-1]) if isinstance(n, ir.Name)}
            others = {n.id for index in node.indices[:-1] for n in ir.walk(index) if isinstance(n, ir.Name)}
            if x_var in last or not ((last | others) & band_vars):
                good += 1
    return good / total if total else 1.0


@record
class Features:
    work: float                 # weighted operations of the whole entry
    counts: dict                # operations by kind over the whole entry
    parallel_trips: int         # iterations of the outermost parallel loop (per entry into it)
    parallel_entries: int       # how often that loop starts (its enclosing loops' trips)
    band_trips: int             # GPU threads of one launch (0: no GPU band)
    launches: int               # kernel launches (time-step regions launch per step)
    inner_trips: float          # sequential iterations inside one parallel iteration
    bytes: int                  # bytes host<->device (NumPy arrays; CuPy arrays move nothing)
    list_elements: int          # elements unboxed from and boxed into lists (every device)
    coalesced: float

    def vector(self) -> tuple[float, ...]:
        """The learned selector's inputs, in FEATURE_NAMES order."""
        total = sum(self.counts.values()) or 1
        log = lambda value: math.log2(1.0 + max(0.0, float(value)))  # noqa: E731
        return (log(self.work), log(self.parallel_trips), log(self.band_trips), log(self.inner_trips),
                log(self.bytes), log(self.list_elements), log(self.launches), self.coalesced,
                self.counts["transcendental"] / total, self.counts["float"] / total,
                self.counts["branch"] / total, (self.counts["load"] + self.counts["store"]) / total)

    def as_dict(self) -> dict:
        return {"work": self.work, **{f"ops_{k}": v for k, v in self.counts.items()},
                "parallel_trips": self.parallel_trips, "parallel_entries": self.parallel_entries,
                "band_trips": self.band_trips, "launches": self.launches, "inner_trips": self.inner_trips,
                "bytes": self.bytes, "list_elements": self.list_elements, "coalesced": self.coalesced}


def evaluate(template: LoopTemplate, trips: dict, band_trips: int = 0, launches: int = 0,
             bytes_moved: int = 0, list_elements: int = 0) -> Features:
    """``trips``: nid of a loop -> its iterations at this entry (missing: unknown), the
    hull of its range over the loops around it (see the module doc).  Run at every first
    entry of a size under auto: the sums are done by ``map`` (the same floats as a loop)."""
    trips = average_trips(template, trips)
    iterations: dict[int, float] = {}   # id -> executions of its body over the whole entry
    totals = [0.0] * len(KINDS)
    for loop in template.loops:  # outer before inner: parents are known first
        body = iterations[loop.loop] = iterations.get(loop.parent, 1.0) * trips.get(loop.loop, UNKNOWN_TRIPS)
        totals = list(map(add, totals, map(mul, loop.counts, repeat(body))))
    work = sum(map(mul, _WEIGHT_VECTOR, totals))
    parallel_trips = parallel_entries = 0
    inner = 0.0
    outer_parallel = template.outer_parallel
    if outer_parallel is not None:
        parallel_trips = int(round(trips.get(outer_parallel, UNKNOWN_TRIPS)))
        inside, parent = {outer_parallel}, None
        for loop in template.loops:   # preorder: a loop's parent comes before it
            if loop.loop == outer_parallel:
                parent = loop.parent
            elif loop.parent in inside:
                inside.add(loop.loop)
        parallel_entries = int(iterations.get(parent, 1.0)) if parent is not None else 1
        threads = max(1.0, iterations[outer_parallel])
        inner = max((iterations[loop] / threads for loop in inside if loop != outer_parallel), default=1.0)
    return Features(work, dict(zip(KINDS, totals)), parallel_trips, parallel_entries, band_trips, launches, inner,
                    bytes_moved, list_elements, template.coalesced)


def average_trips(template: LoopTemplate, trips: dict) -> dict:
    """``trips`` with each loop whose bounds move with an enclosing loop's variable
    narrowed from its hull to its average range (never below one trip of a non-empty hull)."""
    averaged = dict(trips)
    for loop in template.loops:
        hull = trips.get(loop.loop)
        if not loop.narrowing or not hull:
            continue
        spans = sum(weight * max(0, trips.get(outer, 1) - 1) * outer_step
                    for outer, weight, outer_step in loop.narrowing)
        averaged[loop.loop] = max(1.0, hull - spans / (2.0 * loop.step))
    return averaged
