"""The per-loop report: JSON (schema version 1) and the human-readable table."""
from __future__ import annotations

import json
import linecache
import os
import sys

from .. import config
from ..runtime.site import REGISTRY, Site
from .names import user_names

SCHEMA_VERSION = 1
NO_SUBSCRIPTS = "no subscripts proven in range before the loop"


def loop_record(site: Site) -> dict:
    site.settle()  # entries skipped while backing off, booked
    stats = site.stats
    return {
        "file": site.info.filename,
        "line": site.info.line,
        "function": site.info.function,
        "entries": stats.entries,
        "compiled_runs": stats.compiled_runs,
        "fallback_runs": stats.fallback_runs,
        "backend": ran_backend(site),
        "parallel_depth": site.parallel_depth,
        "checks_in_loop": site.checks_in_loop,
        "reasons": list(stats.reasons) + [note for note in parallel_notes(site) if note not in stats.reasons],
        "seconds": site.seconds(),
        **({"transfers": site.transfers()} if site.transfers() else {}),
        **({"list_elements": site.list_elements()} if site.list_elements() else {}),
        # Why the site runs in CPython without trying, while it does (runtime/backoff.py).
        **({"backoff": site.backoff_records()} if site.backoff_records() else {}),
        "source": source_line(site.info.filename, site.info.line),
    }


def parallel_notes(site: Site) -> list[str]:
    """What the parallel plan says its runs do, for the kernels that ran in parallel (on
    several threads or the GPU): a loop that ran on one core folded nothing in parallel."""
    notes: list[str] = []
    for compiled in site.compiled:
        if getattr(compiled, "team_runs", 0) or getattr(compiled, "gpu_runs", 0):
            own = getattr(compiled, "parallel_notes", None)
            if own is None:   # a device choice: its CPU kernel's plan
                own = getattr(getattr(compiled, "cpu", None), "parallel_notes", ())
            notes += [note for note in own if note not in notes]
    return notes


def threads() -> int:
    """The threads a parallel loop forks: MEGAGUARDS_THREADS, else OpenMP's default (its
    OMP_NUM_THREADS, else the cores this process may run on, as the cost model counts them)."""
    chosen = config.current().threads
    if chosen:
        return chosen
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    from ..runtime.costmodel import usable_cores   # only once some loop compiled

    return usable_cores()


def ran_backend(site: Site) -> str | None:
    """What ran the loop's compiled entries: ``cuda`` where an entry ran on the GPU,
    ``c-omp`` where one ran a parallel loop with more than one thread (the kernel runs an
    entry whose work is below MEGAGUARDS_PARALLEL_WORK on one thread, and a child made by
    fork runs every one so), ``c-seq`` otherwise; None where nothing compiled."""
    compiled = site.compiled
    if not compiled:
        return None
    if any(getattr(s, "gpu_runs", 0) for s in compiled):
        return "cuda"
    return "c-omp" if any(getattr(s, "team_runs", 0) for s in compiled) else "c-seq"


def source_line(filename: str, line: int) -> str:
    """The loop's line as written (its ``for`` or ``while``), "" where it cannot be read."""
    return linecache.getline(filename, line).strip()


def shown_reasons(record: dict) -> list[str]:
    """The reasons worth showing the user, as explain and the table show them (names as
    written): "no subscripts proven in range" only where it explains checks left in a
    compiled loop."""
    shown = []
    for reason in record["reasons"]:
        if reason == NO_SUBSCRIPTS and record["compiled_runs"]:
            if not record["checks_in_loop"]:
                continue
            reason = (f"{record['checks_in_loop']} check(s) left inside the loop (bounds, overflow, zero): nothing "
                      "in it could be proven in range before the loop")
        shown.append(user_names(reason))
    return shown


def decisive_reason(record: dict) -> str:
    """The reason that decided the loop's fate, for the table (every reason is in the JSON):
    for a loop that never ran compiled, the first that is not a retried guard's note."""
    reasons = shown_reasons(record)
    if not record["compiled_runs"]:
        reasons = [r for r in reasons if "the loop is typed again" not in r] or reasons
    return reasons[0] if reasons else ""


def write_configured() -> None:
    """The reports the settings ask for: the JSON file (MEGAGUARDS_REPORT, --report-json),
    the table on stderr (--report)."""
    configuration = config.current()
    if not (configuration.report_json or configuration.report_table):
        return
    report = build_report()
    if configuration.report_json:
        write_json(configuration.report_json, report)
    if configuration.report_table:
        print(format_table(report), file=sys.stderr)


def build_report(sites=None) -> dict:
    sites = REGISTRY.sites if sites is None else sites
    return {"version": SCHEMA_VERSION, "loops": [loop_record(s) for s in sites if s.stats.entries]}


def write_json(path: str, report: dict | None = None) -> None:
    report = build_report() if report is None else report
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as handle:
        json.dump(report, handle, indent=2)
        handle.write("\n")


def format_table(report: dict | None = None) -> str:
    report = build_report() if report is None else report
    if not report["loops"]:
        return "megaguards: no loop sites were reached"
    rows = [("loop", "entries", "compiled", "fallback", "backend", "checks", "reason")]
    for loop in report["loops"]:
        where = f"{os.path.basename(loop['file'])}:{loop['line']}"
        if loop["function"]:
            where += f" ({loop['function']})"
        rows.append((where, str(loop["entries"]), str(loop["compiled_runs"]), str(loop["fallback_runs"]),
                     loop["backend"] or "-", str(loop["checks_in_loop"]), decisive_reason(loop)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    return "megaguards loop report\n" + "\n".join(line.rstrip() for line in lines)
