"""Rows 6-8 of run.py: hoisting on against off (``MEGAGUARDS_HOIST``), side by side, and the
hoisted stencil kernel's C saved with the copies of its loop and the checks each contains."""
from __future__ import annotations

import re
from pathlib import Path

from harness import REPOSITORY, BenchmarkError, compiled_problem, kernel_site, ratio_text, seconds, status


def hoist_engines() -> list[tuple]:
    """CPython, and megaguards with hoisting on and off.  Both megaguards engines are pinned to the
    sequential C back end (MEGAGUARDS_DEVICE=seq) so that the rows isolate hoisting: a parallel back
    end that only kicks in when hoisting is on would otherwise be measured with it."""
    compiled = {"MEGAGUARDS_DEVICE": "seq", "MEGAGUARDS_COMPILE_AFTER": "0"}   # every loop at its first entry
    return [("cpython", "cpython", {}),
            ("hoist_on", "megaguards", {"MEGAGUARDS_HOIST": "1", **compiled}),
            ("hoist_off", "megaguards", {"MEGAGUARDS_HOIST": "0", **compiled})]


def best_mean(summary: dict, engine: str, stage: str) -> float | None:
    """The smallest, over the runs, of the report's mean seconds[stage] per compiled run."""
    means = [site["seconds"][stage] / site["compiled_runs"] for site in summary[engine].get("sites", [])
             if site and site["compiled_runs"]]
    return min(means) if means else None


def hoist_rows(summary: dict, label: str, function: str, target: float | None, row_id: str,
               calls: int) -> list[dict]:
    """Hoisting on vs off (MEGAGUARDS_HOIST=1 / 0) for one kernel, and each against CPython."""
    cpython, on, off = summary["cpython"], summary["hoist_on"], summary["hoist_off"]
    problems = []
    for engine in ("hoist_on", "hoist_off"):
        problem = compiled_problem(summary, function, every_entry=True, engine=engine)
        if problem:
            problems.append(f"{engine}: {problem}")
    site_on, site_off = kernel_site(on["report"], function), kernel_site(off["report"], function)
    checks_on = site_on["checks_in_loop"] if site_on else None
    checks_off = site_off["checks_in_loop"] if site_off else None
    if site_on:
        failed = [r for r in site_on["reasons"] if r.startswith("hoisted check failed")]
        if failed:
            problems.append("hoisting on: " + "; ".join(failed))
    if checks_on:
        problems.append(f"hoisting on leaves {checks_on} checks in the loop (expected 0)")
    if not summary["checksums_match"]:
        problems.append("CHECKSUM MISMATCH")
    value = off["time"] / on["time"]
    passed = not problems and (target is None or value >= target)
    stages = {engine: {stage: best_mean(summary, engine, stage) for stage in ("unbox", "execute", "writeback")}
              for engine in ("hoist_on", "hoist_off")}
    entries = site_on["entries"] // max(calls, 1) if site_on else 0
    details = []
    execute_on, execute_off = stages["hoist_on"]["execute"], stages["hoist_off"]["execute"]
    if execute_on and execute_off:
        details.append(f"kernel execute only (report's seconds.execute, mean per compiled run, best run): "
                       f"on {seconds(execute_on)}, off {seconds(execute_off)}: {ratio_text(execute_off / execute_on)}")
    if entries and all(v is not None for v in stages["hoist_on"].values()):
        per_entry = on["time"] / entries
        rest = per_entry - sum(stages["hoist_on"].values())
        details.append(f"hoisting on, per loop entry ({entries} per timed call): fastest call {seconds(per_entry)}; "
                       f"report's means per compiled run (incl. each process's first call): unbox "
                       f"{seconds(stages['hoist_on']['unbox'])}, execute {seconds(execute_on)}, write-back "
                       f"{seconds(stages['hoist_on']['writeback'])}"
                       + (f", leaving ~{seconds(rest)} for the site call, guard, copies of written NumPy "
                          f"arrays made outside the kernel and the Python around the loop" if rest > 0 else ""))
    notes = problems + [f"result = megaguards time with MEGAGUARDS_HOIST=0 / with hoisting on, both "
                        f"MEGAGUARDS_DEVICE=seq (best of {len(on['times'])} processes x {calls} calls each)"] + details
    checks = f"{checks_on if checks_on is not None else '?'} on / {checks_off if checks_off is not None else '?'} off"
    rows = [{
        "id": row_id, "benchmark": f"hoisting on vs off: {label}, kernel warm",
        "cpython": seconds(cpython["time"]), "megaguards": f"{seconds(on['time'])} on / {seconds(off['time'])} off",
        "pypy": "-", "result": ratio_text(value), "value": value, "unit": "x",
        "target": f">= {target:g}x" if target is not None else "info", "checks": checks,
        "status": status(passed) if target is not None else ("INFO" if passed else "FAIL"),
        "notes": "; ".join(notes),
    }]
    for suffix, engine, state, checks_count in (("b", "hoist_on", "on", checks_on),
                                                 ("c", "hoist_off", "off", checks_off)):
        mega = summary[engine]
        speedup = cpython["time"] / mega["time"]
        rows.append({
            "id": row_id + suffix, "benchmark": f"{label}: CPython / megaguards, hoisting {state}",
            "cpython": seconds(cpython["time"]), "megaguards": seconds(mega["time"]), "pypy": "-",
            "result": ratio_text(speedup), "value": speedup, "unit": "x", "target": "info",
            "checks": str(checks_count) if checks_count is not None else "?", "status": "INFO",
            "notes": (f"megaguards/CPython time: {mega['time'] / cpython['time']:.2e}; CPython: best of "
                      f"{len(cpython['times'])} processes x 1 call"),
        })
    return rows


