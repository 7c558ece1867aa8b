"""Thread mapping for the GPU (MegaGuards §3.4.3, improved after Wang, Grewe and O'Boyle).

The *band* is the perfectly nested run of parallel loops at the top of a site's nest
(``for i: for j: ...`` with both loops free of dependences), each with bounds that do
not depend on the other band loops (a rectangular grid of threads).  One thread runs
one iteration of the band; loops inside stay sequential in the thread.

MegaGuards mapped the outer loop to the first grid dimension, which makes row-major
accesses uncoalesced.  Here the band loop whose variable indexes the *contiguous*
(last) dimension of the most accesses becomes ``threadIdx.x``, so neighbouring threads
touch neighbouring elements.
"""
from __future__ import annotations


from ..record import record
from .. import record as records
from ..ir import nodes as ir
from ..ir.types import Scalar
from .bounds import HoistFacts
from .parallel import ParallelLoop, ParallelPlan, _Planner

MAX_BAND = 3
# The scalars a region's host keeps between launches (ir/interp.py computes with them as
# CPython does: a NumPy scalar's operations are NumPy's, their warnings turned into errors
# that send the entry to the CPU, whose run warns as NumPy would).
HOST_SCALARS = frozenset({Scalar.PY_BOOL, Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.NP_FLOAT64, Scalar.NP_FLOAT32,
                          Scalar.NP_INT64, Scalar.NP_INT32})
# What a region's host statements may call: Python's own functions, CPython's results by
# definition (the kernels' versions match them bit for bit, or they stay on the CPU).
HOST_FUNCTIONS = frozenset({"abs", "min", "max", "int", "float", "bool", "round", "pow"} |
                           {f"math.{name}" for name in ("sqrt", "exp", "log", "log10", "log2", "sin", "cos", "tan",
                                                        "floor", "ceil", "trunc", "fabs", "fmod", "atan2", "copysign",
                                                        "asin", "acos", "atan", "sinh", "cosh", "tanh", "pow",
                                                        "isnan", "isinf", "isfinite")})
# CUDA's versions follow its documented error bounds, not the C library's results; and
# copysign reads the sign of a NaN, which the GPU creates positive where x86 makes it negative.
TRANSCENDENTAL = {"math.exp", "math.log", "math.log10", "math.log2", "math.sin", "math.cos", "math.tan",
                  "math.asin", "math.acos", "math.atan", "math.atan2", "math.sinh", "math.cosh",
                  "math.tanh", "math.pow", "pow", "math.copysign"}


@record
class GpuBand:
    loops: tuple[ir.For, ...]   # outermost first: the sequential order of iterations
    x_loop: int                 # position in ``loops`` mapped to threadIdx.x
    decision: ParallelLoop      # privates and reductions of the innermost band loop's body
    fixed: int = 0              # leading loops run by the host (a time loop): one value per launch
    sunk: tuple = ()            # outer band loops' scalar assignments each thread runs first
    given: tuple = ()           # scalars a region's host assigns that the band reads: each launch's
    #                             values follow the band's entries in its row (``mg_band``)


@record
class GpuRegion:
    """A sequential loop (time steps) whose body is only GPU bands: the host steps it,
    the data stays on the device for the whole loop (Leung's multi-pass loops)."""

    loop: ir.For
    bands: tuple[GpuBand, ...]
    swaps: tuple = ()   # (bands launched before it in a step, ir.Rebind): the host exchanges the names
    varying: tuple = ()  # per band: its first loop's bounds change with the step (``range(i + 1, n)``)
    steps: tuple = ()   # a region the host steps statement by statement (scalar assignments, reductions):
    #                     ("band", index), ("host", ir.Assign), ("swap", ir.Rebind) in body order; empty:
    #                     every step's launches are planned before the first (no value comes back)
    host_assigned: tuple = ()   # the scalars the host's statements and the bands' reductions assign


def _sinkable(before, inner: ir.For, decision: ParallelLoop, band: list) -> bool:
    """Whether the scalar assignments ahead of ``inner`` in a band loop's body (``ci = ... y``
    before ``for x``) may run in each thread of a band that includes ``inner``: each assigns
    a private scalar of the loop (no reduction), and what they read - no array the band
    writes, no scalar ``inner`` assigns - does not change while ``inner`` runs, so every
    thread computes the value its iteration saw."""
    if not all(type(s) is ir.Assign and s.target in decision.private for s in before):
        return False
    if not before:
        return True
    written = {n.array for n in ir.walk(band[-1]) if isinstance(n, ir.Store)}
    assigned_inside = {n.target for n in ir.walk(inner) if isinstance(n, ir.Assign)} | \
        {n.var for n in ir.walk(inner) if isinstance(n, ir.For)}
    for statement in before:
        for node in ir.walk(statement.value):
            if isinstance(node, (ir.Load, ir.Length, ir.Shape)) and node.array in written:
                return False
            if isinstance(node, ir.Name) and node.id in assigned_inside:
                return False
        if statement.target in assigned_inside:
            return False
    return True


