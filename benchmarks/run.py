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
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
MICRO = HERE / "micro"
RESULTS = HERE / "results"
REPOSITORY = HERE.parent

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


class BenchmarkError(RuntimeError):
    pass


# ----------------------------------------------------------------------------- machine


def _first_line(command: list[str]) -> str | None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (result.stdout or result.stderr).strip().splitlines()
    return lines[0] if lines else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info(compiler: str | None, pypy: str | None, ref: str | None = None) -> dict:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    megaguards_version = _first_line([sys.executable, "-c", "import megaguards; print(megaguards.__version__, "
                                      "megaguards.__file__)"])
    numpy_version = _first_line([sys.executable, "-c", "import numpy; print(numpy.__version__)"])
    commit = _first_line(["git", "-C", str(REPOSITORY), "rev-parse", "--short", ref or "HEAD"])
    dirty = None if ref else _first_line(["git", "-C", str(REPOSITORY), "status", "--porcelain", "--", "src"])
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "numpy": numpy_version,
        "megaguards": megaguards_version,
        "megaguards_source": (f"src/ of commit {commit} (--ref {ref})" if ref else
                              f"working tree, HEAD {commit}" + (" + uncommitted changes in src/" if dirty else "")),
        "compiler": compiler,
        "compiler_version": _first_line([compiler, "--version"]) if compiler else None,
        "pypy3": _first_line([pypy, "--version"]) if pypy else None,
    }


# ----------------------------------------------------------------------------- running


def parse_output(stdout: str) -> dict:
    values = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in ("checksum", "time", "first"):
            values[key] = value.strip()
    for key in ("checksum", "time", "first"):
        if key not in values:
            raise BenchmarkError(f"no '{key}=' line in the program's output:\n{stdout[-2000:]}")
    return values


