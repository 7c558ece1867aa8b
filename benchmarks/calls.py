#!/usr/bin/env python3
"""Benchmark of user-function calls inside compiled loops (issue 6), side by side in one run.

    python benchmarks/calls.py [--n N] [--quick] [--repetitions R] [--quiet]

Runs programs/blackscholes.py (N options in float lists, default 4*10**6) in
subprocesses, interleaved, best of R runs per engine, with the runner's helpers (harness.py):

* CPython, and megaguards on the sequential back end, on all CPU cores and on the
  GPU (only when megaguards finds a CUDA device): row C1 (>= 30x CPython on the
  sequential back end), C1b, C1c (>= 200x on the H100, transfers included);
* the same loop with cnd() written out by hand ("inlined"): under megaguards the
  helper must cost nothing (row C2, times within 5 %); CPython's cost of the two
  calls is given for comparison (C2b).  Both variants run alternately in the same
  process (blackscholes.py's "both"), so that other work slows them alike.

The table goes to stdout and to benchmarks/results/calls.md (calls-quick.md with
--quick).  Exit status: 0 when every target row passes and the checksums agree,
1 otherwise, 2 if a benchmark could not run.  See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness as bench  # noqa: E402  (Runner, report sites, formatting)

PROGRAM = "blackscholes.py"
FUNCTION, INLINED_FUNCTION = "black_scholes", "black_scholes_inlined"
SEQUENTIAL_TARGET = 30.0
GPU_TARGET = 200.0
HELPER_TOLERANCE = 0.05       # helper vs inlined under megaguards: within 5 %
GPU_RELATIVE_TOLERANCE = 1e-9  # MEGAGUARDS_REASSOCIATE=1: CUDA exp/log: documented ulp bounds, not bit-identical sums
KERNEL_REPEATS = 3            # kernel calls per megaguards process (the first one pays analysis)
ALTERNATING_REPEATS = 6       # C2: calls of each variant per megaguards process (best of many: a 5 % target)
# Exact engines give CPython's results (the default); the GPU engine cannot: exact mode keeps
# exp/log off the GPU, whose versions differ in the last ulp.
SEQUENTIAL = {"MEGAGUARDS_DEVICE": "seq", "MEGAGUARDS_COMPILE_AFTER": "0"}   # the compiled code itself
ALL_CORES = {"MEGAGUARDS_DEVICE": "cpu"}
GPU = {"MEGAGUARDS_DEVICE": "gpu", "MEGAGUARDS_REASSOCIATE": "1"}


def cuda_devices(runner: bench.Runner) -> list[str]:
    """The CUDA devices megaguards itself finds (same interpreter and environment as the runs)."""
    probe = subprocess.run([sys.executable, "-c", "from megaguards.runtime import cuda; "
                            "print('\\n'.join(cuda.devices()))"],
                           capture_output=True, text=True, env=runner.environment(), timeout=120)
    return [line for line in probe.stdout.splitlines() if line.strip()] if probe.returncode == 0 else []


def engines_and_arguments(n: int, gpu: bool) -> tuple[list[tuple], dict]:
    """(name, kind, environment) per engine and each engine's program arguments.
    CPython calls the kernel once per process (nothing to warm up; seconds per call)."""
    engines = [("cpython", "cpython", {}), ("seq", "megaguards", SEQUENTIAL),
               ("cpu", "megaguards", ALL_CORES)] + ([("gpu", "megaguards", GPU)] if gpu else [])
    arguments = {name: [str(n), "1" if kind == "cpython" else str(KERNEL_REPEATS), "helper"]
                 for name, kind, _ in engines}
    return engines, arguments


def alternating(runner: bench.Runner, n: int) -> dict:
    """C2's runs: both variants in each process, CPython and megaguards seq interleaved, after
    one untimed megaguards run that compiles the inlined variant's kernel too."""
    path = bench.PROGRAMS / PROGRAM
    engines = [("cpython", "cpython", {}, "1"), ("seq", "megaguards", SEQUENTIAL, str(ALTERNATING_REPEATS))]
    runner.log(f"  {PROGRAM} {n} 1 both: warm-up of seq")
    runner.run_once("megaguards", path, [str(n), "1", "both"], extra_env=SEQUENTIAL)
    found = {name: {"helper": [], "inlined": [], "checksums": set()} for name, *_ in engines}
    for repetition in range(runner.settings["repetitions"]):
        for name, kind, environment, repeats in engines:
            outcome = runner.run_once(kind, path, [str(n), repeats, "both"], extra_env=environment)
            inlined = [line.partition("=")[2] for line in outcome["stdout"].splitlines()
                       if line.startswith("time_inlined=")]
            if not inlined:
                raise bench.BenchmarkError(f"no 'time_inlined=' line:\n{outcome['stdout'][-2000:]}")
            found[name]["helper"].append(outcome["time"])
            found[name]["inlined"].append(float(inlined[0]))
            found[name]["checksums"].add(outcome["checksum"])
            found[name]["report"] = outcome.get("report")
            runner.log(f"    [{repetition + 1}/{runner.settings['repetitions']}] {name:10s} both: helper "
                       f"{outcome['time']:.6g}s inlined {float(inlined[0]):.6g}s")
    return found


