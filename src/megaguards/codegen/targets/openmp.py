"""The OpenMP target: the C target plus its parallel-loop hook, which renders one loop
of the parallel plan as an OpenMP region.

Every scalar the loop body assigns gets a private copy per thread (declared in
the parallel region, shadowing the kernel's variable), plus the number of the
last iteration that assigned it.  After the region, values are merged in thread
order: a private scalar takes the value of the sequentially last assignment
(exactly Python's final value, even for conditional assignments); a reduction
combines the per-thread partials (ints with overflow checks; float max/min
exactly).  A float sum or product is exact too: the loop runs in rounds; in each, the
worker threads run contiguous shares and keep their steps' operands in order, while
thread 0 folds the previous round's operands into the scalar in worker order, that is in
Python's order, with Python's rounding (an *ordered fold*; the rounds bound the operands
kept).  Only with MEGAGUARDS_REASSOCIATE=1 are per-thread partials of float sums combined
instead.
An error in any iteration stops the others and discards the results.
"""
from __future__ import annotations


from ...record import record
from ... import record as records
from ...analysis.parallel import INNER_LOOP_TRIPS, BodyWeight, ParallelLoop
from ...ir import nodes as ir
from ...ir.types import Scalar
from ...ir.types import buffer_ctype
from ..array_statements import appended_item
from ..spelling import array_name, c_name, growing_name, zero_of
from .base import reduction_identity
from .c import C

MAX_THREADS = 256
FOLD_ROUND_WORK = 1 << 22  # body weight per round of an ordered fold: bounds the operands kept
FOLD_STEPS = {"s+e": "{s} + {e}", "s-e": "{s} - {e}", "e+s": "{e} + {s}", "s*e": "{s} * {e}", "e*s": "{e} * {s}"}


def runtime_weight(statements, facts) -> str:
    """The loop body's weight (``parallel.BodyWeight``) as a C expression: each inner loop
    whose range the prologue hoisted counted by its trip count at this entry, the others
    by INNER_LOOP_TRIPS, so that a few long iterations (4 rows of a million steps) are
    worth threads and many short ones are not."""
    hoisted = {loop.loop: (k, abs(loop.step) or 1) for k, loop in enumerate(facts.loops)}   # a variable step: 1

    def render(weight: BodyWeight) -> str:
        parts = [f"{weight.nodes}.0"] if weight.nodes or not weight.loops else []
        for loop, inner in weight.loops:
            k, step = hoisted.get(loop.nid, (None, 1))
            trips = (f"{INNER_LOOP_TRIPS}.0" if k is None
                     else f"(mg_L{k}_empty ? 0.0 : (double)((mg_L{k}_hi - mg_L{k}_lo) / {step} + 1))")
            parts.append(f"{trips} * ({render(inner)})")
        return " + ".join(parts)

    return render(BodyWeight.of(statements))


@record
class ParallelRegion:
    """The body of a parallel loop, as the renderer walks it: an error ends this
    iteration and stops the others; an assignment records its iteration's number."""

    label: str
    variables: tuple[str, ...]   # scalars private to each thread, reductions included
    folds: dict                  # float reductions folded in order: name -> form (parallel.FOLD_FORMS)
    private_arrays: tuple = ()   # parallel.ParallelLoop.private_arrays: each thread's copies

    @property
    def error_exit(self) -> tuple[str, ...]:
        return ("#pragma omp atomic write", f"{self.label}_error = mg_err;", f"goto {self.label}_next;")

    def keep(self, name: str, operand: str) -> tuple[str, ...]:
        """A step of an ordered fold: keep its operand (the fold comes after the round)."""
        log, kept, room = (f"{self.label}_{part}_{c_name(name)}" for part in ("mine", "n", "cap"))
        return (f"if (MG_UNLIKELY({kept} == {room}) && !mg_fold_grow(&{log}, &{room})) {{",
                "    mg_err = MG_ERR_MEMORY;", *("    " + line for line in self.error_exit), "}",
                f"{log}[{kept}++] = {operand};")

    def assignment_mark(self, name: str) -> str | None:
        if name not in self.variables:
            return None
        return f"{self.label}_at_{c_name(name)} = {self.label}_k;"


