"""``megaguards explain``: per loop, where it is (its line as written), what ran and why,
with a hint of what to change, and the generated code; then a summary line.

What it prints names things as the user wrote them (diagnostics/names.py); the device
choice's features and predictions come only with ``verbose``, the generated C and CUDA
only with ``show_source``."""
from __future__ import annotations

import os

from ..runtime.kernel import Specialization
from ..runtime.pipeline import Rejected
from ..runtime.site import REGISTRY, Site
from .hints import hint_for
from .names import user_names
from .report import loop_record, shown_reasons, threads


def explain_site(site: Site, show_source: bool = True, verbose: bool = False) -> str:
    record = loop_record(site)   # settles the entries skipped while backing off
    where = f"{os.path.basename(site.info.filename)}:{site.info.line}"
    if site.info.function:
        where += f" in {site.info.function}()"
    lines = [f"loop at {where}: entered {record['entries']}x, compiled {record['compiled_runs']}x, "
             f"in CPython {record['fallback_runs']}x; backend {record['backend'] or '-'}, "
             f"parallel depth {record['parallel_depth']}"]
    if record["source"]:
        lines.append(f"    {record['source']}")
    chosen = any(hasattr(s, "describe") for s in site.specializations.values())   # by the device choice
    lines.append(f"  {verdict(record, chosen and not verbose)}")
    if verbose and record["compiled_runs"]:
        lines.append("  seconds: " + ", ".join(f"{stage} {1e3 * seconds:.3g} ms"
                                               for stage, seconds in record["seconds"].items() if seconds))
    hinted: set = set()
    if site.disabled:
        add_reason(lines, "not compiled", user_names(site.disabled), hinted, record["source"])
    parallel = record["backend"] in ("c-omp", "cuda")
    for specialization in site.specializations.values():
        if isinstance(specialization, Rejected):
            add_reason(lines, "a signature not compiled", user_names(specialization.reason), hinted,
                       record["source"])
            continue
        choice = specialization if hasattr(specialization, "describe") else None  # a DeviceChoice
        specialization = getattr(specialization, "cpu", specialization)  # a DeviceChoice: its CPU half
        assert isinstance(specialization, Specialization)
        explanation = specialization.explanation
        lines.append(f"  specialization for {user_names(explanation.signature)}")
        lines.append(f"    checks left inside the loop: {specialization.checks_in_loop}")
        for number, description in enumerate(specialization.preconditions):
            lines.append(f"    hoisted check {number}: {user_names(description)}")
        for line in explanation.parallel:
            if line.startswith("CUDA kernel:"):
                if show_source:
                    lines.extend(f"    {part}" for part in line.splitlines())
                continue
            if not parallel and ": parallel (OpenMP)" in line:
                line = line.replace(": parallel (OpenMP)", ": can run in parallel (OpenMP), ran on one core", 1)
            lines.append(f"    {user_names(line)}")
        if choice is not None and verbose:
            lines.extend(f"    {line}" for line in choice.describe())
        if show_source:
            lines.append("    generated C:")
            lines.extend("      " + line for line in explanation.source.rstrip().splitlines())
    said = {line.split(": ", 1)[1] for line in lines
            if line.startswith(("  not compiled: ", "  a signature not compiled: "))}
    for reason in shown_reasons(record):
        if reason not in said:  # already said as "not compiled"
            add_reason(lines, "reason", reason, hinted, record["source"])
    lines.extend(f"  {user_names(reason)}" for reason in site.backoff_reasons())
    return "\n".join(lines)


def add_reason(lines: list, label: str, reason: str, hinted: set, source: str = "") -> None:
    """``label: reason``, and under it the hint of what to change (once per loop)."""
    lines.append(f"  {label}: {reason}")
    hint = hint_for(reason, source)
    if hint is not None and hint not in hinted:
        hinted.add(hint)
        lines.append(f"    hint: {hint}")


def verdict(record: dict, chosen: bool = False) -> str:
    """What ran, in words: compiled (where) or CPython, and how often each; ``chosen``: a
    device choice picked the device (--verbose says how)."""
    compiled, entries = record["compiled_runs"], record["entries"]
    if not compiled:
        return "stayed in CPython"
    where = {"cuda": "on the GPU", "c-omp": f"in parallel, on up to {threads()} cores (OpenMP)"}.get(
        record["backend"], "on one core")
    share = "" if compiled == entries else f" for {compiled} of {entries} entries (CPython ran the others)"
    why = ", as the device choice decided (--verbose says why)" if chosen else ""
    return f"compiled{share}, ran {where}{why}"


def summary(records: list[dict]) -> str:
    """``N of M loops compiled (K in parallel, on C cores; G on the GPU), L stayed in CPython``,
    over the loops that were entered."""
    compiled = [r for r in records if r["compiled_runs"]]
    parallel = sum(r["backend"] == "c-omp" for r in compiled)
    gpu = sum(r["backend"] == "cuda" for r in compiled)
    where = [f"{parallel} in parallel, on {threads()} cores"] if parallel else []
    where += [f"{gpu} on the GPU"] if gpu else []
    detail = f" ({'; '.join(where)})" if where else ""
    stayed = len(records) - len(compiled)
    return (f"megaguards: {len(compiled)} of {len(records)} loop{'s' if len(records) != 1 else ''} compiled{detail}, "
            f"{stayed} stayed in CPython")


def explain_all(show_source: bool = True, verbose: bool = False) -> str:
    sites = [site for site in REGISTRY.sites if site.stats.entries]
    if not sites:
        return "megaguards: no loop sites were reached"
    blocks = [explain_site(site, show_source, verbose) for site in sites]
    return "\n\n".join(blocks) + "\n\n" + summary([loop_record(site) for site in sites])
