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
    the table on stderr (--report), with the loops of multiprocessing's children (workers.py)."""
    configuration = config.current()
    if not (configuration.report_json or configuration.report_table):
        return
    report = build_report()
    from ..runtime.process import current as current_process

    workers = current_process().workers
    if workers is not None and workers["folder"]:
        from ..workers import read_records

        report["loops"] = merged(report["loops"], read_records(workers["folder"]))
    if configuration.report_json:
        write_json(configuration.report_json, report)
    if configuration.report_table:
        print(format_table(report), file=sys.stderr)


def build_report(sites=None) -> dict:
    sites = REGISTRY.sites if sites is None else sites
    return {"version": SCHEMA_VERSION, "loops": [loop_record(s) for s in sites if s.stats.entries]}


# A loop's record as numbers that add up across processes (the others are the loop's own).
COUNTS = ("entries", "compiled_runs", "fallback_runs")
TALLIES = ("seconds", "transfers", "list_elements")   # dicts of numbers
BACKENDS = (None, "c-seq", "c-omp", "cuda")          # what ran, least first


def _key(record: dict) -> tuple:
    return record["file"], record["line"], record["function"]


def merged(own: list[dict], children: list[list[dict]]) -> list[dict]:
    """This process's loop records with its children's added: counts and seconds summed,
    reasons joined, the backend that ran the most (a loop only a child entered is added);
    ``workers``: how many children entered the loop."""
    records = {_key(r): dict(r) for r in own}
    for child in children:
        for record in child:
            mine = records.get(_key(record))
            if mine is None:
                mine = records[_key(record)] = {**record, "workers": 0, **{name: 0 for name in COUNTS},
                                                **{name: {} for name in TALLIES if name in record}}
            for name in COUNTS:
                mine[name] = mine.get(name, 0) + record.get(name, 0)
            for name in TALLIES:
                if record.get(name):
                    tally = mine.setdefault(name, {})
                    for field, value in record[name].items():
                        tally[field] = tally.get(field, 0) + value
            mine["reasons"] = list(dict.fromkeys(mine.get("reasons", []) + record.get("reasons", [])))
            mine["backend"] = max(mine.get("backend"), record.get("backend"), key=_rank)
            mine["workers"] = mine.get("workers", 0) + 1
    return list(records.values())


def _rank(backend) -> int:
    return BACKENDS.index(backend) if backend in BACKENDS else 0


def since(records: list[dict], baseline: list[dict]) -> list[dict]:
    """What ``records`` added to ``baseline`` (a forked child's records less its parent's at
    the fork); the loops entered since only, a backend only where one compiled since."""
    before = {_key(r): r for r in baseline}
    result = []
    for record in records:
        old = before.get(_key(record))
        if old is None:
            result.append(record)
            continue
        record = dict(record, **{name: record[name] - old.get(name, 0) for name in COUNTS})
        for name in TALLIES:
            if record.get(name):
                record[name] = {k: v - old.get(name, {}).get(k, 0) for k, v in record[name].items()}
        if not record["compiled_runs"]:
            record["backend"] = None
        if record["entries"]:
            result.append(record)
    return result


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