def render_parallel_loop(renderer, node: ir.For, plan: ParallelLoop, depth: int, threads: int,
                         work_threshold: int) -> None:
    label = renderer.fresh("p")
    before = renderer.checks
    bounds = [renderer.convert(e, Scalar.PY_INT) for e in (node.start, node.stop, node.step)]
    reductions = {r.var: r.kind for r in plan.reductions}
    folds = {r.var: r.fold for r in plan.reductions if r.fold}
    variables = tuple(dict.fromkeys(plan.private + tuple(reductions)))
    typed = renderer.typed
    emit = renderer.emit
    emit(depth, "{  /* parallel loop (OpenMP) */")
    inner = depth + 1
    emit(inner, f"const int64_t {label}_start = {bounds[0]}, {label}_stop = {bounds[1]}, {label}_step = {bounds[2]};")
    renderer.guarded(inner, before)
    # A parallel loop's range was hoisted: its step is a non-zero constant.
    emit(inner, f"const uint64_t {label}_all_trips = mg_trip_count({label}_start, {label}_stop, {label}_step);")
    count = f"{threads}" if threads else "omp_get_max_threads()"
    # Too little work for threads (or more iterations than int64 counts): the loop as it
    # is, sequential; float reductions then keep Python's order exactly.
    weight = runtime_weight(node.body, renderer.facts) if renderer.facts is not None else f"{plan.weight}.0"
    work = f"{label}_all_trips <= INT64_MAX && (double){label}_all_trips * ({weight}) >= {work_threshold}.0"
    # An ordered fold takes a thread for folding: with two, one would work, no faster than alone.
    emit(inner, f"if (!({work}) || {count} < {3 if folds else 2}) {{")
    renderer.range_loop(node, inner + 1, allow_parallel=False)
    emit(inner, "} else {")
    emit(inner, f"const int64_t {label}_trips = (int64_t){label}_all_trips;")
    emit(inner, f"int {label}_threads = {count}; if ({label}_threads > {MAX_THREADS}) {label}_threads = {MAX_THREADS};")
    emit(inner, f"int {label}_error = 0;")
    for name in variables:
        emit(inner, f"{typed.variables[name].ctype} {label}_value_{c_name(name)}[{MAX_THREADS}];")
        emit(inner, f"int64_t {label}_last_{c_name(name)}[{MAX_THREADS}];")
        if name in renderer.layout.box_tags:
            emit(inner, f"int {label}_tag_{c_name(name)}[{MAX_THREADS}];")
    emit(inner, f"for (int t = 0; t < {MAX_THREADS}; t++) {{")
    for name in variables:
        emit(inner + 1, f"{label}_last_{c_name(name)}[t] = -1;")
    emit(inner, "}")
    for name in folds:   # two rounds' operands per worker: one being folded, one being kept
        var = c_name(name)
        emit(inner, f"double *{label}_log_{var}[2][{MAX_THREADS}] = {{{{0}}}};")
        emit(inner, f"int64_t {label}_kept_{var}[2][{MAX_THREADS}] = {{{{0}}}}, {label}_room_{var}[2][{MAX_THREADS}] = {{{{0}}}};")
    if folds:
        emit(inner, f"int64_t {label}_round = (int64_t)({FOLD_ROUND_WORK}.0 / ({weight}));")
        emit(inner, f"if ({label}_round < {label}_threads) {label}_round = {label}_threads;")
    for name in plan.appended:   # each thread's values, joined in thread order after the region
        emit(inner, f"mg_growing {label}_part_{growing_name(name)}[{MAX_THREADS}] = {{{{0}}}};")
        emit(inner, f"mg_growing *const {label}_shared_{growing_name(name)} = {growing_name(name)};")
    if renderer.watches_float_status:   # each thread has its own IEEE flags: kept, then gathered
        emit(inner, "if (mg_fp_mask) mg_fp_seen |= fetestexcept(FE_ALL_EXCEPT);")
    # The team OpenMP gave (fewer than asked in a forked child, or nested): what the report says ran.
    emit(inner, f"int {label}_team_ran = 1;")
    emit(inner, f"#pragma omp parallel num_threads({label}_threads)")
    emit(inner, "{")
    region = inner + 1
    emit(region, "int mg_err = 0;")
    emit(region, f"if (omp_get_thread_num() == 0) {label}_team_ran = omp_get_num_threads();")
    if renderer.watches_float_status:
        emit(region, "if (mg_fp_mask) feclearexcept(FE_ALL_EXCEPT);")
    emit(region, "uint64_t mg_ticks = 0;")
    emit(region, f"const int {label}_tid = omp_get_thread_num();")
    emit(region, f"int64_t {c_name(node.var)} = 0;")
    _private_copies(renderer, label, plan.private_arrays, region)
    for name in plan.appended:   # the body's appends fill the thread's own buffer (the name shadowed)
        emit(region, f"mg_growing {label}_own_{growing_name(name)} = {{0}};")
        emit(region, f"mg_growing *{growing_name(name)} = &{label}_own_{growing_name(name)};")
    for name in variables:
        scalar = typed.variables[name]
        if name not in folds:   # a folded scalar is the kernel's own, written by the folding thread
            start = reduction_identity(reductions[name], scalar) if name in reductions else zero_of(scalar)
            emit(region, f"{scalar.ctype} {c_name(name)} = {start};")
        emit(region, f"int64_t {label}_at_{c_name(name)} = -1; int mg_set_{c_name(name)} = 0; "
                     f"int mg_tag_{c_name(name)} = 0;")
    iteration = ParallelRegion(label, variables, folds, plan.private_arrays)
    if folds:
        _pipelined_rounds(renderer, node, iteration, region)
    else:
        # Uneven iterations (mandelbrot rows) balance with guided chunks; a reassociated
        # float sum or product keeps the static split, so that it rounds the same on every
        # run.  Either way each thread runs increasing iterations: its last values are its latest.
        # Appends too: the static split gives each thread one contiguous share, in thread order.
        floating = any(typed.variables[r.var].is_float and r.kind in ("+", "*") for r in plan.reductions)
        emit(region, f"#pragma omp for schedule({'static' if floating or plan.appended else 'guided'})")
        _iterations(renderer, node, iteration, "0", f"{label}_trips", region)
    if renderer.watches_float_status:
        emit(region, "if (mg_fp_mask) {")
        emit(region + 1, "const int mg_fp_mine = fetestexcept(FE_ALL_EXCEPT);")
        emit(region + 1, "#pragma omp atomic")
        emit(region + 1, "mg_fp_seen |= mg_fp_mine;")
        emit(region, "}")
    _copy_back(renderer, node, label, plan.private_arrays, region)
    for name in plan.appended:
        emit(region, f"{label}_part_{growing_name(name)}[{label}_tid] = {label}_own_{growing_name(name)};")
    for name in variables:
        if name not in folds:
            emit(region, f"{label}_value_{c_name(name)}[{label}_tid] = {c_name(name)};")
        emit(region, f"{label}_last_{c_name(name)}[{label}_tid] = {label}_at_{c_name(name)};")
        if name in renderer.layout.box_tags:
            emit(region, f"{label}_tag_{c_name(name)}[{label}_tid] = mg_tag_{c_name(name)};")
    emit(inner, "}")
    team = renderer.layout.team_slot
    emit(inner, f"if ({label}_team_ran > mg_ints[{team}]) mg_ints[{team}] = {label}_team_ran;")
    emit(inner, f"if ({label}_error) {{")
    _free_logs(renderer, label, folds, inner + 1)
    for name in plan.appended:
        emit(inner + 1, f"for (int t = 0; t < {MAX_THREADS}; t++) free({label}_part_{growing_name(name)}[t].data);")
    emit(inner + 1, f"mg_err = {label}_error; goto mg_exit;")
    emit(inner, "}")
    _free_logs(renderer, label, folds, inner)
    _join_appends(renderer, label, plan.appended, inner)
    _merge(renderer, label, variables, reductions, folds, inner, {r.var for r in plan.reductions if r.conditional})
    emit(inner, f"if ({label}_trips > 0) {{")
    emit(inner + 1, f"{c_name(node.var)} = {label}_start + ({label}_trips - 1) * {label}_step;")
    renderer.mark_assigned(node.var, Scalar.PY_INT, inner + 1)
    emit(inner, "}")
    emit(inner, "}")
    emit(depth, "}")