def _row_check(statement: ir.Stmt, outer: ir.For, facts: HoistFacts, live_outs: tuple) -> bool:
    """``tmp = len(a[t])`` that only checks that a row exists (an inlined call's row argument,
    ``f(a[t])``), where a hoisted check proves it: a bare variable's subscript of that array
    and dim checked at entry.  It needs no host work in a region, whose kernels run only
    once every hoisted check passed."""
    if not (isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Length)
            and statement.target.startswith("mg_tmp") and statement.target not in live_outs):
        return False
    if any(isinstance(node, ir.Name) and node.id == statement.target for node in ir.walk(outer)):
        return False   # its value is read
    length = statement.value
    for dim, index in enumerate(length.prefix):
        if not isinstance(index, ir.Name) or not any(
                hoisted.array == length.array and hoisted.dim == dim and isinstance(hoisted.index, ir.Name)
                and hoisted.index.id == index.id for hoisted in facts.indices):
            return False
    return True


def _mentions(expression: ir.Expr, names: set[str]) -> bool:
    return any(isinstance(n, ir.Name) and n.id in names for n in ir.walk(expression))


def _contiguous_votes(band: tuple[ir.For, ...]) -> list[int]:
    """For each band loop: how many accesses index their last dimension with its variable."""
    votes = [0] * len(band)
    for node in ir.walk(band[-1]):
        if isinstance(node, (ir.Load, ir.Store)) and node.indices:
            last = node.indices[-1]
            for position, loop in enumerate(band):
                if _mentions(last, {loop.var}):
                    votes[position] += 1
    return votes


ALLOW = " (MEGAGUARDS_REASSOCIATE=1 allows it)"



def choose_band(typed, plan: ParallelPlan, facts: HoistFacts | None, groups: dict, reassociate: bool
                ) -> GpuBand | str:
    """The GPU band of the site's loop nest, or why the nest cannot go to the GPU."""
    outer = typed.body
    if facts is None or outer.nid not in plan.loops:
        return "the outermost loop is not parallel"
    cpu_only = _cpu_only(typed)
    if cpu_only:
        return cpu_only
    return _band(typed, outer, plan.loops[outer.nid], (), facts, groups, reassociate)


def choose_region(typed, plan: ParallelPlan, facts: HoistFacts | None, groups: dict, reassociate: bool,
                  live_outs: tuple = ()) -> GpuRegion | str:
    """A time-step loop around GPU bands, or why the nest is not one.  The bands' private
    scalars (a stencil's temporaries) stay in their threads unless read after the loop;
    scalar assignments between them run on the host, and a band's reductions come back to
    it, at every step (srad: the image's statistics, then two stencils reading them)."""
    outer = typed.body
    if facts is None or not any(h.loop == outer.nid for h in facts.loops):
        return "the outermost loop's range is not computable before it"
    cpu_only = _cpu_only(typed)
    if cpu_only:
        return cpu_only
    steps, loops = [], []
    for statement in outer.body:
        if isinstance(statement, ir.Rebind):
            steps.append(("swap", statement))
        elif isinstance(statement, ir.For) and statement.nid in plan.loops:
            steps.append(("band", len(loops)))
            loops.append(statement)
        elif type(statement) is ir.Assign and statement.target in typed.variables \
                and not _row_check(statement, outer, facts, live_outs):
            steps.append(("host", statement))
        elif not _row_check(statement, outer, facts, live_outs):
            return ("the outermost loop is sequential and its body is not only parallel loops, scalar "
                    "assignments and swaps of arrays")
    if not loops:
        return "the outermost loop holds no parallel loop"
    bands, varying = [], []
    for inner in loops:
        # Bounds that change with the step (a triangular nest): the host computes each step's.
        varying.append(_mentions(inner.start, {outer.var}) or _mentions(inner.stop, {outer.var}))
        band = _band(typed, inner, plan.loops[inner.nid], (outer,), facts, groups, reassociate)
        if isinstance(band, str):
            return band
        bands.append(band)
    hosted = [statement for kind, statement in steps if kind == "host"]
    if not hosted and not any(band.decision.reductions for band in bands):
        swaps, launched = [], 0
        for kind, item in steps:
            if kind == "band":
                launched += 1
            elif kind == "swap":
                swaps.append((launched, item))
        return GpuRegion(outer, tuple(bands), tuple(swaps), tuple(varying))
    stepped = _host_steps(typed, outer, hosted, bands, facts)
    if isinstance(stepped, str):
        return stepped
    bands, assigned = stepped
    return GpuRegion(outer, bands, (), tuple(varying), tuple(steps), assigned)