def checksums_close(reference: str, other: str) -> bool:
    expected, found = (tuple(float(part) for part in text.split(":")) for text in (reference, other))
    return all(abs(a - b) <= GPU_RELATIVE_TOLERANCE * abs(a) for a, b in zip(expected, found))


def split(summary: dict, engine: str, function: str) -> str:
    site = bench.kernel_site(summary[engine]["report"], function)
    if not site or not site["compiled_runs"]:
        return ""
    s, runs = site["seconds"], site["compiled_runs"]
    if not s["unbox"] + s["execute"] + s["writeback"]:
        return f"backend {site['backend']} (its report gives no unbox / execute / write-back split)"
    return (f"mean per compiled call (report): unbox {bench.seconds(s['unbox'] / runs)}, execute "
            f"{bench.seconds(s['execute'] / runs)}, write-back {bench.seconds(s['writeback'] / runs)}; "
            f"backend {site['backend']}, checks in loop {site['checks_in_loop']}")


def speedup_row(summary: dict, row_id: str, label: str, engine: str, target: float | None,
                exact: bool = True) -> dict:
    cpython, mega = summary["cpython"]["time"], summary[engine]["time"]
    problem = bench.compiled_problem(summary, FUNCTION, engine=engine)
    site = bench.kernel_site(summary[engine]["report"], FUNCTION)
    if exact:
        agrees = summary[engine]["checksums"] == [summary["checksum"]]
    else:
        agrees = all(checksums_close(summary["checksum"], c) for c in summary[engine]["checksums"])
    if engine == "gpu" and site and site["backend"] != "cuda":
        problem = problem or f"the loop ran on {site['backend']}, not the GPU: {'; '.join(site['reasons'])}"
    value = cpython / mega
    notes = [note for note in (problem, None if agrees else "CHECKSUM MISMATCH",
                               None if exact else f"checksum within {GPU_RELATIVE_TOLERANCE:g} relative "
                               "(MEGAGUARDS_REASSOCIATE=1: CUDA's exp/log)", split(summary, engine, FUNCTION)) if note]
    passed = agrees and not problem and (target is None or value >= target)
    return {"id": row_id, "benchmark": label, "cpython": bench.seconds(cpython), "megaguards": bench.seconds(mega),
            "result": bench.ratio_text(value), "value": value, "unit": "x",
            "target": f">= {target:g}x" if target else "info", "checks": str(site["checks_in_loop"]) if site else "-",
            "status": ("PASS" if passed else "FAIL") if target else ("INFO" if passed else "FAIL"),
            "notes": "; ".join(notes)}


