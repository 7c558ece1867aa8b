"""The OpenMP target: the C target plus its parallel-loop hook, which renders one loop
of the parallel plan as an OpenMP region.

Every scalar the loop body assigns gets a private copy per thread (declared in
the parallel region, shadowing the kernel's variable), plus the number of the
last iteration that assigned it.  After the region, values are merged in thread
order: a private scalar takes the value of the sequentially last assignment
(exactly Python's final value, even for conditional assignments); a reduction
combines the per-thread partials (ints with overflow checks; float max/min
exactly).  A float sum or product is exact too: each thread keeps its steps' operands,
in its (contiguous, increasing) iterations' order, and one thread folds them into the
scalar in thread order, that is in Python's order, with Python's rounding (an *ordered
fold*); the loop runs in rounds so that the operands kept stay bounded.  Only with
MEGAGUARDS_REASSOCIATE=1 are per-thread partials of float sums combined instead.
An error in any iteration stops the others and discards the results.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...analysis.parallel import INNER_LOOP_TRIPS, BodyWeight, ParallelLoop
from ...ir import nodes as ir
from ...ir.types import Scalar
from ..spelling import c_name, zero_of
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


@dataclass(frozen=True)
class ParallelRegion:
    """The body of a parallel loop, as the renderer walks it: an error ends this
    iteration and stops the others; an assignment records its iteration's number."""

    label: str
    variables: tuple[str, ...]   # scalars private to each thread, reductions included
    folds: dict                  # float reductions folded in order: name -> form (parallel.FOLD_FORMS)

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
    emit(inner, f"if (!({work}) || {count} < 2) {{")
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
    for name in folds:
        emit(inner, f"double *{label}_log_{c_name(name)}[{MAX_THREADS}] = {{0}};")
        emit(inner, f"int64_t {label}_kept_{c_name(name)}[{MAX_THREADS}], {label}_room_{c_name(name)}[{MAX_THREADS}] = {{0}};")
    if folds:
        emit(inner, f"int64_t {label}_round = (int64_t)({FOLD_ROUND_WORK}.0 / ({weight}));")
        emit(inner, f"if ({label}_round < {label}_threads) {label}_round = {label}_threads;")
    else:
        emit(inner, f"const int64_t {label}_round = {label}_trips;")
    emit(inner, f"for (int64_t {label}_from = 0; {label}_from < {label}_trips; {label}_from += {label}_round) {{")
    rounds, inner = inner, inner + 1
    emit(inner, f"const int64_t {label}_to = {label}_trips - {label}_from <= {label}_round ? {label}_trips "
                f": {label}_from + {label}_round;")
    emit(inner, f"for (int t = 0; t < {MAX_THREADS}; t++) {{")
    for name in variables:
        emit(inner + 1, f"{label}_last_{c_name(name)}[t] = -1;")
    for name in folds:
        emit(inner + 1, f"{label}_kept_{c_name(name)}[t] = 0;")
    emit(inner, "}")
    if renderer.watches_float_status:   # each thread has its own IEEE flags: kept, then gathered
        emit(inner, "if (mg_fp_mask) mg_fp_seen |= fetestexcept(FE_ALL_EXCEPT);")
    emit(inner, f"#pragma omp parallel num_threads({label}_threads)")
    emit(inner, "{")
    region = inner + 1
    emit(region, "int mg_err = 0;")
    if renderer.watches_float_status:
        emit(region, "if (mg_fp_mask) feclearexcept(FE_ALL_EXCEPT);")
    emit(region, "uint64_t mg_ticks = 0;")
    emit(region, f"const int {label}_tid = omp_get_thread_num();")
    emit(region, f"int64_t {c_name(node.var)} = 0;")
    for name in variables:
        scalar = typed.variables[name]
        start = reduction_identity(reductions[name], scalar) if name in reductions else zero_of(scalar)
        emit(region, f"{scalar.ctype} {c_name(name)} = {start}; int64_t {label}_at_{c_name(name)} = -1;")
        emit(region, f"int mg_set_{c_name(name)} = 0; int mg_tag_{c_name(name)} = 0;")
    for name in folds:
        var = c_name(name)
        emit(region, f"double *{label}_mine_{var} = {label}_log_{var}[{label}_tid]; int64_t {label}_n_{var} = 0, "
                     f"{label}_cap_{var} = {label}_room_{var}[{label}_tid];")
    # Uneven iterations (mandelbrot rows) balance with guided chunks; a float sum or
    # product keeps the static split: contiguous shares in thread order (an ordered fold
    # reads them so; a reassociated sum rounds the same on every run).  Either way each
    # thread runs increasing iterations: its last values are its latest.
    floating = any(typed.variables[r.var].is_float and r.kind in ("+", "*") for r in plan.reductions)
    emit(region, f"#pragma omp for schedule({'static' if floating else 'guided'})")
    emit(region, f"for (int64_t {label}_k = {label}_from; {label}_k < {label}_to; {label}_k++) {{")
    body = region + 1
    emit(body, f"if ({label}_error) continue;")
    if renderer.polls_interrupts:
        emit(body, "if (MG_UNLIKELY(*mg_stop)) {   /* Ctrl-C: every thread stops at its next iteration */")
        emit(body + 1, "#pragma omp atomic write")
        emit(body + 1, f"{label}_error = MG_ERR_INTERRUPT;")
        emit(body + 1, "continue;")
        emit(body, "}")
    emit(body, f"{c_name(node.var)} = {label}_start + {label}_k * {label}_step;")
    renderer.region_block(ParallelRegion(label, variables, folds), node.body, body)
    emit(body, f"{label}_next: ;")
    emit(region, "}")
    if renderer.watches_float_status:
        emit(region, "if (mg_fp_mask) {")
        emit(region + 1, "const int mg_fp_mine = fetestexcept(FE_ALL_EXCEPT);")
        emit(region + 1, "#pragma omp atomic")
        emit(region + 1, "mg_fp_seen |= mg_fp_mine;")
        emit(region, "}")
    for name in variables:
        emit(region, f"{label}_value_{c_name(name)}[{label}_tid] = {c_name(name)};")
        emit(region, f"{label}_last_{c_name(name)}[{label}_tid] = {label}_at_{c_name(name)};")
        if name in renderer.layout.box_tags:
            emit(region, f"{label}_tag_{c_name(name)}[{label}_tid] = mg_tag_{c_name(name)};")
    for name in folds:
        var = c_name(name)
        emit(region, f"{label}_log_{var}[{label}_tid] = {label}_mine_{var}; {label}_kept_{var}[{label}_tid] = "
                     f"{label}_n_{var}; {label}_room_{var}[{label}_tid] = {label}_cap_{var};")
    emit(inner, "}")
    emit(inner, f"if ({label}_error) {{")
    _free_logs(renderer, label, folds, inner + 1)
    emit(inner + 1, f"mg_err = {label}_error; goto mg_exit;")
    emit(inner, "}")
    for name, form in folds.items():   # in thread order: Python's order
        var = c_name(name)
        step = FOLD_STEPS[form].format(s=var, e=f"{label}_log_{var}[t][j]")
        emit(inner, f"for (int t = 0; t < {MAX_THREADS}; t++) {{")
        emit(inner + 1, f"for (int64_t j = 0; j < {label}_kept_{var}[t]; j++) {var} = {step};")
        emit(inner, "}")
    _merge(renderer, label, variables, reductions, folds, inner, {r.var for r in plan.reductions if r.conditional})
    inner = rounds
    emit(inner, "}")
    _free_logs(renderer, label, folds, inner)
    emit(inner, f"if ({label}_trips > 0) {{")
    emit(inner + 1, f"{c_name(node.var)} = {label}_start + ({label}_trips - 1) * {label}_step;")
    renderer.mark_assigned(node.var, Scalar.PY_INT, inner + 1)
    emit(inner, "}")
    emit(inner, "}")
    emit(depth, "}")


def _free_logs(renderer, label: str, folds: dict, depth: int) -> None:
    for name in folds:
        renderer.emit(depth, f"for (int t = 0; t < {MAX_THREADS}; t++) free({label}_log_{c_name(name)}[t]);")


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


OPENMP = dataclasses.replace(C, name="openmp", parallel_loop=render_parallel_loop,
                             parallel_headers="#include <omp.h>\n")
