"""The parallel plan and the feature template of a typed loop, kept on disk: the
dependence analysis (islpy, whose import alone costs 50-150 ms) then runs once per loop
and signature on a machine, not once per process, and ``auto`` reads the template
(analysis/features.py, a walk of every node: about 1 ms for a large nest) with the plan.
Both are stored by the loops' positions in the IR walk, keyed by the typed loop
(``loopkey.py``), the alias groups and the strict flag."""
from __future__ import annotations

from ..analysis.features import LoopCost, LoopTemplate, loop_template
from ..analysis.parallel import ISLPY_MISSING, ParallelLoop, ParallelPlan, Reduction, plan_parallel
from .cachefile import cache_path, read_record, write_record
from .loopkey import LoopKey, digest


def cached_plan(typed, facts, groups: dict, strict: bool, key: LoopKey) -> tuple[ParallelPlan, LoopTemplate | None]:
    """The plan, and the template without a GPU band where the cache held it (else None:
    ``loop_template`` computes it when needed)."""
    if facts is None or facts.empty:
        return plan_parallel(typed, facts, groups, strict), None
    path = cache_path("plans", f"{digest(key.typed_digest, sorted(groups.items()), strict)}.marshal")
    try:
        return from_record(read_record(path), key)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    plan = plan_parallel(typed, facts, groups, strict)
    if ISLPY_MISSING in plan.reasons:
        return plan, None  # not a property of the loop: installing islpy must change it
    template = loop_template(typed, plan)
    try:
        write_record(path, record(plan, template, key))
    except OSError:
        pass
    return plan, template


def record(plan: ParallelPlan, template: LoopTemplate, key: LoopKey) -> dict:
    """The plan and template as plain data, loops named by position."""
    return {"loops": by_position(plan, key), "reasons": list(plan.reasons), "template": template_record(template, key)}


def from_record(data: dict, key: LoopKey) -> tuple[ParallelPlan, LoopTemplate]:
    """``record``'s inverse for the same typed loop lowered afresh (KeyError, TypeError or
    IndexError on a file that is not one)."""
    loops = key.loops
    plan = ParallelPlan({id(loops[position]): ParallelLoop(id(loops[position]), tuple(private),
                                                            tuple(Reduction(*r) for r in reductions), weight)
                         for position, private, reductions, weight in data["loops"]}, tuple(data["reasons"]))
    return plan, template_from_record(data["template"], key)


def by_position(plan: ParallelPlan | None, key: LoopKey) -> list:
    """The plan's loops as plain data: [position, private, reductions, weight] each."""
    if plan is None:
        return []
    position = key.positions()
    return sorted([position[loop], list(d.private), [[r.var, r.kind, r.conditional] for r in d.reductions], d.weight]
                  for loop, d in plan.loops.items())


def template_record(template: LoopTemplate, key: LoopKey) -> dict:
    """A template without a GPU band as plain data, loops named by position in ``every_loop``."""
    position = {id(loop): k for k, loop in enumerate(key.every_loop)}
    named = lambda loop: None if loop is None else position[loop]  # noqa: E731
    return {"loops": [[named(cost.loop), named(cost.parent), list(cost.counts), cost.parallel, cost.step,
                       [[named(outer), weight, step] for outer, weight, step in cost.narrowing]]
                      for cost in template.loops],
            "outer_parallel": named(template.outer_parallel), "coalesced": template.coalesced}


def template_from_record(record: dict, key: LoopKey) -> LoopTemplate:
    loops = key.every_loop
    loop_id = lambda position: None if position is None else id(loops[position])  # noqa: E731
    costs = tuple(LoopCost(loop_id(loop), loop_id(parent), tuple(counts), parallel, step,
                           tuple((loop_id(outer), weight, outer_step) for outer, weight, outer_step in narrowing))
                  for loop, parent, counts, parallel, step, narrowing in record["loops"])
    return LoopTemplate(costs, loop_id(record["outer_parallel"]), record["coalesced"])
