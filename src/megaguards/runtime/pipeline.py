"""The compile pipeline of one lowered loop for one signature, as named stages:

    signature  ->  types  ->  bounds  ->  (split)  ->  layout  ->  key  ->  parallel plan + render

Each stage hands a frozen record to the next; ``analyse`` returns them in one frozen
``Analysed`` (or a ``Rejected`` naming the stage and the source location that decided),
with the stages' reasons as values and the time each took.  Nothing here writes to a
site: the caller notes the reasons, books the time and builds the executables.
Building (the C compiler), the GPU variant and the device choice follow in backend.py.
"""
from __future__ import annotations

import time

from .. import record as records
from ..record import record
from ..analysis.bounds import HoistFacts, hoist_checks, touched_box
from ..analysis.distribution import distribute, may_distribute
from ..analysis.features import LoopTemplate, loop_template
from ..analysis.typeinfer import ArrayInfo, TypedLoop, grown_lists, infer_types
from ..codegen.layout import Layout, plan_layout
from ..errors import Unsupported
from ..ir import nodes as ir
from .executable import Rejected
from .loopkey import LoopKey
from .plans import cached_distribution
from .renders import cached_plan_and_render, cached_render

MAX_RANK = 8


@record
class Reason:
    """Why a loop did (not) get something, said by the stage that decided."""

    stage: str          # "signature", "types", "bounds", "parallel", ...
    text: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return self.text


@record
class Signature:
    """The types one entry's live-ins have, as the stages see them (``Binder.describe``)."""

    functions: dict     # call path as written -> canonical function name
    scalars: dict       # scalar path -> Scalar
    arrays: dict        # array name -> ArrayInfo
    groups: dict        # array name -> the first name bound to the same object
    objects: dict = records.field(default_factory=dict)   # scalar holding a list's object (its index) -> the list

    @classmethod
    def of(cls, loop: ir.Loop, binder, binding) -> Signature:
        functions, scalars, array_types = binder.describe(binding)
        arrays = {use.name: ArrayInfo(array_types[use.name][0], use.rank, *array_types[use.name][1:])
                  for use in loop.arrays}
        first: dict[int, str] = {}
        groups = {use.name: first.setdefault(id(value), use.name) for use, value in zip(loop.arrays, binding.arrays)}
        objects = {name: array for name, array in loop.object_aliases if name in scalars}
        return cls(functions, scalars, arrays, groups, objects)

    def describe(self) -> str:
        parts = [f"{name}: an object of {self.objects[name]} or None" if name in self.objects else f"{name}: {scalar!r}"
                 for name, scalar in self.scalars.items()]
        parts += [f"{ir.describe_name(name) if ir.field_of(name) else name}: "   # ps.__items__.m: 'ps[...].m'
                  f"{'buffer' if info.buffer else 'list' if info.is_list else 'ndarray'}"
                  f"[{info.rank}-D, {info.element!r}{', ' + info.storage if info.storage else ''}]"
                  for name, info in self.arrays.items()]   # buffer: an array.array or a memoryview
        return ", ".join(parts)


@record
class Analysed:
    """Every stage's record for one loop and signature, up to the rendered C source."""

    signature: Signature
    typed: TypedLoop
    live_outs: tuple                 # the live-outs the typed loop has variables for
    facts: HoistFacts | None         # the checks hoisted before the loop (None: MEGAGUARDS_HOIST=0)
    layout: Layout
    key: LoopKey
    plan: object                     # analysis.parallel.ParallelPlan (None: no parallel analysis)
    template: LoopTemplate | None    # the features' template without a GPU band, if cached
    rendered: object                 # codegen.renderer's rendered kernel (the one-core one under auto)
    lazy_parallel: bool              # under auto, the all-cores kernel is rendered when first chosen
    reasons: tuple[Reason, ...]
    laps: tuple[tuple[str, float], ...]   # (stage, seconds)

    @property
    def seconds(self) -> float:
        return sum(seconds for _, seconds in self.laps)

    def feature_template(self, band=None) -> LoopTemplate:
        if band is None and self.template is not None:
            return self.template
        return loop_template(self.typed, self.plan, band)

    def describe_laps(self) -> str:
        return ", ".join(f"{stage} {1e3 * seconds:.1f} ms" for stage, seconds in self.laps)


