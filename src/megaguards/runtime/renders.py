"""Rendered C kernels kept on disk: a process that meets a loop and signature it met
before reads the kernel's source (and what the runtime needs to know of it) instead of
rendering it again, 10-20 ms for a large nest.  The compiled object is then found by its
source's hash as usual (``compiler.py``).

The key is everything the renderer reads: the typed loop (``loopkey.py``, which also
determines the hoisted-check facts), the layout, whether checks are hoisted, the parallel
plan by loop nid, the thread count and the work threshold of OpenMP.  A loop's first
kernel is also kept with its parallel plan in one file (``cached_plan_and_render``)."""
from __future__ import annotations

from ..analysis.features import LoopTemplate
from ..analysis.parallel import ParallelPlan
from ..codegen.targets.c import RenderedKernel
from . import plans
from .cachefile import cache_path, read_record, write_record
from .loopkey import LoopKey, digest


def cached_render(typed, layout, facts, plan, threads: int, work_threshold: int, key: LoopKey) -> RenderedKernel:
    hoisted = facts is not None and not facts.empty
    name = digest(key.typed_digest, layout, hoisted, plans.plan_loops(plan), threads, work_threshold)
    path = cache_path("renders", f"{name}.marshal")
    try:
        return from_record(read_record(path))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    # Here: a process whose kernels are all rendered already imports no renderer (1-2 ms).
    from ..codegen.renderer import Renderer
    from ..codegen.targets.c import C
    from ..codegen.targets.openmp import OPENMP

    target = OPENMP if plan is not None and plan.loops else C
    rendered = Renderer(typed, layout, target, facts, plan, threads, work_threshold).render()
    try:
        write_record(path, record(rendered))
    except OSError:
        pass
    return rendered


def record(rendered: RenderedKernel) -> dict:
    return {"source": rendered.source, "checks_in_loop": rendered.checks_in_loop,
            "preconditions": list(rendered.preconditions), "parallel": rendered.parallel,
            "float_status": rendered.float_status}


def from_record(data: dict) -> RenderedKernel:
    return RenderedKernel(data["source"], data["checks_in_loop"], tuple(data["preconditions"]), data["parallel"],
                          data["float_status"])


def cached_plan_and_render(typed, layout, facts, groups: dict, reassociate: bool, lazy_parallel: bool, threads: int,
                           work_threshold: int, key: LoopKey) -> tuple[ParallelPlan, LoopTemplate | None,
                                                                       RenderedKernel]:
    """The parallel plan, its feature template and the kernel a loop's first entry runs,
    from one file where an earlier process stored them (``bundles/``), else from the plan's
    and the render's caches (``plans.cached_plan``, ``cached_render``).  A process's first
    entry into a loop then reads one file instead of two: 60-120 us each on the development
    machine, where a fresh process's first read of anything is slow.  ``lazy_parallel``
    (auto): a plan with parallel loops still gets the one-core kernel first."""
    if facts is None or facts.empty:   # no plan to keep (plans.cached_plan): nothing to bundle
        plan, template = plans.cached_plan(typed, facts, groups, reassociate, key)
        return plan, template, cached_render(typed, layout, facts, plan, threads, work_threshold, key)
    name = digest(key.typed_digest, sorted(groups.items()), reassociate, layout, lazy_parallel, threads, work_threshold)
    path = cache_path("bundles", f"{name}.marshal")
    try:
        data = read_record(path)
        return (*plans.from_record(data["plan"]), from_record(data["render"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    plan, template = plans.cached_plan(typed, facts, groups, reassociate, key)
    lazy = lazy_parallel and bool(plan.loops)
    rendered = cached_render(typed, layout, facts, None if lazy else plan, threads, work_threshold, key)
    if template is not None:   # else not kept by the plan's cache either (no islpy, no hoisted checks)
        try:
            write_record(path, {"plan": plans.record(plan, template), "render": record(rendered)})
        except OSError:
            pass
    return plan, template, rendered