def _iterations(renderer, node: ir.For, iteration: ParallelRegion, low: str, high: str, depth: int) -> None:
    """The loop over iterations ``low`` .. ``high`` - 1 of the parallel loop, in a thread."""
    emit, label = renderer.emit, iteration.label
    emit(depth, f"for (int64_t {label}_k = {low}; {label}_k < {high}; {label}_k++) {{")
    body = depth + 1
    emit(body, f"if ({label}_error) continue;")
    if renderer.polls_interrupts:
        emit(body, "if (MG_UNLIKELY(*mg_stop)) {   /* Ctrl-C: every thread stops at its next iteration */")
        emit(body + 1, "#pragma omp atomic write")
        emit(body + 1, f"{label}_error = MG_ERR_INTERRUPT;")
        emit(body + 1, "continue;")
        emit(body, "}")
    emit(body, f"{c_name(node.var)} = {label}_start + {label}_k * {label}_step;")
    if iteration.private_arrays:
        emit(body, f"if ({label}_k == {label}_trips - 1) {label}_owns_last = 1;")
    renderer.region_block(iteration, node.body, body)
    emit(body, f"{label}_next: ;")
    emit(depth, "}")


def _private_copies(renderer, label: str, private_arrays: tuple, depth: int) -> None:
    """Each thread's copy of the loop's temporary arrays, under the arrays' own names (the
    body's accesses read and write it), the shared one kept for the copy back."""
    emit = renderer.emit
    if private_arrays:
        emit(depth, f"int {label}_owns_last = 0;   /* this thread ran the last iteration */")
    for name, _ in private_arrays:
        ctype, array = buffer_ctype(renderer.typed.arrays[name].element), array_name(name)
        emit(depth, f"{ctype} *const {label}_shared_{array} = {array};")
        emit(depth, f"{ctype} *{array} = ({ctype} *)malloc(sizeof({ctype}) * (size_t)({array}_n0 > 0 ? {array}_n0 : 1));")
        emit(depth, f"if (MG_UNLIKELY({array} == NULL)) {{")
        emit(depth + 1, "#pragma omp atomic write")
        emit(depth + 1, f"{label}_error = MG_ERR_MEMORY;")
        emit(depth, "}")