class Runner:
    def __init__(self, settings: dict, cache_dir: Path, compiler: str | None, pypy: str | None,
                 verbose: bool = True) -> None:
        self.settings = settings
        self.cache_dir = cache_dir
        self.compiler = compiler
        self.pypy = pypy
        self.verbose = verbose
        self.scratch = Path(tempfile.mkdtemp(prefix="mg-bench-"))

    def log(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr, flush=True)

    def environment(self, cache_dir: Path | None = None, extra: dict | None = None) -> dict:
        # No MEGAGUARDS_* setting of the caller's shell leaks into a measurement (device, hoisting,
        # threads, ...): every run sees megaguards' defaults plus what the row sets explicitly.
        env = {key: value for key, value in os.environ.items() if not key.startswith("MEGAGUARDS_")}
        env["MEGAGUARDS_CACHE_DIR"] = str(cache_dir or self.cache_dir)
        if self.compiler:
            env["CC"] = self.compiler
        env["PYTHONHASHSEED"] = "0"
        env.update(extra or {})
        return env

    def command(self, engine: str, program: Path, arguments: list[str], report: Path | None,
                dump: Path | None = None) -> list[str]:
        if engine == "cpython":
            return [sys.executable, str(program), *arguments]
        if engine == "pypy":
            return [self.pypy, str(program), *arguments]
        return [sys.executable, "-m", "megaguards", "run", "--report-json", str(report),
                *(["--dump", str(dump)] if dump else []), str(program), *arguments]

    def run_once(self, engine: str, program: Path, arguments: list[str], cache_dir: Path | None = None,
                 extra_env: dict | None = None, dump: Path | None = None) -> dict:
        report = self.scratch / f"report-{time.monotonic_ns()}.json" if engine == "megaguards" else None
        command = self.command(engine, program, arguments, report, dump)
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True,
                                env=self.environment(cache_dir, extra_env), cwd=str(REPOSITORY))
        wall = time.perf_counter() - started
        if result.returncode != 0:
            raise BenchmarkError(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr[-3000:]}")
        values = parse_output(result.stdout)
        outcome = {"wall": wall, "time": float(values["time"]), "first": float(values["first"]),
                   "checksum": values["checksum"], "stderr": result.stderr.strip(), "stdout": result.stdout}
        if report is not None:
            outcome["report"] = json.loads(report.read_text())
            report.unlink()
        return outcome

    def engines(self, pypy: bool = True) -> list[tuple]:
        """(name, kind, extra environment) of each engine a row compares."""
        # Issue 2's targets are for sequential native code, with results identical to CPython's:
        # one core, no reassociated float reduction (the parallel back ends have their own runners).
        sequential = {"MEGAGUARDS_DEVICE": "seq", "MEGAGUARDS_STRICT": "1"}
        return ([("cpython", "cpython", {}), ("megaguards", "megaguards", sequential)]
                + ([("pypy", "pypy", {})] if self.pypy and pypy else []))

    def measure(self, program: str, arguments: list[str], engines: list[tuple] | None = None,
                engine_arguments: dict | None = None, function: str | None = None,
                dump: str | None = None) -> dict:
        """Best of N interleaved runs per engine, after one untimed run of each megaguards
        engine that fills the disk cache (so no megaguards timing includes a C compile).

        ``engines``: (name, kind, extra environment) triples (default: CPython, megaguards
        and PyPy if installed); ``engine_arguments``: program arguments per engine name
        where they differ from ``arguments``; ``function``: keep that loop site of every
        megaguards run's report (``sites``); ``dump``: the engine whose warm-up run also
        writes its kernels' C source (``--dump``), into ``summary['dump_dir']``."""
        path = PROGRAMS / program
        engines = engines or self.engines()
        engine_arguments = engine_arguments or {}
        dump_dir = None
        for name, kind, extra in engines:
            if kind != "megaguards":
                continue
            args = engine_arguments.get(name, arguments)
            if dump == name:
                dump_dir = self.scratch / f"dump-{name}-{time.monotonic_ns()}"
            self.log(f"  {program} {' '.join(args)}: warm-up of {name} (fills the kernel cache"
                     + (", dumps the kernels)" if dump == name else ")"))
            self.run_once(kind, path, args, extra_env=extra, dump=dump_dir if dump == name else None)
        runs: dict[str, list[dict]] = {name: [] for name, _, _ in engines}
        for repetition in range(self.settings["repetitions"]):
            for name, kind, extra in engines:
                outcome = self.run_once(kind, path, engine_arguments.get(name, arguments), extra_env=extra)
                runs[name].append(outcome)
                self.log(f"    [{repetition + 1}/{self.settings['repetitions']}] {name:10s} "
                         f"time={outcome['time']:.6g}s first={outcome['first']:.6g}s wall={outcome['wall']:.3f}s")
        summary = {}
        kinds = {name: kind for name, kind, _ in engines}
        for engine, outcomes in runs.items():
            summary[engine] = {
                "time": min(o["time"] for o in outcomes),
                "first": min(o["first"] for o in outcomes),
                "wall": min(o["wall"] for o in outcomes),
                "times": [o["time"] for o in outcomes],
                "firsts": [o["first"] for o in outcomes],
                "walls": [o["wall"] for o in outcomes],
                "checksums": sorted({o["checksum"] for o in outcomes}),
            }
            if kinds[engine] == "megaguards":
                summary[engine]["report"] = outcomes[-1]["report"]
                if function:
                    summary[engine]["sites"] = [kernel_site(o["report"], function) for o in outcomes]
                stderr = {o["stderr"] for o in outcomes if o["stderr"]}
                if stderr:
                    summary[engine]["stderr"] = sorted(stderr)
            if engine in engine_arguments:
                summary[engine]["arguments"] = engine_arguments[engine]
        reference = summary["cpython"]["checksums"]
        summary["checksum"] = reference[0] if len(reference) == 1 else reference
        summary["checksums_match"] = all(summary[e]["checksums"] == reference for e in runs) and len(reference) == 1
        summary["program"] = program
        summary["arguments"] = arguments
        if dump_dir is not None:
            summary["dump_dir"] = str(dump_dir)
        return summary