def _block(text: str, brace: int) -> int:
    """The index just past the block whose '{' is at ``brace``."""
    depth = 0
    for position in range(brace, len(text)):
        if text[position] == "{":
            depth += 1
        elif text[position] == "}":
            depth -= 1
            if depth == 0:
                return position + 1
    return len(text)


def loop_copies(kernel: str) -> list[dict] | None:
    """The copies of the loop in a kernel: the branches of its ``if (mg_fast ...) {} else
    if (mg_fast ...) {} else {}`` chain, each with its condition and the checks it contains."""
    checked = re.compile(r"\bmg_(?:add|sub|mul|neg|abs|floordiv|mod|pow|lshift|rshift)_i64\(")
    copies, position = [], 0
    header = re.compile(r"if \((mg_fast[^{]*)\) \{")
    match = header.search(kernel)
    if match is None:
        return None
    while True:
        brace = match.end() - 1 if match else kernel.index("{", position)
        end = _block(kernel, brace)
        body = kernel[brace:end]
        copies.append({"condition": match.group(1) if match else "else (the checking copy)",
                       "mg_index": body.count("mg_index("), "checked_int_ops": len(checked.findall(body)),
                       "mg_wrap": body.count("mg_wrap(")})
        rest = kernel[end:]
        follow = re.match(r"\s*else\s+", rest)
        if match is None or follow is None:
            return copies
        position = end + follow.end()
        match = header.match(kernel, position)


def save_kernel(summary: dict, function: str, destination: Path) -> dict:
    """The dumped C of ``function``'s loop (hoisting on), from ``int mg_kernel(`` to the end."""
    site = kernel_site(summary["hoist_on"]["report"], function)
    dump_dir = Path(summary.get("dump_dir", ""))
    if site is None or not dump_dir.is_dir():
        raise BenchmarkError(f"no kernel dump of {function}()'s loop")
    stem = Path(site["file"]).stem
    files = sorted(dump_dir.glob(f"{stem}_line{site['line']}_*"))
    if not files:
        raise BenchmarkError(f"--dump wrote no {stem}_line{site['line']}_* file in {dump_dir}")
    lines = files[0].read_text().splitlines(keepends=True)
    start = next((k for k, line in enumerate(lines) if line.startswith("int mg_kernel(")), None)
    if start is None:
        raise BenchmarkError(f"no line starting with 'int mg_kernel(' in {files[0].name}")
    kernel = "".join(lines[start:])
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(kernel)
    return {"file": str(destination.relative_to(REPOSITORY)), "dumped_as": files[0].name,
            "dumps_for_this_line": len(files), "source_line": site["line"], "prelude_lines_dropped": start,
            "kernel_lines": len(lines) - start, "copies": loop_copies(kernel)}