def _copy_back(renderer, node: ir.For, label: str, private_arrays: tuple, depth: int) -> None:
    """The last iteration wrote its range of each temporary array whole: its thread copies
    that range back (nothing else ever reads or writes the shared array meanwhile)."""
    emit = renderer.emit
    writers = {loop.nid: loop for loop in ir.walk(node) if isinstance(loop, ir.For)}   # in the loop's body
    for name, writer in private_arrays:
        array = array_name(name)
        low, high = (renderer.convert(bound, Scalar.PY_INT) for bound in (writers[writer].start, writers[writer].stop))
        ran = "".join(f" && {renderer.convert(loop.start, Scalar.PY_INT)} < {renderer.convert(loop.stop, Scalar.PY_INT)}"
                      for loop in _around(node, writer))   # an empty one wrote nothing (the list's
        # touched box is then empty too, so nothing would be boxed back: kept for any other path)
        emit(depth, f"if ({label}_owns_last && !{label}_error && {array} != NULL{ran}) {{")
        emit(depth + 1, f"for (int64_t mg_v = {low}; mg_v < {high}; mg_v++) {{")
        emit(depth + 2, f"const int64_t mg_at = mg_v < 0 ? mg_v + {array}_n0 : mg_v;")
        emit(depth + 2, f"{label}_shared_{array}[mg_at] = {array}[mg_at];")
        emit(depth + 1, "}")
        emit(depth, "}")
        emit(depth, f"free({array});")


