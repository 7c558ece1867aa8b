"""The parallel plan and the feature template of a typed loop, kept on disk: the
dependence analysis (islpy, whose import alone costs 50-150 ms) then runs once per loop
and signature on a machine, not once per process, and ``auto`` reads the template
(analysis/features.py, a walk of every node: about 1 ms for a large nest) with the plan.
Both name loops by their nid (their position in the typed loop's walk, the same in
every process), keyed by the typed loop (``loopkey.py``), the alias groups and the
reassociate flag."""
from __future__ import annotations

from ..analysis.distribution import Distribution, plan_distribution
from ..analysis.features import LoopCost, LoopTemplate, loop_template
from ..analysis.parallel import ISLPY_MISSING, ParallelLoop, ParallelPlan, Reduction, plan_parallel
from .cachefile import cache_path, read_record, write_record
from .loopkey import LoopKey, digest


def cached_plan(typed, facts, groups: dict, reassociate: bool, key: LoopKey) -> tuple[ParallelPlan, LoopTemplate | None]:
    """The plan, and the template without a GPU band where the cache held it (else None:
    ``loop_template`` computes it when needed)."""
    if facts is None or facts.empty:
        return plan_parallel(typed, facts, groups, reassociate), None
    path = cache_path("plans", f"{digest(key.typed_digest, sorted(groups.items()), reassociate)}.marshal")
    try:
        return from_record(read_record(path))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    plan = plan_parallel(typed, facts, groups, reassociate)
    if ISLPY_MISSING in plan.reasons:
        return plan, None  # not a property of the loop: installing islpy must change it
    template = loop_template(typed, plan)
    try:
        write_record(path, record(plan, template))
    except OSError:
        pass
    return plan, template


def cached_distribution(typed, facts, groups: dict) -> Distribution:
    """The loops of ``typed`` to split or exchange (analysis/distribution.py), kept beside the
    plans: islpy then runs once per loop and signature on a machine.  Without islpy and no
    decision kept: none."""
    path = cache_path("plans", f"split-{digest(LoopKey.of(typed).typed_digest, sorted(groups.items()))}.marshal")
    try:
        return Distribution.from_data(read_record(path)["distribution"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    try:
        import islpy  # noqa: F401
    except ImportError:
        return Distribution()
    distribution = plan_distribution(typed, facts, groups)
    try:
        write_record(path, {"distribution": distribution.as_data()})
    except OSError:
        pass
    return distribution


def plan_loops(plan: ParallelPlan | None) -> list:
    """The plan's loops as plain data, [nid, private, reductions, weight, private arrays, lists
    appended to] each: loops are named by their nid, the position the same typed loop has in
    every process.  (A record of another length is not read: the plan is made again.)"""
    if plan is None:
        return []
    return sorted([nid, list(d.private), [[r.var, r.kind, r.conditional, r.fold] for r in d.reductions], d.weight,
                   [list(copied) for copied in d.private_arrays], list(d.appended)]
                  for nid, d in plan.loops.items())


def record(plan: ParallelPlan, template: LoopTemplate) -> dict:
    """The plan and template as plain data."""
    return {"loops": plan_loops(plan),
            "reasons": list(plan.reasons), "notes": list(plan.notes),
            "template": {"loops": [[cost.loop, cost.parent, list(cost.counts), cost.parallel, cost.step,
                                    [list(outer) for outer in cost.narrowing]] for cost in template.loops],
                         "outer_parallel": template.outer_parallel, "coalesced": template.coalesced}}


def from_record(data: dict) -> tuple[ParallelPlan, LoopTemplate]:
    """``record``'s inverse (KeyError, TypeError or ValueError on a file that is not one)."""
    plan = ParallelPlan({nid: ParallelLoop(nid, tuple(private), tuple(Reduction(*r) for r in reductions), weight,
                                           tuple(map(tuple, copied)), tuple(appended))
                         for nid, private, reductions, weight, copied, appended in data["loops"]},
                        tuple(data["reasons"]),
                        tuple(data["notes"]))
    template = data["template"]
    costs = tuple(LoopCost(loop, parent, tuple(counts), parallel, step, tuple(map(tuple, narrowing)))
                  for loop, parent, counts, parallel, step, narrowing in template["loops"])
    return plan, LoopTemplate(costs, template["outer_parallel"], template["coalesced"])
