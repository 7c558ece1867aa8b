"""The parallel plan of a typed loop, kept on disk: the dependence analysis (islpy, whose
import alone costs 50-150 ms) then runs once per loop and signature on a machine, not
once per process.  The plan is stored by the loops' positions in the IR walk (ids do
not survive a process), keyed by a hash of everything the analysis reads: the typed
IR (with every type), the arrays, the alias groups and the strict flag."""
from __future__ import annotations

import hashlib
import json

from .. import __version__, config
from ..analysis.parallel import ISLPY_MISSING, ParallelLoop, ParallelPlan, Reduction, plan_parallel
from ..ir import nodes as ir
from .cachefile import write_json


def _key(typed, groups: dict, strict: bool) -> str:
    text = repr((__version__, typed.body, sorted(typed.variables.items()), sorted(typed.arrays.items()),
                 sorted(typed.functions.items()), sorted(typed.live_ins), sorted(groups.items()), strict))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_plan(typed, facts, groups: dict, strict: bool) -> ParallelPlan:
    if facts is None or facts.empty:
        return plan_parallel(typed, facts, groups, strict)
    path = config.current().cache_dir / "plans" / f"{_key(typed, groups, strict)}.json"
    loops = [node for node in ir.walk(typed.body) if isinstance(node, ir.For)]
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
    position = {id(loop): k for k, loop in enumerate(loops)}
    record = {"loops": [[position[key], list(d.private), [[r.var, r.kind, r.conditional] for r in d.reductions],
                         d.weight] for key, d in plan.loops.items()], "reasons": list(plan.reasons)}
    try:
        write_json(path, record)
    except OSError:
        pass
    return plan
