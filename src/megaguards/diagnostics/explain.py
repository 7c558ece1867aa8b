"""``megaguards explain``: per loop, what happened and why, with the generated code."""
from __future__ import annotations

import os

from ..runtime.kernel import Specialization
from ..runtime.pipeline import Rejected
from ..runtime.site import REGISTRY, Site


def explain_site(site: Site, show_source: bool = True) -> str:
    site.settle()  # entries skipped while backing off, booked
    stats = site.stats
    where = f"{os.path.basename(site.info.filename)}:{site.info.line}"
    if site.info.function:
        where += f" in {site.info.function}()"
    lines = [f"loop at {where}: entered {stats.entries}x, compiled {stats.compiled_runs}x, "
             f"in CPython {stats.fallback_runs}x; backend {site.backend_name or '-'}, "
             f"parallel depth {site.parallel_depth}"]
    if site.disabled:
        lines.append(f"  not compiled: {site.disabled}")
    for specialization in site.specializations.values():
        if isinstance(specialization, Rejected):
            lines.append(f"  a signature not compiled: {specialization.reason}")
            continue
        choice = specialization if hasattr(specialization, "describe") else None  # a DeviceChoice
        specialization = getattr(specialization, "cpu", specialization)  # a DeviceChoice: its CPU half
        assert isinstance(specialization, Specialization)
        explanation = specialization.explanation
        lines.append(f"  specialization for {explanation.signature}")
        lines.append(f"    checks left inside the loop: {specialization.checks_in_loop}")
        for number, description in enumerate(specialization.preconditions):
            lines.append(f"    hoisted check {number}: {description}")
        lines.extend(f"    {line}" for line in explanation.parallel)
        if choice is not None:
            lines.extend(f"    {line}" for line in choice.describe())
        if show_source:
            lines.append("    generated C:")
            lines.extend("      " + line for line in explanation.source.rstrip().splitlines())
    for reason in stats.reasons:
        if reason != site.disabled:  # already said as "not compiled"
            lines.append(f"  reason: {reason}")
    lines.extend(f"  {reason}" for reason in site.backoff_reasons())
    return "\n".join(lines)


def explain_all(show_source: bool = True) -> str:
    sites = [site for site in REGISTRY.sites if site.stats.entries]
    if not sites:
        return "megaguards: no loop sites were reached"
    return "\n\n".join(explain_site(site, show_source) for site in sites)
