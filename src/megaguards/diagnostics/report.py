"""The per-loop report: JSON (schema version 1) and the human-readable table."""
from __future__ import annotations

import json
import os

from ..runtime.site import REGISTRY, Site

SCHEMA_VERSION = 1


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
        "backend": site.backend_name,
        "parallel_depth": site.parallel_depth,
        "checks_in_loop": site.checks_in_loop,
        "reasons": list(stats.reasons),
        "seconds": site.seconds(),
        **({"transfers": site.transfers()} if site.transfers() else {}),
        **({"list_elements": site.list_elements()} if site.list_elements() else {}),
        # Why the site runs in CPython without trying, while it does (runtime/backoff.py).
        **({"backoff": site.backoff_records()} if site.backoff_records() else {}),
    }


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
                     loop["backend"] or "-", str(loop["checks_in_loop"]),
                     loop["reasons"][0] if loop["reasons"] else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    return "megaguards loop report\n" + "\n".join(line.rstrip() for line in lines)
