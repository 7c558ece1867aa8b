"""Rendered C kernels kept on disk: a process that meets a loop and signature it met
before reads the kernel's source (and what the runtime needs to know of it) instead of
rendering it again, 10-20 ms for a large nest.  The compiled object is then found by its
source's hash as usual (``compiler.py``).

The key is everything the renderer reads: the typed loop (``loopkey.py``, which also
determines the hoisted-check facts), the layout, whether checks are hoisted, the parallel
plan by loop position, the thread count and the work threshold of OpenMP."""
from __future__ import annotations

from ..codegen.dialects.c import C
from ..codegen.renderer import RenderedKernel, Renderer
from .cachefile import cache_path, read_json, write_json
from .loopkey import LoopKey, digest
from .plans import by_position


def cached_render(typed, layout, facts, plan, threads: int, work_threshold: int, key: LoopKey) -> RenderedKernel:
    hoisted = facts is not None and not facts.empty
    name = digest(key.typed_digest, layout, hoisted, by_position(plan, key), threads, work_threshold)
    path = cache_path("renders", f"{name}.json")
    try:
        data = read_json(path)
        return RenderedKernel(data["source"], data["checks_in_loop"], tuple(data["preconditions"]),
                              data["parallel"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    rendered = Renderer(typed, layout, C, facts, plan, threads, work_threshold).render()
    try:
        write_json(path, {"source": rendered.source, "checks_in_loop": rendered.checks_in_loop,
                          "preconditions": list(rendered.preconditions), "parallel": rendered.parallel})
    except OSError:
        pass
    return rendered