def helper_rows(both: dict, reference: str, n: int) -> list[dict]:
    helper, inlined = min(both["seq"]["helper"]), min(both["seq"]["inlined"])
    difference = helper / inlined - 1.0
    problems = [p for p in (bench.compiled_problem(both, FUNCTION, engine="seq"),
                            bench.compiled_problem(both, INLINED_FUNCTION, engine="seq")) if p]
    agrees = both["seq"]["checksums"] == both["cpython"]["checksums"] == {reference}
    notes = problems + ([] if agrees else ["CHECKSUM MISMATCH (between the variants or with CPython)"])
    notes += [split(both, "seq", FUNCTION), "inlined by hand: " + split(both, "seq", INLINED_FUNCTION),
              "best call per process (s): helper " + ", ".join(f"{t:.4g}" for t in both["seq"]["helper"])
              + "; inlined " + ", ".join(f"{t:.4g}" for t in both["seq"]["inlined"])]
    cpython_helper, cpython_inlined = min(both["cpython"]["helper"]), min(both["cpython"]["inlined"])
    return [{
        "id": "C2", "benchmark": f"Black-Scholes n={n}: megaguards seq, loop calling cnd() vs cnd() inlined by hand",
        "cpython": "-", "megaguards": f"{bench.seconds(helper)} vs {bench.seconds(inlined)}",
        "result": f"{difference * 100:+.1f} %", "value": difference * 100, "unit": "%",
        "target": f"within {HELPER_TOLERANCE * 100:g} %", "checks": "-",
        "status": "PASS" if abs(difference) <= HELPER_TOLERANCE and agrees and not problems else "FAIL",
        "notes": "; ".join(notes),
    }, {
        "id": "C2b", "benchmark": f"Black-Scholes n={n}: CPython, loop calling cnd() vs cnd() inlined by hand",
        "cpython": f"{bench.seconds(cpython_helper)} vs {bench.seconds(cpython_inlined)}", "megaguards": "-",
        "result": f"{(cpython_helper / cpython_inlined - 1.0) * 100:+.1f} %",
        "value": (cpython_helper / cpython_inlined - 1.0) * 100, "unit": "%", "target": "info", "checks": "-",
        "status": "INFO", "notes": "what the two calls per option cost the interpreter",
    }]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, help="options priced per call (default 4*10**6; --quick: 2*10**5)")
    parser.add_argument("--quick", action="store_true", help="2*10**5 options, 1 run per engine: a smoke test")
    parser.add_argument("--repetitions", type=int, help="subprocess runs per engine (default 3; 1 with --quick)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--ref", metavar="COMMIT", help="benchmark src/ as of this git commit instead of the "
                        "working tree (as run.py --ref)")
    options = parser.parse_args(argv)
    n = options.n or (2 * 10**5 if options.quick else 4 * 10**6)
    settings = {"repetitions": max(1, options.repetitions or (1 if options.quick else 3)), "n": n,
                "kernel_repeats": KERNEL_REPEATS}
    compiler = shutil.which("gcc") or shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        print("no C compiler found: megaguards cannot compile anything", file=sys.stderr)
        return 1
    try:
        snapshot = bench.export_source(options.ref) if options.ref else None
    except bench.BenchmarkError as error:
        print(error, file=sys.stderr)
        return 2
    machine = bench.machine_info(compiler, None, options.ref)  # before the snapshot of --ref goes
    cache_dir = Path(tempfile.mkdtemp(prefix="mg-bench-cache-"))
    runner = bench.Runner(settings, cache_dir, compiler, None, verbose=not options.quiet)
    started = time.perf_counter()
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    try:
        gpus = cuda_devices(runner)
        engines, arguments = engines_and_arguments(n, bool(gpus))
        runner.log(f"Black-Scholes n={n}: engines {', '.join(name for name, _, _ in engines)}")
        summary = runner.measure(PROGRAM, arguments["cpython"], engines=engines, engine_arguments=arguments)
        both = alternating(runner, n)
    except bench.BenchmarkError as error:
        print(f"benchmark could not run: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(runner.scratch, ignore_errors=True)
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    elapsed = time.perf_counter() - started
    load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

    label = f"Black-Scholes n={n} (lists, cnd() helper)"
    rows = [speedup_row(summary, "C1", f"{label}: megaguards seq", "seq", SEQUENTIAL_TARGET),
            speedup_row(summary, "C1b", f"{label}: megaguards cpu ({os.cpu_count()} cores)", "cpu", None)]
    if gpus:
        rows.append(speedup_row(summary, "C1c", f"{label}: megaguards gpu ({gpus[0]})", "gpu", GPU_TARGET,
                                exact=False))
    rows += helper_rows(both, summary["checksum"], n)

    failed = [row for row in rows if row["status"] == "FAIL"]
    header = [f"- date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
              f"- mode: {'quick (smoke test: targets are for n=4*10**6)' if options.quick else 'full'}",
              f"- repetitions: best of {settings['repetitions']} subprocess runs per engine (interleaved); "
              f"megaguards calls the kernel {KERNEL_REPEATS}x per process (C2: each variant "
              f"{ALTERNATING_REPEATS}x, alternating), CPython once",
              f"- machine: {machine['cpu_model']}, {machine['cpu_count']} CPUs, Python {machine['python']}, "
              f"{machine['compiler_version']}",
              f"- GPU: {'; '.join(gpus) if gpus else 'none found by megaguards: row C1c skipped'}",
              f"- megaguards: {machine['megaguards_source']} (imported: {machine['megaguards']})",
              f"- total benchmark time: {elapsed:.0f} s"]
    if load_before is not None:
        busy = max(load_before, load_after) > 0.5 * (machine["cpus_usable"] or 1) + 0.3
        header.append(f"- load average (1 min) before / after: {load_before:.2f} / {load_after:.2f} on "
                      f"{machine['cpus_usable']} usable CPUs" + (" -- other work was running: timings are noisy"
                                                                  if busy else ""))
    notes = ["Times are the fastest call of the kernel function, measured inside the program (time.perf_counter), "
             "warm: guard, unboxing the three input lists, the native loop and writing the two output lists back.",
             "seq and cpu run with the default (exact) settings: checksums must equal CPython's exactly. The gpu "
             "engine runs with MEGAGUARDS_REASSOCIATE=1 (exact mode keeps exp/log off the GPU), so its checksum is "
             "compared with a relative tolerance.",
             "C2 compares black_scholes (calls cnd(d1), cnd(d2)) with black_scholes_inlined (the same arithmetic "
             "written in the loop) under megaguards seq: result = helper time / inlined time - 1, both run "
             "alternately in the same processes (best call of each)."]
    print()
    print("\n".join(header))
    print()
    print(bench.render_text(rows, with_pypy=False))
    print()
    for row in rows:
        if row["notes"]:
            print(f"  #{row['id']}: {row['notes']}")
    print(f"\n{len(failed)} of {sum(row['status'] != 'INFO' for row in rows)} target rows FAIL"
          + (": " + ", ".join("#" + row["id"] for row in failed) if failed else ""))
    document = bench.render_markdown(rows, False, header, notes, machine)
    destination = bench.RESULTS / ("calls-quick.md" if options.quick else "calls.md")
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(document.replace("# megaguards benchmark results", "# megaguards: calls inside loops", 1))
    print(f"written: {destination}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