def _host_steps(typed, outer: ir.For, hosted: list, bands: list, facts: HoistFacts) -> tuple | str:
    """A region whose host runs scalar statements between the launches and folds the bands'
    reductions: (the bands with the scalars each is given, the names the host assigns), or
    why not.  The host computes with Python's own ints and floats (ir/interp.py), so each
    value is CPython's; a band reads one through its launch's row."""
    host_names = {statement.target for statement in hosted}
    reduced = {r.var for band in bands for r in band.decision.reductions}
    kernel_names = [_assigned_in(band.loops[band.fixed]) for band in bands]
    hoisted = {h.loop for h in facts.loops}
    readable = host_names | reduced | {outer.var} | (set(typed.live_ins) - set(typed.assigned_types))
    for statement in hosted:
        for node in ir.walk(statement.value):
            if isinstance(node, (ir.Load, ir.Store)):
                return f"line {statement.line}: a statement between the kernels reads an array (on the device)"
            if isinstance(node, ir.Call) and typed.functions.get(node.function) not in HOST_FUNCTIONS:
                return f"line {statement.line}: a statement between the kernels calls {node.function}()"
            if isinstance(node, ir.Name) and node.id not in readable:
                return (f"line {statement.line}: a statement between the kernels reads "
                        f"{ir.describe_name(node.id)}, which a kernel's threads assign")
    for index, names in enumerate(kernel_names):
        own_reductions = {r.var for r in bands[index].decision.reductions}   # the host sets their starts
        both = (names - own_reductions) & host_names or names & (reduced - own_reductions)
        if both:
            return f"{ir.describe_name(sorted(both)[0])} is assigned both between the kernels and in one"
    given_names = host_names | reduced
    result = []
    for index, band in enumerate(bands):
        own = kernel_names[index]
        for loop in band.loops[band.fixed:]:
            if _mentions(loop.start, given_names) or _mentions(loop.stop, given_names) or loop.nid not in hoisted:
                return f"loop {ir.describe_name(loop.var)}: its range changes between the kernels"
        reads = {n.id for n in ir.walk(band.loops[band.fixed]) if isinstance(n, ir.Name)}
        others = set().union(*(kernel_names[k] for k in range(len(bands)) if k != index)) - reduced
        if reads & others - own:
            return (f"a kernel reads {ir.describe_name(sorted(reads & others - own)[0])}, which another "
                    "kernel's threads assign")
        given = tuple(sorted((reads & given_names) - own))
        result.append(records.replace(band, given=given) if given else band)
    for name in given_names:
        scalar = typed.variables[name]
        if scalar not in HOST_SCALARS:
            return f"{ir.describe_name(name)} ({scalar!r}) is kept between the kernels on the CPU only"
    return tuple(result), tuple(sorted(given_names))


def _assigned_in(loop: ir.For) -> set:
    """The scalars a band's threads assign (their loop variables included)."""
    return {n.target for n in ir.walk(loop) if isinstance(n, ir.Assign)} | \
        {n.var for n in ir.walk(loop) if isinstance(n, ir.For)}


def _cpu_only(typed) -> str:
    """Why a kernel with int-or-float variables or lists, or appending to lists, stays on the
    CPU ("": it has none)."""
    if typed.appended:
        return f"appending to {', '.join(repr(name) for name in sorted(typed.appended))} runs on the CPU only"
    if ir.swapped_tables(typed.body):
        return f"rows of {', '.join(repr(n) for n in sorted(ir.swapped_tables(typed.body)))} swapped: on the CPU only"
    texts = sorted(name for name, info in typed.arrays.items() if info.read_only)
    if texts:
        return f"str or bytes {', '.join(ir.describe_name(n) for n in texts)} runs on the CPU only"
    buffers = sorted(name for name, info in typed.arrays.items() if info.buffer)
    if buffers:
        return f"array.array {', '.join(ir.describe_name(n) for n in buffers)} runs on the CPU only"
    names = sorted([name for name, scalar in typed.variables.items() if scalar.is_int_or_float]
                   + [name for name, info in typed.arrays.items() if info.element.is_int_or_float])
    if not names:
        return ""
    return f"values that may be ints or floats ({', '.join(ir.describe_name(n) for n in names)}) run on the CPU only"


