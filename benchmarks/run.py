#!/usr/bin/env python3
"""megaguards benchmark runner: ratios against CPython, side by side, in one run.

    python benchmarks/run.py [--quick] [--repetitions N]

Every program in benchmarks/programs/ is a plain Python script; it runs under
CPython (``python prog.py ...``) and under megaguards (``python -m megaguards
run prog.py ...``) in subprocesses, N times each, interleaved, and the best run
counts.  Programs print ``checksum=`` (must be identical across interpreters),
``time=`` (the kernel region, timed inside the program with
time.perf_counter) and ``first=`` (the first call of the kernel in its process).
The table of ratios, with each target and PASS/FAIL, is printed and written to
benchmarks/results/latest.md and latest.json.  Exit status: 0 when every row
with a target passes and every checksum matches, 1 otherwise.

See benchmarks/README.md for what each row means.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
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
}
# Targets (full sizes; in --quick mode the sizes are smaller, so PASS/FAIL is indicative only).
MM_TARGET = 50.0
MANDELBROT_TARGET = 50.0
OVERHEAD_TARGET_US = 20.0
COLD_TARGET_S = 0.5
WARM_COMPILE_TARGET_S = 0.01   # "~0": a disk-cache hit plus dlopen, nothing compiled
UNBOX_TARGET = 3.0


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

    def environment(self, cache_dir: Path | None = None) -> dict:
        env = dict(os.environ)
        for key in ("MEGAGUARDS_DEVICE", "MEGAGUARDS_REPORT", "MEGAGUARDS_DUMP", "MEGAGUARDS_STRICT"):
            env.pop(key, None)
        env["MEGAGUARDS_CACHE_DIR"] = str(cache_dir or self.cache_dir)
        if self.compiler:
            env["CC"] = self.compiler
        env["PYTHONHASHSEED"] = "0"
        return env

    def command(self, engine: str, program: Path, arguments: list[str], report: Path | None) -> list[str]:
        if engine == "cpython":
            return [sys.executable, str(program), *arguments]
        if engine == "pypy":
            return [self.pypy, str(program), *arguments]
        return [sys.executable, "-m", "megaguards", "run", "--report-json", str(report), str(program), *arguments]

    def run_once(self, engine: str, program: Path, arguments: list[str], cache_dir: Path | None = None) -> dict:
        report = self.scratch / f"report-{time.monotonic_ns()}.json" if engine == "megaguards" else None
        command = self.command(engine, program, arguments, report)
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=self.environment(cache_dir),
                                cwd=str(REPOSITORY))
        wall = time.perf_counter() - started
        if result.returncode != 0:
            raise BenchmarkError(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr[-3000:]}")
        values = parse_output(result.stdout)
        outcome = {"wall": wall, "time": float(values["time"]), "first": float(values["first"]),
                   "checksum": values["checksum"], "stderr": result.stderr.strip()}
        if report is not None:
            outcome["report"] = json.loads(report.read_text())
            report.unlink()
        return outcome

    def engines(self) -> list[str]:
        return ["cpython", "megaguards"] + (["pypy"] if self.pypy else [])

    def measure(self, program: str, arguments: list[str]) -> dict:
        """Best of N interleaved runs per engine, after one untimed megaguards run that
        fills the disk cache (so no megaguards timing includes a C compile)."""
        path = PROGRAMS / program
        self.log(f"  {program} {' '.join(arguments)}: warm-up (fills the kernel cache)")
        self.run_once("megaguards", path, arguments)
        runs: dict[str, list[dict]] = {engine: [] for engine in self.engines()}
        for repetition in range(self.settings["repetitions"]):
            for engine in self.engines():
                outcome = self.run_once(engine, path, arguments)
                runs[engine].append(outcome)
                self.log(f"    [{repetition + 1}/{self.settings['repetitions']}] {engine:10s} "
                         f"time={outcome['time']:.6g}s first={outcome['first']:.6g}s wall={outcome['wall']:.3f}s")
        summary = {}
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
            if engine == "megaguards":
                summary[engine]["report"] = outcomes[-1]["report"]
                stderr = {o["stderr"] for o in outcomes if o["stderr"]}
                if stderr:
                    summary[engine]["stderr"] = sorted(stderr)
        reference = summary["cpython"]["checksums"]
        summary["checksum"] = reference[0] if len(reference) == 1 else reference
        summary["checksums_match"] = all(summary[e]["checksums"] == reference for e in runs) and len(reference) == 1
        summary["program"] = program
        summary["arguments"] = arguments
        return summary


# ----------------------------------------------------------------------------- rows


def kernel_site(report: dict, function: str) -> dict | None:
    sites = [loop for loop in report.get("loops", []) if loop["function"] == function]
    return min(sites, key=lambda loop: loop["line"]) if sites else None


def compiled_problem(summary: dict, function: str, every_entry: bool = False) -> str | None:
    """Why the megaguards numbers are not those of compiled code, or None."""
    site = kernel_site(summary["megaguards"]["report"], function)
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


def overhead_rows(summary: dict, iterations: int, calls: int, row_id: str) -> list[dict]:
    cpython, mega = summary["cpython"], summary["megaguards"]
    difference = mega["time"] - cpython["time"]
    problem = compiled_problem(summary, "tiny", every_entry=True)
    site = kernel_site(mega["report"], "tiny")
    inside = ""
    if site and site["compiled_runs"]:
        s = site["seconds"]
        kernel = (s["unbox"] + s["execute"] + s["writeback"]) / site["compiled_runs"]
        inside = (f"of which the report's unbox + execute + write-back: {kernel * 1e6:.2f} us/entry (mean over "
                  f"all entries); the rest is the site call, guard/signature, argument set-up and dispatch")
    notes = [n for n in (problem, None if summary["checksums_match"] else "CHECKSUM MISMATCH") if n]
    return [{
        "id": row_id, "benchmark": f"loop-site entry overhead, {iterations}-iteration loop ({calls} calls, warm)",
        "cpython": f"{cpython['time'] * 1e6:.2f} us/call", "megaguards": f"{mega['time'] * 1e6:.2f} us/call",
        "pypy": f"{summary['pypy']['time'] * 1e6:.2f} us/call" if "pypy" in summary else "-",
        "result": f"{difference * 1e6:+.1f} us/entry", "value": difference * 1e6, "unit": "us",
        "target": f"<= {OVERHEAD_TARGET_US:g} us",
        "status": status(difference * 1e6 <= OVERHEAD_TARGET_US and summary["checksums_match"] and not problem),
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


# ----------------------------------------------------------------------------- output

COLUMNS = [("id", "#"), ("benchmark", "benchmark"), ("cpython", "CPython"), ("megaguards", "megaguards"),
           ("pypy", "PyPy"), ("result", "result"), ("target", "target"), ("status", "status")]


def render_text(rows: list[dict], with_pypy: bool) -> str:
    columns = [c for c in COLUMNS if with_pypy or c[0] != "pypy"]
    table = [[title for _, title in columns]] + [[str(row[key]) for key, _ in columns] for row in rows]
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
        out.append("| " + " | ".join(str(row[key]).replace("|", "\\|") for key, _ in columns) + " |")
    out += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    out += ["", "## Machine", ""] + [f"- {key}: {value}" for key, value in machine.items()]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 1 repetition (targets are for full sizes)")
    parser.add_argument("--repetitions", "-n", type=int, help="subprocess runs per interpreter (default 3; 1 with --quick)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--ref", metavar="COMMIT",
                        help="benchmark src/ as of this git commit (exported to a temporary folder put first on "
                             "PYTHONPATH) instead of the working tree, e.g. while src/ is being edited")
    options = parser.parse_args(argv)
    snapshot = None
    if options.ref:
        snapshot = Path(tempfile.mkdtemp(prefix="mg-bench-src-"))
        archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", options.ref, "src"], capture_output=True)
        if archive.returncode != 0:
            print(f"git archive {options.ref} failed: {archive.stderr.decode()[-500:]}", file=sys.stderr)
            return 2
        subprocess.run(["tar", "-x", "-C", str(snapshot)], input=archive.stdout, check=True)
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(snapshot / "src"),
                                                                 os.environ.get("PYTHONPATH")]))
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
    try:
        n, repeats = settings["mm_n"], settings["kernel_repeats"]
        runner.log(f"[1] mm n={n}")
        raw["mm_warm"] = runner.measure("mm.py", [str(n), str(repeats)])
        raw["mm_single"] = runner.measure("mm.py", [str(n), "1"])
        rows += speedup_rows(raw["mm_warm"], f"mm n={n}", "matmul", MM_TARGET, "1")
        rows.append(wall_row(raw["mm_single"], f"mm n={n}", "1c"))

        width, height, max_iter = settings["mandelbrot"]
        label = f"mandelbrot {width}x{height} max_iter={max_iter}"
        runner.log(f"[2] {label}")
        raw["mandelbrot"] = runner.measure("mandelbrot.py", [str(width), str(height), str(max_iter), str(repeats)])
        rows += speedup_rows(raw["mandelbrot"], label, "mandelbrot", MANDELBROT_TARGET, "2")

        calls, batches = settings["overhead_calls"], settings["overhead_batches"]
        for index, iterations in enumerate(settings["overhead_iterations"]):
            runner.log(f"[3] overhead, {iterations}-iteration loop, {calls} calls x {batches} batches")
            key = f"overhead_{iterations}"
            raw[key] = runner.measure("overhead.py", [str(calls), str(iterations), str(batches)])
            rows += overhead_rows(raw[key], iterations, calls, "3" + ("" if index == 0 else "b"))

        runner.log("[4] cold analysis + compile, then a second process on the same cache dir")
        cold, raw["cold_compile"] = cold_rows(runner, settings["cold_n"])
        rows += cold

        runner.log(f"[5] unboxing a list of {settings['unbox_n']} floats")
        unbox, raw["unbox"] = unbox_rows(runner)
        rows += unbox
    except BenchmarkError as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(runner.scratch, ignore_errors=True)
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    elapsed = time.perf_counter() - started

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
    notes += [
        "Ratios are CPython time / megaguards time (higher is better) for the same program and sizes.",
        "Kernel times are measured inside the program with time.perf_counter around the compute function; "
        "megaguards' disk cache is filled by an untimed warm-up run, so no timed row except #4 includes a C compile.",
        "'warm' = fastest call within a process (what a hot loop costs: guard, unbox, native code, write-back); "
        "'first call' additionally pays per-process analysis and megaguards' lazy set-up.",
        "Row 3's result is the absolute per-entry overhead: megaguards per-call time minus CPython per-call "
        "time of the same function.",
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
    (RESULTS / "latest.md").write_text(render_markdown(rows, with_pypy, header, notes, machine))
    for summary in raw.values():  # keep the JSON small: reports only as the kernel's site
        if isinstance(summary, dict) and "megaguards" in summary and "report" in summary["megaguards"]:
            summary["megaguards"]["report"] = summary["megaguards"]["report"]["loops"]
    document = {"version": 1, "mode": "quick" if options.quick else "full", "settings": settings,
                "machine": machine, "rows": rows, "notes": notes, "checksums_match": not mismatches,
                "elapsed_seconds": elapsed, "raw": raw}
    (RESULTS / "latest.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"written: {RESULTS / 'latest.md'}, {RESULTS / 'latest.json'}")
    return 0 if not failed and not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