class _Laps:
    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.laps: list[tuple[str, float]] = []

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps.append((stage, now - self.last))
        self.last = now


def analyse(loop: ir.Loop, live_outs: tuple, signature: Signature, options) -> Analysed | Rejected:
    """Run the stages for ``signature``; ``live_outs``: the names read after the loop."""
    lap = _Laps()
    if any(use.rank > MAX_RANK for use in loop.arrays):
        return Rejected(f"an array of more than {MAX_RANK} dimensions", stage="signature")
    for use in loop.arrays:
        if use.tuple_indexed and signature.arrays[use.name].is_list:
            return Rejected(f"'{use.name}[i, j]' on a list (Python raises TypeError)", stage="signature")
    if loop.column_aliases:   # zip(*rows)'s columns are read in place: no name of rows may be written
        groups = signature.groups
        written = {node.array for node in ir.walk(loop.body) if isinstance(node, (ir.Store, ir.RowSwap))}
        for _, table in loop.column_aliases:
            for name in written | ir.appends_in(loop.body) | ir.rebound_names(loop.body):
                if groups.get(name, name) == groups.get(table, table):
                    return Rejected(f"'{name}' is '{table}', written while zip(*{table}) reads its columns",
                                    stage="signature")
    try:
        typed = infer_types(loop.body, signature.scalars, signature.arrays, signature.functions, signature.groups)
    except Unsupported as unsupported:
        return Rejected.of(unsupported, "types")
    lap("type inference")
    typed_live_outs = tuple(name for name in live_outs if name in typed.variables)
    # A list that grows in place changes its length as the loop runs: its checks stay in the
    # loop (none hoisted on its length at entry), and the loop on one core (its appends in order).
    grown = grown_lists(typed)
    facts = hoist_checks(typed) if options.hoist and not grown else None
    distribution = None
    # Split for the CPU's threads; under --device gpu the GPU takes the loops as written
    # (a time-step region launching the inner loop per step), as before splits existed.
    if options.parallel and options.device != "gpu" and facts is not None and not facts.empty \
            and may_distribute(typed):
        distribution = cached_distribution(typed, facts, signature.groups)
        if distribution.splits:   # the loops it became, hoisted again
            typed = distribute(typed, distribution)
            facts = hoist_checks(typed)
    boxed = touched_box(typed, facts) if facts is not None and not facts.empty else frozenset()
    layout = plan_layout(typed, tuple(signature.scalars), typed_live_outs, len(facts.loops) if facts else 0, boxed)
    lap("bounds and layout")
    key = LoopKey.of(typed)   # names the cached plan and rendered source
    lap("cache key")
    plan = template = None
    # Under auto the loop is first rendered and compiled without OpenMP: a one-core choice
    # (most small entries) then skips the parallel kernel's rendering, about twice as long.
    wants_lazy = options.device == "auto"
    if options.parallel and facts is not None:
        plan, template, rendered = cached_plan_and_render(typed, layout, facts, signature.groups, options.reassociate,
                                                          wants_lazy, options.threads, options.parallel_work, key)
        reasons = tuple(Reason("parallel", text) for text in plan.reasons)
        if distribution is not None and distribution.notes:   # said where the loops run in parallel
            plan = records.replace(plan, notes=distribution.notes + plan.notes)
    else:
        rendered = cached_render(typed, layout, facts, None, options.threads, options.parallel_work, key)
        reasons = tuple(Reason("parallel", f"it appends to '{name}' and indexes it: one core, in order")
                        for name in sorted(grown) if options.parallel)

    lap("parallel plan and render")
    return Analysed(signature, typed, typed_live_outs, facts, layout, key, plan, template, rendered,
                    wants_lazy and plan is not None and bool(plan.loops), reasons, tuple(lap.laps))