def _band(typed, outer: ir.For, decision: ParallelLoop, fixed: tuple, facts, groups, reassociate) -> GpuBand | str:
    if decision.private_arrays:
        return (f"loop {ir.describe_name(outer.var)} keeps a copy of "
                f"{ir.describe_name(decision.private_arrays[0][0])} per thread, on the CPU only")
    planner = _Planner(typed, facts, groups, reassociate)
    band, sunk = [*fixed, outer], []
    while len(band) - len(fixed) < MAX_BAND and band[-1].body and isinstance(band[-1].body[-1], ir.For):
        inner, before = band[-1].body[-1], band[-1].body[:-1]
        if not _sinkable(before, inner, decision, band):
            break
        bound_names = {l.var for l in band} | {s.target for s in before}
        if _mentions(inner.start, bound_names) or _mentions(inner.stop, bound_names):
            break  # not rectangular: stays a loop inside each thread
        inner_decision = planner.decide(inner, tuple(band))
        if not isinstance(inner_decision, ParallelLoop) or inner_decision.private_arrays:
            break
        band.append(inner)
        sunk += before
        decision = ParallelLoop(inner_decision.loop, inner_decision.private + tuple(s.target for s in before),
                                inner_decision.reductions, inner_decision.weight)
    for loop in band:
        if not isinstance(loop.step, ir.Const):
            return f"loop '{loop.var}' has a step that is not a constant"
    for reduction in decision.reductions:
        scalar = typed.variables[reduction.var]
        if scalar.is_float and reduction.kind in ("+", "*") and not reassociate:
            why = _no_gpu_fold(reduction, scalar, band[-1].body)
            if why:
                return f"reduction on '{reduction.var}' (float): {why}{ALLOW}"
        elif reduction.kind not in ("+", "max", "min"):
            return f"reduction '{reduction.kind}' on '{reduction.var}' has no exact GPU form"
        elif scalar.is_float and scalar.ctype != "double":   # doubles: by order key, the earliest zero beside it
            return f"a float32 {reduction.kind}() reduction ('{reduction.var}') runs on the CPU only"
        elif scalar.is_float and len(typed.assigned_types.get(reduction.var, ())) > 1:
            return f"{reduction.kind}() of values of two classes ('{reduction.var}') runs on the CPU only"
    for node in ir.walk(band[-1]):  # GPU results and reductions carry ints and doubles only
        if isinstance(node, ir.Expr) and node.type is not None and node.type.is_complex:
            return f"line {node.line}: complex arithmetic runs on the CPU only"
        if isinstance(node, ir.Expr) and node.type is not None and node.type.is_int_or_float:
            return f"line {node.line}: values that may be ints or floats run on the CPU only"
    if not reassociate:
        for node in ir.walk(band[-1]):
            if isinstance(node, ir.Call) and typed.functions.get(node.function) in TRANSCENDENTAL:
                return f"line {node.line}: {node.function}() on the GPU is not bit-identical to the host's{ALLOW}"
            if isinstance(node, ir.BinOp) and node.op == "**" and node.type.is_float:
                return f"line {node.line}: float ** on the GPU is not bit-identical to the host's{ALLOW}"
    votes = _contiguous_votes(tuple(band))
    x_loop = max(range(len(fixed), len(band)), key=lambda position: (votes[position], position))
    return GpuBand(tuple(band), x_loop, decision, len(fixed), tuple(sunk))


def _no_gpu_fold(reduction, scalar, body) -> str:
    """Why a float reduction cannot be folded in order on the GPU's host (empty: it can).
    Each thread keeps its iteration's one operand; the host folds them in iteration order."""
    if not reduction.fold:
        return "it is not folded in order (parallel.ordered_fold)"
    if scalar.ctype != "double":
        return "a float32 sum is folded in order on the CPU only"
    def steps(nodes):
        return [n for node in nodes for n in ir.walk(node) if isinstance(n, ir.Assign) and n.target == reduction.var]
    loops = [n for node in body for n in ir.walk(node) if isinstance(n, (ir.For, ir.While))]
    if len(steps(body)) != 1 or steps(loops):
        return "more than one step per iteration is folded in order on the CPU only"
    return ""


def full_overwrites(typed, band_loops) -> dict:
    """Arrays never read whose one store sits unconditionally in the band body with the
    band variables as subscripts: array name -> band position of each dimension.  The
    GPU host allocates such an array on the device without copying it in."""
    positions = {loop.var: k for k, loop in enumerate(band_loops)}
    if any(isinstance(n, ir.Continue) for n in ir.walk(band_loops[-1])):
        return {}  # a 'continue' could skip the store in some iterations
    loaded = {n.array for n in ir.walk(typed.body) if isinstance(n, (ir.Load, ir.Length))}
    stores: dict[str, list] = {}
    for node in ir.walk(typed.body):
        if isinstance(node, ir.Store):
            stores.setdefault(node.array, []).append(node)
    top_level = {statement.nid for statement in band_loops[-1].body}
    result = {}
    for name, found in stores.items():
        if name in loaded or len(found) != 1 or found[0].nid not in top_level:
            continue
        indices = found[0].indices
        if all(isinstance(i, ir.Name) and i.id in positions for i in indices) and \
                len({i.id for i in indices}) == len(indices):
            result[name] = tuple(positions[i.id] for i in indices)
    return result