# ----------------------------------------------------------------------------- rows


def kernel_site(report: dict, function: str) -> dict | None:
    sites = [loop for loop in report.get("loops", []) if loop["function"] == function]
    return min(sites, key=lambda loop: loop["line"]) if sites else None


def compiled_problem(summary: dict, function: str, every_entry: bool = False,
                     engine: str = "megaguards") -> str | None:
    """Why the megaguards numbers are not those of compiled code, or None."""
    site = kernel_site(summary[engine]["report"], function)
    if site is None:
        return f"no loop site of {function}() in the megaguards report"
    if site["compiled_runs"] == 0:
        return f"{function}() loop never ran compiled: {'; '.join(site['reasons']) or 'no reason given'}"
    if every_entry and site["fallback_runs"]:
        return (f"{function}() loop fell back {site['fallback_runs']} of {site['entries']} entries: "
                f"{'; '.join(site['reasons'])}")
    return None


def status(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.2f} us"


def ratio_text(value: float) -> str:
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


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


def hoist_engines() -> list[tuple]:
    """CPython, and megaguards with hoisting on and off.  Both megaguards engines are pinned to the
    sequential C back end (MEGAGUARDS_DEVICE=seq) so that the rows isolate hoisting: a parallel back
    end that only kicks in when hoisting is on would otherwise be measured with it."""
    return [("cpython", "cpython", {}),
            ("hoist_on", "megaguards", {"MEGAGUARDS_HOIST": "1", "MEGAGUARDS_DEVICE": "seq"}),
            ("hoist_off", "megaguards", {"MEGAGUARDS_HOIST": "0", "MEGAGUARDS_DEVICE": "seq"})]


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


# ----------------------------------------------------------------------------- output

COLUMNS = [("id", "#"), ("benchmark", "benchmark"), ("cpython", "CPython"), ("megaguards", "megaguards"),
           ("pypy", "PyPy"), ("result", "result"), ("target", "target"), ("checks", "checks in loop"),
           ("status", "status")]


def render_text(rows: list[dict], with_pypy: bool) -> str:
    columns = [c for c in COLUMNS if with_pypy or c[0] != "pypy"]
    table = [[title for _, title in columns]] + [[str(row.get(key, "-")) for key, _ in columns] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def render_markdown(rows: list[dict], with_pypy: bool, header: list[str], notes: list[str],
                    machine: dict) -> str:
    columns = [c for c in COLUMNS if with_pypy or c[0] != "pypy"] + [("notes", "notes")]
    out = ["# megaguards benchmark results", ""] + header + [""]
    out.append("| " + " | ".join(title for _, title in columns) + " |")
    out.append("|" + "|".join("---" for _ in columns) + "|")
    for row in rows:
        out.append("| " + " | ".join(str(row.get(key, "-")).replace("|", "\\|") for key, _ in columns) + " |")
    out += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    out += ["", "## Machine", ""] + [f"- {key}: {value}" for key, value in machine.items()]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- main


def export_source(ref: str) -> Path:
    """--ref: src/ as of a git commit, unpacked into a temporary folder put first on PYTHONPATH,
    so that every benchmarked subprocess imports it; returns the folder (delete it afterwards)."""
    snapshot = Path(tempfile.mkdtemp(prefix="mg-bench-src-"))
    archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", ref, "src"], capture_output=True)
    if archive.returncode != 0:
        shutil.rmtree(snapshot, ignore_errors=True)
        raise BenchmarkError(f"git archive {ref} failed: {archive.stderr.decode()[-500:]}")
    subprocess.run(["tar", "-x", "-C", str(snapshot)], input=archive.stdout, check=True)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(snapshot / "src"), os.environ.get("PYTHONPATH")]))
    return snapshot


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
