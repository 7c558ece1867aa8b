"""``--dump DIR`` (MEGAGUARDS_DUMP): every generated kernel source, and for each loop
specialization its IR after each stage, ``<file>_line<N>_<digest>.ir`` beside the
one-core kernel's ``.c`` of the same name."""
from __future__ import annotations

from pathlib import Path

from .. import config
from ..ir import nodes as ir
from ..ir.printer import format_expression, format_loop, format_typed
from .cachefile import sha256


def dump(site, source: str, suffix: str = ".c", text: str | None = None) -> None:
    """Write ``text`` (default: ``source``) under the name ``source`` gives the kernel."""
    directory = config.current().dump_dir
    if not directory:
        return
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    digest = sha256(source.encode()).hexdigest()[:10]
    stem = Path(site.info.filename).stem
    (target / f"{stem}_line{site.info.line}_{digest}{suffix}").write_text(source if text is None else text)


def dump_stages(site, source: str, loop: ir.Loop, typed, facts, plan, loops: tuple) -> None:
    """The IR after lowering and after type inference, the checks hoisted before the loop,
    and the parallel plan (``loops``: the typed loop's ``for`` loops, as the plan names them)."""
    if not config.current().dump_dir:
        return
    location = f"{site.info.filename}:{site.info.line}" + (f" in {site.info.function}()" if site.info.function else "")
    sections = [f"# megaguards: the loop at {location}, stage by stage\n",
                "## lowered (frontend/lower.py)", format_loop(loop),
                "## typed (analysis/typeinfer.py)", format_typed(typed),
                "## checks hoisted before the loop (analysis/bounds.py)", _hoisted(facts),
                "## parallel plan (analysis/parallel.py)", _plan(plan, loops)]
    dump(site, source, ".ir", "\n".join(sections))


def _hoisted(facts) -> str:
    if facts is None:
        return "# none: MEGAGUARDS_HOIST=0\n"
    lines = [f"# loop '{loop.var}': range({format_expression(loop.start)}, {format_expression(loop.stop)}, "
             f"{format_expression(loop.step_expr)})" for loop in facts.loops]
    lines += [f"# {index.description}: {format_expression(index.index)}" + (" (wrapped when negative)"
                                                                            if index.wrap else "")
              for index in facts.indices]
    lines += [f"# line {expression.line}: {format_expression(expression)} within int64"
              for expression, _, _ in facts.ranges]
    return "\n".join(lines or ["# none"]) + "\n"


def _plan(plan, loops: tuple) -> str:
    if plan is None:
        return "# none: not planned (no parallel loops asked for, or no checks hoisted)\n"
    lines = []
    for loop in loops:
        decision = plan.loops.get(loop.nid)
        if decision is not None:
            reductions = ", ".join(f"{r.var} ({r.kind})" for r in decision.reductions) or "none"
            lines.append(f"# loop '{loop.var}' at line {loop.line}: parallel; private: "
                         f"{', '.join(decision.private) or 'none'}; reductions: {reductions}")
    lines += [f"# {reason}" for reason in plan.reasons]
    return "\n".join(lines or ["# no loop runs in parallel"]) + "\n"