def _around(node: ir.For, writer: int) -> list:
    """The loops of ``node``'s body that hold the loop ``writer`` (analysis/parallel._wrapper)."""
    for statement in node.body:
        if isinstance(statement, ir.For) and any(inner.nid == writer for inner in ir.walk(statement)):
            return [] if statement.nid == writer else [statement, *_around(statement, writer)]
    return []


def _join_appends(renderer, label: str, appended: tuple, depth: int) -> None:
    """Each thread's appended values joined to the kernel's buffers, threads in order (the
    static split's shares: the iteration order).  Where rows end (ir.AppendRow) counts each
    thread's own row values: shifted past the values of the threads before it."""
    if not appended:
        return
    emit, typed = renderer.emit, renderer.typed
    rows = {table: row for table, row in typed.row_lists.items() if table in appended and row in appended}
    emit(depth, "{ int mg_joined = 1;")
    emit(depth + 1, f"for (int t = 0; t < {MAX_THREADS}; t++) {{")
    for name in sorted(appended, key=lambda name: name in rows):   # a row's values before its table's ends
        part, shared = f"&{label}_part_{growing_name(name)}[t]", f"{label}_shared_{growing_name(name)}"
        ctype, count = appended_item(typed, name)
        size = f"(int64_t)({count} * sizeof({ctype}))"
        if name in rows:
            emit(depth + 2, f"mg_joined &= mg_grow_join({shared}, {part}, {size}, {label}_base_{growing_name(rows[name])});")
            continue
        if name in rows.values():
            emit(depth + 2, f"const int64_t {label}_base_{growing_name(name)} = {shared}->length;")
        emit(depth + 2, f"mg_joined &= mg_grow_join({shared}, {part}, {size}, 0);")
    emit(depth + 1, "}")
    emit(depth + 1, "if (MG_UNLIKELY(!mg_joined)) { mg_err = MG_ERR_MEMORY; goto mg_exit; }")
    emit(depth, "}")


def _pipelined_rounds(renderer, node: ir.For, iteration: ParallelRegion, depth: int) -> None:
    """An ordered fold's rounds: while the workers (threads 1 ..) run round r, each its
    contiguous share in worker order, keeping its steps' operands, thread 0 folds round
    r - 1's operands into the scalar in worker order, which is Python's order.  Alone in
    its team, thread 0 does both."""
    emit, label, folds = renderer.emit, iteration.label, iteration.folds
    emit(depth, f"const int {label}_team = omp_get_num_threads();")
    emit(depth, f"const int {label}_workers = {label}_team > 1 ? {label}_team - 1 : 1;")
    emit(depth, f"const int {label}_me = {label}_team > 1 ? {label}_tid - 1 : 0;   /* thread 0 folds */")
    emit(depth, f"const int64_t {label}_rounds = ({label}_trips + {label}_round - 1) / {label}_round;")
    emit(depth, f"for (int64_t {label}_r = 0; {label}_r <= {label}_rounds; {label}_r++) {{")
    step = depth + 1
    emit(step, f"if ({label}_tid == 0 && {label}_r > 0) {{")
    emit(step + 1, f"const int b = ({label}_r - 1) & 1;")
    for name, form in folds.items():
        var = c_name(name)
        folded = FOLD_STEPS[form].format(s=var, e=f"{label}_log_{var}[b][t][j]")
        emit(step + 1, f"for (int t = 0; t < {label}_workers; t++) {{")
        emit(step + 2, f"for (int64_t j = 0; j < {label}_kept_{var}[b][t]; j++) {var} = {folded};")
        emit(step + 1, "}")
    emit(step, "}")
    emit(step, f"if ({label}_r < {label}_rounds && ({label}_team == 1 || {label}_tid > 0)) {{")
    share = step + 1
    emit(share, f"const int b = {label}_r & 1;")
    emit(share, f"const int64_t {label}_from = {label}_r * {label}_round, {label}_to = {label}_trips - {label}_from "
                f"<= {label}_round ? {label}_trips : {label}_from + {label}_round;")
    emit(share, f"const int64_t {label}_lo = {label}_from + ({label}_to - {label}_from) * {label}_me / {label}_workers, "
                f"{label}_hi = {label}_from + ({label}_to - {label}_from) * ({label}_me + 1) / {label}_workers;")
    for name in folds:
        var = c_name(name)
        emit(share, f"double *{label}_mine_{var} = {label}_log_{var}[b][{label}_me]; int64_t {label}_n_{var} = 0, "
                    f"{label}_cap_{var} = {label}_room_{var}[b][{label}_me];")
    _iterations(renderer, node, iteration, f"{label}_lo", f"{label}_hi", share)
    for name in folds:
        var = c_name(name)
        emit(share, f"{label}_log_{var}[b][{label}_me] = {label}_mine_{var}; {label}_kept_{var}[b][{label}_me] = "
                    f"{label}_n_{var}; {label}_room_{var}[b][{label}_me] = {label}_cap_{var};")
    emit(step, "}")
    emit(step, "#pragma omp barrier")
    emit(step, "int stop;")
    emit(step, "#pragma omp atomic read")
    emit(step, f"stop = {label}_error;")
    emit(step, "if (stop) break;   /* the same for every thread: nothing writes it between barriers */")
    emit(depth, "}")


