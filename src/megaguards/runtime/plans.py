"""The parallel plan of a typed loop, kept on disk: the dependence analysis (islpy, whose
import alone costs 50-150 ms) then runs once per loop and signature on a machine, not
once per process.  The plan is stored by the loops' positions in the IR walk, keyed by
the typed loop (``loopkey.py``), the alias groups and the strict flag."""
from __future__ import annotations

import json

from .. import config
from ..analysis.parallel import ISLPY_MISSING, ParallelLoop, ParallelPlan, Reduction, plan_parallel
from .cachefile import write_json
from .loopkey import LoopKey, digest


def cached_plan(typed, facts, groups: dict, strict: bool, key: LoopKey) -> ParallelPlan:
    if facts is None or facts.empty:
        return plan_parallel(typed, facts, groups, strict)
    path = config.current().cache_dir / "plans" / f"{digest(key.typed_digest, sorted(groups.items()), strict)}.json"
    loops = key.loops
    try:
        data = json.loads(path.read_text())
        return ParallelPlan({id(loops[position]): ParallelLoop(id(loops[position]), tuple(private),
                                                                tuple(Reduction(*r) for r in reductions), weight)
                             for position, private, reductions, weight in data["loops"]}, tuple(data["reasons"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    plan = plan_parallel(typed, facts, groups, strict)
    if ISLPY_MISSING in plan.reasons:
        return plan  # not a property of the loop: installing islpy must change it
    record = {"loops": by_position(plan, key), "reasons": list(plan.reasons)}
    try:
        write_json(path, record)
    except OSError:
        pass
    return plan


def by_position(plan: ParallelPlan | None, key: LoopKey) -> list:
    """The plan's loops as plain data: [position, private, reductions, weight] each."""
    if plan is None:
        return []
    position = key.positions()
    return sorted([position[loop], list(d.private), [[r.var, r.kind, r.conditional] for r in d.reductions], d.weight]
                  for loop, d in plan.loops.items())
