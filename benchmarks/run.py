#!/usr/bin/env python3
"""megaguards benchmark runner: ratios against CPython, side by side, in one run.

    python benchmarks/run.py [--quick] [--repetitions N] [--only GROUP[,GROUP...]]

Every program in benchmarks/programs/ is a plain Python script; it runs under
CPython (``python prog.py ...``) and under megaguards (``python -m megaguards
run prog.py ...``) in subprocesses, N times each, interleaved, and the best run
counts.  Programs print ``checksum=`` (must be identical across interpreters),
``time=`` (the kernel region, timed inside the program with
time.perf_counter) and ``first=`` (the first call of the kernel in its process).
The table of ratios, with each target and PASS/FAIL, is printed and written to
benchmarks/results/latest.md and latest.json (latest-only.* with --only).  Exit
status: 0 when every row with a target passes and every checksum matches, 1
otherwise, 2 if a benchmark could not run.

See benchmarks/README.md for what each row means.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness, hoisting: also when imported by path

from harness import (PROGRAMS, REPOSITORY, RESULTS, BenchmarkError, Runner,  # noqa: E402
                     compiled_problem, export_source, kernel_site, machine_info, ratio_text,
                     render_markdown, render_text, seconds, status)
from hoisting import hoist_engines, hoist_rows, save_kernel  # noqa: E402

MICRO = Path(__file__).resolve().parent / "micro"

FULL = {
    "repetitions": 3,          # subprocess runs per interpreter (best counts)
    "mm_n": 300,
    "kernel_repeats": 3,       # calls of the kernel inside one process for the warm rows
    "mandelbrot": (200, 200, 200),
    "overhead_calls": 10000,
    "overhead_batches": 5,
    "overhead_iterations": (4, 1),
    "unbox_n": 10**7,
    "unbox_repeats": 5,
    "cold_n": 300,
    "numpy_overhead_iterations": 4,
    "hoist_mm_n": 300,
    "stencil": (400, 20),      # grid side, time steps
    "saxpy_n": 10**7,
    "hoist_repeats": 5,        # kernel calls per megaguards process in the hoisting rows (CPython: 1)
    "failures_calls": 100000,  # calls of the hot function with two sites that never compile
    "failures_batches": 5,
}
QUICK = {
    "repetitions": 1,
    "mm_n": 150,
    "kernel_repeats": 2,
    "mandelbrot": (100, 100, 100),
    "overhead_calls": 2000,
    "overhead_batches": 3,
    "overhead_iterations": (4,),
    "unbox_n": 10**6,
    "unbox_repeats": 3,
    "cold_n": 100,
    "numpy_overhead_iterations": 4,
    "hoist_mm_n": 100,
    "stencil": (100, 10),
    "saxpy_n": 10**6,
    "hoist_repeats": 2,
    "failures_calls": 20000,
    "failures_batches": 3,
}
# Targets (full sizes; in --quick mode the sizes are smaller, so PASS/FAIL is indicative only).
MM_TARGET = 50.0
MANDELBROT_TARGET = 50.0
OVERHEAD_TARGET_US = 20.0
COLD_TARGET_S = 0.5
WARM_COMPILE_TARGET_S = 0.01   # "~0": a disk-cache hit plus dlopen, nothing compiled
UNBOX_TARGET = 3.0
NUMPY_OVERHEAD_TARGET_US = 10.0  # mega guard + dispatch of a warm site whose live-ins are NumPy arrays
HOIST_TARGET = 1.3               # hoisting on vs off (MEGAGUARDS_HOIST), stencil and saxpy; mm: info
FAILURES_TARGET_US = 0.2         # per entry of a site that never compiles, over CPython (issue 25)

# --only: groups of rows, in the order a full run runs them.  A name selects its group; a name
# that is no group selects the groups it prefixes ("hoist" = hoist-mm, hoist-stencil, hoist-saxpy).
GROUPS = {
    "mm": "rows 1, 1b, 1c: mm speed-up over CPython, first call, whole process",
    "mandelbrot": "rows 2, 2b: Mandelbrot speed-up over CPython",
    "overhead": "rows 3, 3b: per-entry overhead of a warm loop site (list live-in)",
    "overhead-numpy": "rows 3c, 3d: per-entry overhead of a warm loop site with NumPy array live-ins",
    "cold": "rows 4, 4b: cold analysis + compile, second process",
    "unbox": "row 5: list unboxing vs numpy.array",
    "hoist-mm": "rows 6, 6b, 6c: hoisting on vs off, mm on nested float lists",
    "hoist-stencil": "rows 7, 7b, 7c: hoisting on vs off, 2-D Jacobi stencil on NumPy arrays "
                     "(also saves results/stencil_kernel_hoisted.c)",
    "hoist-saxpy": "rows 8, 8b, 8c: hoisting on vs off, saxpy on NumPy float64 arrays",
    "failures": "row 9: a hot function whose two loop sites never compile (back-off), per call vs CPython",
    "startup": "rows 10, 10b, 10e, 10c, 10d: a loop-free script's start-up vs python (median of 10; 10e under "
               "python -S); importing a "
               "module of 2000 loops, rewrite cache warm vs its .pyc, and cold (benchmarks/startup.py)",
}
KERNEL_DUMP = "stencil_kernel_hoisted.c"


def select_groups(values: list[str] | None) -> list[str]:
    """The groups named by --only (comma-separated, repeatable), in run order."""
    if not values:
        return list(GROUPS)
    chosen = set()
    for value in values:
        for token in filter(None, (t.strip().lower() for t in value.split(","))):
            matched = [token] if token in GROUPS else [g for g in GROUPS if g.split("-")[0] == token]
            if not matched:
                raise SystemExit(f"--only: unknown group {token!r}; groups: {', '.join(GROUPS)}, "
                                 f"or 'hoist' for every hoist-* group")
            chosen.update(matched)
    return [g for g in GROUPS if g in chosen]


# ----------------------------------------------------------------------------- rows



def pypy_cell(summary: dict, key: str = "time") -> str:
    if "pypy" not in summary:
        return "-"
    return f"{seconds(summary['pypy'][key])} ({ratio_text(summary['cpython'][key] / summary['pypy'][key])})"


def speedup_rows(summary: dict, label: str, function: str, target: float, row_id: str) -> list[dict]:
    cpython, mega = summary["cpython"], summary["megaguards"]
    problem = compiled_problem(summary, function)
    notes = []
    if not summary["checksums_match"]:
        notes.append("CHECKSUM MISMATCH")
    if problem:
        notes.append(problem)
    warm = cpython["time"] / mega["time"]
    site = kernel_site(mega["report"], function)
    breakdown = ""
    if site:
        s, runs = site["seconds"], max(site["compiled_runs"], 1)
        breakdown = (f"mean per compiled call (report): unbox {seconds(s['unbox'] / runs)}, execute {seconds(s['execute'] / runs)}, "
                     f"write-back {seconds(s['writeback'] / runs)}; checks in loop: {site['checks_in_loop']}")
    rows = [{
        "id": row_id, "benchmark": f"{label}: kernel, warm (incl. unbox + write-back)",
        "cpython": seconds(cpython["time"]), "megaguards": seconds(mega["time"]), "pypy": pypy_cell(summary),
        "result": ratio_text(warm), "value": warm, "unit": "x", "target": f">= {target:g}x",
        "checks": str(site["checks_in_loop"]) if site else "-",
        "status": status(warm >= target and summary["checksums_match"] and not problem),
        "notes": "; ".join(notes + ([breakdown] if breakdown else [])),
    }]
    first = cpython["first"] / mega["first"]
    rows.append({
        "id": row_id + "b", "benchmark": f"{label}: kernel, first call in a process (disk cache warm)",
        "cpython": seconds(cpython["first"]), "megaguards": seconds(mega["first"]), "pypy": pypy_cell(summary, "first"),
        "result": ratio_text(first), "value": first, "unit": "x", "target": "info", "status": "INFO",
        "notes": "includes per-process analysis, megaguards' lazy imports and the loading of kernels",
    })
    return rows


def wall_row(summary: dict, label: str, row_id: str) -> dict:
    cpython, mega = summary["cpython"], summary["megaguards"]
    value = cpython["wall"] / mega["wall"]
    return {
        "id": row_id, "benchmark": f"{label}: whole process wall time (1 call, start-up + data set-up)",
        "cpython": seconds(cpython["wall"]), "megaguards": seconds(mega["wall"]), "pypy": pypy_cell(summary, "wall"),
        "result": ratio_text(value), "value": value, "unit": "x", "target": "info", "status": "INFO",
        "notes": "python prog.py vs python -m megaguards run prog.py; disk cache warm"
                 + ("" if summary["checksums_match"] else "; CHECKSUM MISMATCH"),
    }


def overhead_rows(summary: dict, iterations: int, calls: int, row_id: str, function: str = "tiny",
                  what: str = "loop-site entry overhead", target_us: float | None = OVERHEAD_TARGET_US) -> list[dict]:
    cpython, mega = summary["cpython"], summary["megaguards"]
    difference = mega["time"] - cpython["time"]
    problem = compiled_problem(summary, function, every_entry=True)
    site = kernel_site(mega["report"], function)
    inside = ""
    if site and site["compiled_runs"]:
        s = site["seconds"]
        kernel = (s["unbox"] + s["execute"] + s["writeback"]) / site["compiled_runs"]
        inside = (f"of which the report's unbox + execute + write-back: {kernel * 1e6:.2f} us/entry (mean over "
                  f"all entries); the rest is the site call, guard/signature, argument set-up and dispatch")
    notes = [n for n in (problem, None if summary["checksums_match"] else "CHECKSUM MISMATCH") if n]
    passed = summary["checksums_match"] and not problem
    if target_us is not None:
        passed = passed and difference * 1e6 <= target_us
    return [{
        "id": row_id, "benchmark": f"{what}, {iterations}-iteration loop ({calls} calls, warm)",
        "cpython": f"{cpython['time'] * 1e6:.2f} us/call", "megaguards": f"{mega['time'] * 1e6:.2f} us/call",
        "pypy": f"{summary['pypy']['time'] * 1e6:.2f} us/call" if "pypy" in summary else "-",
        "result": f"{difference * 1e6:+.1f} us/entry", "value": difference * 1e6, "unit": "us",
        "target": f"<= {target_us:g} us" if target_us is not None else "info",
        "checks": str(site["checks_in_loop"]) if site else "-",
        "status": status(passed) if target_us is not None else ("INFO" if passed else "FAIL"),
        "notes": "; ".join(notes + [f"megaguards/CPython per call: {mega['time'] / cpython['time']:.0f}x slower"]
                           + ([inside] if inside else [])),
    }]


def failures_row(summary: dict, calls: int) -> dict:
    """Row 9: megaguards / CPython per call of ``hot``, whose two sites fail on every entry."""
    cpython, mega = summary["cpython"], summary["megaguards"]
    sites = [loop for loop in mega["report"]["loops"] if loop["function"] == "hot"]
    per_entry = (mega["time"] - cpython["time"]) / max(len(sites), 1)
    ratio = mega["time"] / cpython["time"]
    notes = [] if summary["checksums_match"] else ["CHECKSUM MISMATCH"]
    if len(sites) != 2 or any(loop["compiled_runs"] or not loop.get("backoff") for loop in sites):
        notes.append(f"expected 2 sites of hot() backing off, never compiled: {sites}")
    notes += [f"{loop['backoff'][0]['cause']}: {loop['backoff'][0]['failures']} tries of {loop['entries']} entries"
              for loop in sites if loop.get("backoff")]
    notes.append(f"first batch (includes the failing tries): {mega['first'] * 1e6:.2f} us/call")
    return {
        "id": "9", "benchmark": f"hot function, 2 sites that never compile (sum(genexpr), for; ints and floats "
                                f"mixed), {calls} calls, warm",
        "cpython": f"{cpython['time'] * 1e6:.2f} us/call", "megaguards": f"{mega['time'] * 1e6:.2f} us/call",
        "pypy": f"{summary['pypy']['time'] * 1e6:.2f} us/call" if "pypy" in summary else "-",
        "result": f"{ratio:.2f}x CPython ({per_entry * 1e6:+.2f} us/site entry)", "value": ratio, "unit": "x",
        "target": f"<= {FAILURES_TARGET_US:g} us/site entry",
        "status": status(per_entry * 1e6 <= FAILURES_TARGET_US and len(notes) == len(sites) + 1),
        "notes": "; ".join(notes),
    }


def cold_rows(runner: Runner, n: int) -> tuple[list[dict], dict]:
    """Fresh empty cache dir per repetition: analysis + compile of matmul's loop; then a
    second process on the same cache dir must compile nothing."""
    program = PROGRAMS / "mm.py"
    colds, warms, details = [], [], []
    for repetition in range(runner.settings["repetitions"]):
        cache = Path(tempfile.mkdtemp(prefix="mg-bench-cold-"))
        try:
            cold = runner.run_once("megaguards", program, [str(n), "1"], cache_dir=cache)
            kernels = cache / "kernels"
            before = sorted(p.name for p in kernels.glob("*.so")) if kernels.is_dir() else []
            warm = runner.run_once("megaguards", program, [str(n), "1"], cache_dir=cache)
            after = sorted(p.name for p in kernels.glob("*.so")) if kernels.is_dir() else []
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        cold_site, warm_site = kernel_site(cold["report"], "matmul"), kernel_site(warm["report"], "matmul")
        if cold_site is None or warm_site is None:
            raise BenchmarkError("no matmul loop site in the megaguards report")
        record = {
            "cold_analysis": cold_site["seconds"]["analysis"], "cold_compile": cold_site["seconds"]["compile"],
            "warm_analysis": warm_site["seconds"]["analysis"], "warm_compile": warm_site["seconds"]["compile"],
            "cold_compiled_runs": cold_site["compiled_runs"], "warm_compiled_runs": warm_site["compiled_runs"],
            "cold_first_call": cold["first"], "warm_first_call": warm["first"],
            "cold_wall": cold["wall"], "warm_wall": warm["wall"],
            "cold_process_compile_all_sites": sum(l["seconds"]["compile"] for l in cold["report"]["loops"]),
            "warm_process_compile_all_sites": sum(l["seconds"]["compile"] for l in warm["report"]["loops"]),
            "shared_objects_built_cold": len(before), "new_shared_objects_in_second": len(set(after) - set(before)),
            "checksums_match": cold["checksum"] == warm["checksum"],
        }
        details.append(record)
        colds.append(record["cold_analysis"] + record["cold_compile"])
        warms.append(record["warm_compile"])
        runner.log(f"    [{repetition + 1}/{runner.settings['repetitions']}] cold analysis+compile="
                   f"{colds[-1]:.3f}s, second process compile={warms[-1] * 1e3:.2f}ms, "
                   f"new .so files in second process: {record['new_shared_objects_in_second']}")
    cold_value = statistics.median(colds)
    warm_value = statistics.median(warms)
    median_record = sorted(details, key=lambda r: r["cold_analysis"] + r["cold_compile"])[len(details) // 2]
    compiled_everywhere = all(r["cold_compiled_runs"] and r["warm_compiled_runs"] for r in details)
    nothing_new = all(r["new_shared_objects_in_second"] == 0 for r in details)
    rows = [{
        "id": "4", "benchmark": "cold analysis + compile of mm's loop (gcc, empty cache dir)",
        "cpython": "-", "megaguards": f"{cold_value:.3f} s", "pypy": "-",
        "result": f"{cold_value:.3f} s", "value": cold_value, "unit": "s", "target": f"<= {COLD_TARGET_S:g} s",
        "status": status(cold_value <= COLD_TARGET_S and compiled_everywhere),
        "notes": (f"median of {len(colds)} fresh cache dirs (all: {', '.join(f'{c:.3f}' for c in colds)} s); "
                  f"analysis {median_record['cold_analysis'] * 1e3:.1f} ms + compile "
                  f"{median_record['cold_compile'] * 1e3:.1f} ms (report seconds); first matmul call in that "
                  f"process {median_record['cold_first_call']:.3f} s (vs {median_record['warm_first_call']:.3f} s "
                  f"with the cache filled); .so files built by the cold process (kernels + marshal helper): "
                  f"{median_record['shared_objects_built_cold']}"),
    }, {
        "id": "4b", "benchmark": "compile of mm's loop in a 2nd process, same cache dir",
        "cpython": "-", "megaguards": f"{warm_value * 1e3:.2f} ms", "pypy": "-",
        "result": f"{warm_value:.4f} s", "value": warm_value, "unit": "s",
        "target": f"~0 s (< {WARM_COMPILE_TARGET_S:g} s, no new .so)",
        "status": status(warm_value < WARM_COMPILE_TARGET_S and nothing_new and compiled_everywhere),
        "notes": (f"loaded from disk; new .so files written by the 2nd process: "
                  f"{sum(r['new_shared_objects_in_second'] for r in details)}; analysis still runs per process: "
                  f"{median_record['warm_analysis'] * 1e3:.1f} ms"),
    }]
    return rows, {"runs": details, "n": n}


def unbox_rows(runner: Runner) -> tuple[list[dict], dict]:
    command = [sys.executable, str(MICRO / "unbox.py"), str(runner.settings["unbox_n"]),
               str(runner.settings["unbox_repeats"])]
    result = subprocess.run(command, capture_output=True, text=True, env=runner.environment(), cwd=str(REPOSITORY))
    if result.returncode != 0:
        raise BenchmarkError(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr[-3000:]}")
    data = json.loads(result.stdout.strip().splitlines()[-1])
    best = data["best"]
    value = best["numpy_array"] / best["megaguards"]
    n = data["n"]
    exponent = len(str(n)) - 1
    size = f"10^{exponent}" if n == 10**exponent else str(n)
    rows = [{
        "id": "5", "benchmark": f"unbox a list of {size} floats: megaguards vs numpy.array(list)",
        "cpython": f"{seconds(best['numpy_array'])} (numpy.array)",
        "megaguards": seconds(best["megaguards"]), "pypy": "-",
        "result": ratio_text(value), "value": value, "unit": "x", "target": f">= {UNBOX_TARGET:g}x",
        "status": status(value >= UNBOX_TARGET and data["equal"]),
        "notes": (f"{data['api']}; same process, best of {data['repeats']}, interleaved; buffers equal: "
                  f"{data['equal']}; vs numpy.array(list, dtype=float64) "
                  f"{seconds(best['numpy_array_dtype'])}: {best['numpy_array_dtype'] / best['megaguards']:.1f}x"),
    }]
    runner.log(f"    numpy.array {best['numpy_array']:.4f}s, megaguards {best['megaguards']:.4f}s ({data['api']})")
    return rows, data


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 1 repetition (targets are for full sizes)")
    parser.add_argument("--repetitions", "-n", type=int, help="subprocess runs per interpreter (default 3; 1 with --quick)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--only", metavar="GROUP[,GROUP]", action="append",
                        help="run only these groups of rows (repeatable): " + "; ".join(
                            f"{name} ({what})" for name, what in GROUPS.items())
                        + "; 'hoist' = every hoist-* group. "
                          "Results go to results/latest-only.{md,json}, leaving latest.* alone")
    parser.add_argument("--ref", metavar="COMMIT",
                        help="benchmark src/ as of this git commit (exported to a temporary folder put first on "
                             "PYTHONPATH) instead of the working tree, e.g. while src/ is being edited")
    options = parser.parse_args(argv)
    groups = select_groups(options.only)
    snapshot = None
    if options.ref:
        try:
            snapshot = export_source(options.ref)
        except BenchmarkError as error:
            print(error, file=sys.stderr)
            return 2
    settings = dict(QUICK if options.quick else FULL)
    if options.repetitions:
        settings["repetitions"] = max(1, options.repetitions)

    compiler = shutil.which("gcc") or shutil.which(os.environ.get("CC", "cc"))
    pypy = shutil.which("pypy3")
    notes = []
    if not pypy:
        print("pypy3 not installed, skipped", flush=True)
        notes.append("pypy3 not installed, skipped (no PyPy column)")
    if compiler is None:
        print("no C compiler found: megaguards cannot compile anything", file=sys.stderr)
        return 1
    machine = machine_info(compiler, pypy, options.ref)
    cache_dir = Path(tempfile.mkdtemp(prefix="mg-bench-cache-"))
    runner = Runner(settings, cache_dir, compiler, pypy, verbose=not options.quiet)
    rows: list[dict] = []
    raw: dict = {}
    started = time.perf_counter()
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    try:
        n, repeats = settings["mm_n"], settings["kernel_repeats"]
        if "mm" in groups:
            runner.log(f"[1] mm n={n}")
            raw["mm_warm"] = runner.measure("mm.py", [str(n), str(repeats)])
            raw["mm_single"] = runner.measure("mm.py", [str(n), "1"])
            rows += speedup_rows(raw["mm_warm"], f"mm n={n}", "matmul", MM_TARGET, "1")
            rows.append(wall_row(raw["mm_single"], f"mm n={n}", "1c"))

        if "mandelbrot" in groups:
            width, height, max_iter = settings["mandelbrot"]
            label = f"mandelbrot {width}x{height} max_iter={max_iter}"
            runner.log(f"[2] {label}")
            raw["mandelbrot"] = runner.measure("mandelbrot.py", [str(width), str(height), str(max_iter), str(repeats)])
            rows += speedup_rows(raw["mandelbrot"], label, "mandelbrot", MANDELBROT_TARGET, "2")

        calls, batches = settings["overhead_calls"], settings["overhead_batches"]
        if "overhead" in groups:
            for index, iterations in enumerate(settings["overhead_iterations"]):
                runner.log(f"[3] overhead, {iterations}-iteration loop, {calls} calls x {batches} batches")
                key = f"overhead_{iterations}"
                raw[key] = runner.measure("overhead.py", [str(calls), str(iterations), str(batches)])
                rows += overhead_rows(raw[key], iterations, calls, "3" + ("" if index == 0 else "b"))

        if "overhead-numpy" in groups:
            iterations = settings["numpy_overhead_iterations"]
            for row_id, write, function, what, target in (
                    ("3c", "0", "tiny", "mega guard + dispatch, NumPy live-ins (2 float64 arrays read)",
                     NUMPY_OVERHEAD_TARGET_US),
                    ("3d", "1", "tiny_write", "the same, a 3rd NumPy array written (copy + commit)", None)):
                runner.log(f"[3] overhead with NumPy arrays{' (one written)' if write == '1' else ''}, "
                           f"{iterations}-iteration loop, {calls} calls x {batches} batches")
                key = f"overhead_numpy_{'write' if write == '1' else 'read'}"
                raw[key] = runner.measure("overhead_numpy.py", [str(calls), str(iterations), str(batches), write],
                                          engines=runner.engines(pypy=False))
                rows += overhead_rows(raw[key], iterations, calls, row_id, function=function, what=what,
                                      target_us=target)

        if "cold" in groups:
            runner.log("[4] cold analysis + compile, then a second process on the same cache dir")
            cold, raw["cold_compile"] = cold_rows(runner, settings["cold_n"])
            rows += cold

        if "unbox" in groups:
            runner.log(f"[5] unboxing a list of {settings['unbox_n']} floats")
            unbox, raw["unbox"] = unbox_rows(runner)
            rows += unbox

        hoist_calls = settings["hoist_repeats"]
        if "hoist-mm" in groups:
            n = settings["hoist_mm_n"]
            runner.log(f"[6] hoisting on vs off: mm n={n}")
            raw["hoist_mm"] = runner.measure("mm.py", [str(n), str(hoist_calls)], engines=hoist_engines(),
                                             engine_arguments={"cpython": [str(n), "1"]}, function="matmul")
            rows += hoist_rows(raw["hoist_mm"], f"mm n={n}, nested float lists", "matmul", None, "6", hoist_calls)

        if "hoist-stencil" in groups:
            side, steps = settings["stencil"]
            runner.log(f"[7] hoisting on vs off: Jacobi {side}x{side}, {steps} steps")
            raw["hoist_stencil"] = runner.measure(
                "stencil.py", [str(side), str(steps), str(hoist_calls)], engines=hoist_engines(),
                engine_arguments={"cpython": [str(side), str(steps), "1"]}, function="jacobi_step", dump="hoist_on")
            stencil = hoist_rows(raw["hoist_stencil"], f"Jacobi 5-point {side}x{side}, {steps} steps, NumPy float64",
                                 "jacobi_step", HOIST_TARGET, "7", hoist_calls)
            saved = save_kernel(raw["hoist_stencil"], "jacobi_step", RESULTS / KERNEL_DUMP)
            raw["hoist_stencil"]["kernel_saved"] = saved
            copies = saved["copies"]
            stencil[0]["notes"] += (
                f"; kernel (hoisting on) saved as {saved['file']} ({saved['kernel_lines']} lines, prelude dropped); "
                + ("its copies of the loop: " + "; ".join(
                    f"[{c['condition']}] {c['mg_index']} mg_index bounds checks, {c['checked_int_ops']} checked "
                    f"int ops, {c['mg_wrap']} mg_wrap" for c in copies) if copies else
                   "no 'if (mg_fast ...)' copies of the loop found in it"))
            runner.log(f"    kernel saved: {saved['file']} (from {saved['dumped_as']})")
            rows += stencil

        if "hoist-saxpy" in groups:
            n = settings["saxpy_n"]
            exponent = len(str(n)) - 1
            size = f"10^{exponent}" if n == 10**exponent else str(n)
            runner.log(f"[8] hoisting on vs off: saxpy n={size}")
            raw["hoist_saxpy"] = runner.measure("saxpy.py", [str(n), str(hoist_calls)], engines=hoist_engines(),
                                                engine_arguments={"cpython": [str(n), "1"]}, function="saxpy")
            rows += hoist_rows(raw["hoist_saxpy"], f"saxpy n={size}, NumPy float64", "saxpy", HOIST_TARGET, "8",
                               hoist_calls)

        if "failures" in groups:
            calls = settings["failures_calls"]
            runner.log(f"[9] two sites that never compile, in a hot function: {calls} calls")
            raw["failures"] = runner.measure("failures.py", [str(calls), str(settings["failures_batches"])])
            rows.append(failures_row(raw["failures"], calls))
        if "startup" in groups:
            from startup import startup_rows

            quick = {"repetitions": 3, "cold_repetitions": 1} if options.quick else {}
            startup, raw["startup"] = startup_rows(quick, log=runner.log)
            rows += startup
    except BenchmarkError as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(runner.scratch, ignore_errors=True)
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    elapsed = time.perf_counter() - started
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else None

    mismatches = [s["program"] for s in raw.values() if isinstance(s, dict) and s.get("checksums_match") is False]
    mode = "quick (reduced sizes: PASS/FAIL is indicative only; targets are defined for full sizes)" \
        if options.quick else "full"
    header = [
        f"- date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
        f"- mode: {mode}",
        f"- repetitions: best of {settings['repetitions']} subprocess runs per interpreter "
        f"(interleaved); kernel called {settings['kernel_repeats']}x per process for the warm rows",
        f"- machine: {machine['cpu_model']}, {machine['cpu_count']} CPUs, Python {machine['python']}, "
        f"{machine['compiler_version']}",
        f"- megaguards: {machine['megaguards_source']} (imported: {machine['megaguards']})",
        f"- checksums identical across interpreters: {'yes' if not mismatches else 'NO: ' + ', '.join(mismatches)}",
        f"- total benchmark time: {elapsed:.0f} s",
    ]
    if groups != list(GROUPS):
        header.insert(2, f"- rows: only {', '.join(groups)} (--only)")
    if load_before and load_after:
        header.append(f"- load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f} on "
                      f"{machine['cpus_usable']} usable CPUs"
                      + (" -- other work was running: timings are noisy" if max(load_before[0], load_after[0])
                         > 0.5 * (machine['cpus_usable'] or 1) + 0.3 else ""))
    notes += [
        "Ratios are CPython time / megaguards time (higher is better) for the same program and sizes.",
        "Kernel times are measured inside the program with time.perf_counter around the compute function; "
        "megaguards' disk cache is filled by an untimed warm-up run, so no timed row except #4 includes a C compile.",
        "'warm' = fastest call within a process (what a hot loop costs: guard, unbox, native code, write-back); "
        "'first call' additionally pays per-process analysis and megaguards' lazy set-up.",
        "Row 3's result is the absolute per-entry overhead: megaguards per-call time minus CPython per-call "
        "time of the same function (3c, 3d: the same with NumPy array live-ins).",
        "Rows 6-8 compare megaguards with hoisting on (default) and off (MEGAGUARDS_HOIST=0) side by side: result = "
        "time with hoisting off / time with it on. CPython runs the kernel once per process there (it has no warm-up "
        "to gain); 'checks in loop' is the report's checks_in_loop (checks left in the loop that runs). "
        "Both megaguards engines run with MEGAGUARDS_DEVICE=seq. The ratio includes what the check-free loop "
        "enables besides dropping the checks (NumPy arrays written in place instead of shadow copies + commit, "
        "vectorization): see the execute-only ratio in the notes.",
    ]
    with_pypy = pypy is not None
    print()
    print("\n".join(header))
    print()
    print(render_text(rows, with_pypy))
    print()
    for row in rows:
        if row["notes"]:
            print(f"  #{row['id']}: {row['notes']}")
    failed = [row for row in rows if row["status"] == "FAIL"]
    print()
    print(f"{len(failed)} of {sum(row['status'] != 'INFO' for row in rows)} target rows FAIL"
          + (": " + ", ".join("#" + row["id"] for row in failed) if failed else ""))

    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = "latest" if groups == list(GROUPS) else "latest-only"
    (RESULTS / f"{stem}.md").write_text(render_markdown(rows, with_pypy, header, notes, machine))
    for summary in raw.values():  # keep the JSON small: reports only as their loops
        if isinstance(summary, dict):
            for engine in summary.values():
                if isinstance(engine, dict) and isinstance(engine.get("report"), dict):
                    engine["report"] = engine["report"].get("loops", [])
    document = {"version": 1, "mode": "quick" if options.quick else "full", "groups": groups,
                "settings": settings, "machine": machine, "rows": rows, "notes": notes,
                "checksums_match": not mismatches, "elapsed_seconds": elapsed,
                "load_average_1min": [load_before and load_before[0], load_after and load_after[0]], "raw": raw}
    (RESULTS / f"{stem}.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"written: {RESULTS / f'{stem}.md'}, {RESULTS / f'{stem}.json'}"
          + (f", {RESULTS / KERNEL_DUMP}" if "hoist-stencil" in groups else ""))
    return 0 if not failed and not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