def _free_logs(renderer, label: str, folds: dict, depth: int) -> None:
    for name in folds:
        renderer.emit(depth, f"for (int b = 0; b < 2; b++) for (int t = 0; t < {MAX_THREADS}; t++) "
                             f"free({label}_log_{c_name(name)}[b][t]);")


def _merge(renderer, label: str, variables, reductions: dict, folds: dict, depth: int, conditional: set) -> None:
    """Thread results back into the kernel's variables, in thread (= iteration) order
    (an ordered fold's value is already there: only its marks are merged)."""
    emit = renderer.emit
    if any(kind in ("+", "*") and not renderer.typed.variables[name].is_float for name, kind in reductions.items()):
        renderer.flags_outside_checks = True
    for name in variables:
        var = c_name(name)
        scalar = renderer.typed.variables[name]
        emit(depth, f"{{ int64_t best = -1; int winner = -1; const {scalar.ctype} before = {var};")
        emit(depth + 1, f"for (int t = 0; t < {MAX_THREADS}; t++) {{")
        emit(depth + 2, f"if ({label}_last_{var}[t] < 0) continue;")
        if name in reductions and name not in folds:
            emit(depth + 2, f"{var} = {_combine(reductions[name], scalar, var, f'{label}_value_{var}[t]')};")
        emit(depth + 2, f"if ({label}_last_{var}[t] > best) {{ best = {label}_last_{var}[t]; winner = t; }}")
        emit(depth + 1, "}")
        emit(depth + 1, "if (MG_UNLIKELY(mg_err)) goto mg_exit;")
        if name in conditional:
            # Sequentially, "if e > s: s = e" assigns s only if some e beats its first value.
            op = ">" if reductions[name] == "max" else "<"
            emit(depth + 1, f"if (winner >= 0 && !({var} {op} before)) winner = -1;")
        emit(depth + 1, "if (winner >= 0) {")
        if name not in reductions:
            emit(depth + 2, f"{var} = {label}_value_{var}[winner];")
        if name in renderer.layout.assigned_flags:
            emit(depth + 2, f"mg_set_{var} = 1;")
        if name in renderer.layout.box_tags:
            emit(depth + 2, f"mg_tag_{var} = {label}_tag_{var}[winner];")
        emit(depth + 1, "}")
        emit(depth, "}")


def _combine(kind: str, scalar: Scalar, total: str, part: str) -> str:
    if kind in ("max", "min"):
        return f"(({part}) {'>' if kind == 'max' else '<'} ({total}) ? ({part}) : ({total}))"
    if scalar.is_float or kind in "&|^":
        return f"({total} {kind} {part})"
    helper = {"+": "mg_add_i64", "*": "mg_mul_i64"}[kind]  # may flag: the renderer knows (see merge)
    text = f"{helper}({total}, {part}, &mg_err)"
    return f"mg_to_i32({text}, &mg_err)" if scalar.ctype == "int32_t" else text


OPENMP = records.replace(C, name="openmp", parallel_loop=render_parallel_loop,
                             parallel_headers="#include <omp.h>\n")
