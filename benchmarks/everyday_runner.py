#!/usr/bin/env python3
"""The everyday group (issue 25, "Never slower than CPython"): plain Python programs written
the slow way, each run whole under ``python`` and under ``python -m megaguards run``
(default settings), ratios measured in one run, slow-downs first.

    python -m benchmarks everyday [--quick] [--repetitions N] [--only NAME[,NAME...]]
                                  [--timeout S] [--no-calibrate] [--note TEXT] [--out DIR] [--ref REF]
    python benchmarks/everyday_runner.py ...        (the same)

For every program (benchmarks/everyday/, see its README):

* a fresh, empty kernel cache (MEGAGUARDS_CACHE_DIR) of its own, holding only the machine's
  calibration (measured once per runner invocation with ``megaguards calibrate``, so that
  no run starts the background calibration; --quick and --no-calibrate: the bundled
  constants);
* one cold megaguards run (it compiles; reported apart), then N repetitions (default 3),
  each ``python prog.py`` then ``python -m megaguards run --report-json R prog.py``;
  the median whole-process wall time of each engine counts (the loop-free program: at
  least 10 repetitions, as the issue's start-up target says);
* every run's ``checksum=`` line must equal CPython's: a mismatch, a crash or a missing
  line is a FAIL, never a number;
* a run past --timeout (default 180 s) gets SIGINT (megaguards then still writes its
  report), then SIGKILL; it counts as the limit (shown as "> limit"), and after a warm run
  timed out the program's remaining megaguards runs are skipped.

Targets (issue 25): every program at most 1.1x CPython's time + 30 ms; the loop-free one at
most 30 ms over CPython; the compilable ones (rowsums, boxblur, sieve, atax at the issue's
sizes) at least 3x faster than CPython.  --quick (small sizes, 1 repetition, every loop
compiled at its first entry: MEGAGUARDS_COMPILE_AFTER=0) is a smoke test of the compiled
paths: its PASS/FAIL is indicative only.

Writes <out>/everyday.md, .json and .svg (the chart); with --quick everyday-quick.*, with
--only everyday-only.* (the full table stays).  Exit status 0 when every row passes, else 1.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):   # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.everyday_report import chart_svg, markdown, text_table  # noqa: E402
from benchmarks.harness import export_source, machine_info, progress_bar  # noqa: E402

HERE = Path(__file__).resolve().parent
EVERYDAY = HERE / "everyday"
RESULTS = HERE / "results"
REPOSITORY = HERE.parent
OVERHEAD_FACTOR, OVERHEAD_SLACK_S = 1.1, 0.030     # at most 1.1x CPython + 30 ms
STARTUP_SLACK_S = 0.030                             # loop-free: at most 30 ms over CPython
SPEEDUP_TARGET = 3.0                                # compilable programs: at least 3x
INTERRUPT_GRACE_S = 15                              # after SIGINT, before SIGKILL


@dataclass(frozen=True)
class Program:
    id: str
    name: str
    arguments: tuple          # the full sizes (issue 25's where it names one)
    quick: tuple              # --quick
    compilable: bool = False  # the >= 3x target applies
    startup: bool = False     # loop-free: the start-up target, at least 10 repetitions
    models: str = ""
    source: str | None = None  # the script, when not benchmarks/everyday/<name>.py

    @property
    def path(self) -> Path:
        return Path(self.source) if self.source else EVERYDAY / f"{self.name}.py"


PROGRAMS = [
    Program("1", "rowsums", ("1500", "8"), ("200", "2"), compilable=True,
            models="a helper with a `for j` loop called once per row of a 1500x1500 list of lists"),
    Program("2", "boxblur", ("700", "2"), ("60", "1"), compilable=True,
            models="3x3 box blur, 700x700 list of int lists, window loops per pixel, rows built with append"),
    Program("3", "sieve", ("10000000",), ("200000",), compilable=True,
            models="sieve of Eratosthenes to 10^7, inner marking `for` loop per prime"),
    Program("4", "genexpr_energy", ("2000", "1000"), ("200", "10"),
            models="hot helper `sum(v * v for v in velocity)` over lists mixing ints and floats, called per "
                   "particle (the loop over particles compiles with the helper inlined)"),
    Program("5", "bank", ("2000", "60"), ("200", "3"),
            models="object-oriented bank simulation (classes, methods, dicts), no compilable loop"),
    Program("6", "mixed_list", ("300000", "120"), ("20000", "5"),
            models="a loop over a list mixing ints and floats, called once per threshold"),
    Program("7", "loopfree", (), (), startup=True, models="no loop at all: start-up only"),
    Program("8", "atax", ("2000", "2000"), ("200", "200"), compilable=True,
            models="atax-shaped y = A^T (A x) over a 2000x2000 list of lists"),
    Program("9", "bicg", ("2000", "2000"), ("200", "200"),
            models="bicg-shaped s = A^T r, q = A p over a 2000x2000 list of lists"),
    Program("10", "trisolv", ("2000", "5"), ("200", "1"),
            models="trisolv-shaped forward substitution, 2000x2000 lower triangle, 5 right-hand sides"),
    Program("11", "genexpr_decimal", ("2000", "400"), ("200", "10"),
            models="the hot helper of genexpr_energy over decimal.Decimal values (its guard fails at every entry)"),
]


# ----------------------------------------------------------------------------- one process


def run_process(command: list[str], env: dict, cwd: Path, timeout: float) -> dict:
    """Wall time, children's CPU time, exit status and output of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=str(cwd), start_new_session=True)
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        process.send_signal(signal.SIGINT)      # KeyboardInterrupt: atexit still writes the report
        try:
            stdout, stderr = process.communicate(timeout=INTERRUPT_GRACE_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    outcome = {"wall": round(wall, 4), "cpu": round(cpu, 4), "returncode": process.returncode}
    if timed_out:
        outcome.update(timeout=True, wall=timeout)
        return outcome
    checksums = [line[len("checksum="):].strip() for line in stdout.splitlines() if line.startswith("checksum=")]
    if process.returncode != 0:
        lines = stderr.strip().splitlines() or [f"exit status {process.returncode}"]
        outcome["error"] = f"exit status {process.returncode}: {lines[-1][:300]}"
    elif not checksums:
        outcome["error"] = "no checksum= line in the output"
    else:
        outcome["checksum"] = checksums[-1]
    return outcome


def environment(cache_dir: Path, ref: bool) -> dict:
    """megaguards' defaults: no MEGAGUARDS_* of the caller's shell; the program's own cache;
    no background calibration (the cache holds the machine's calibration already)."""
    # Bytecode is written and read as on a user's machine (a shell's PYTHONDONTWRITEBYTECODE
    # would make every process compile megaguards' modules again: 70-300 ms).
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("MEGAGUARDS_") and key != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEGAGUARDS_CACHE_DIR=str(cache_dir), MEGAGUARDS_AUTO_CALIBRATE="0", PYTHONHASHSEED="0")
    if not ref:   # this checkout's megaguards, whatever else is installed (--ref put its own first)
        paths = [str(REPOSITORY / "src")] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def calibrate(scratch: Path, ref: bool, log) -> tuple[Path | None, str]:
    """The machine's calibration, measured once into a cache of its own; (file, note)."""
    cache = scratch / "calibration"
    log("calibrating the cost model once (megaguards calibrate, ~15-30 s) ...")
    outcome = run_process([sys.executable, "-m", "megaguards", "calibrate", "--quiet"],
                          environment(cache, ref), REPOSITORY, 600)
    found = cache / "calibration.json"
    if found.exists():
        return found, (f"measured once by `megaguards calibrate` ({outcome['wall']:.0f} s) and copied into "
                       "every program's fresh cache, as on a machine where megaguards has run before")
    return None, f"`megaguards calibrate` failed ({outcome.get('error', 'no file')}): the bundled constants"


# ----------------------------------------------------------------------------- one program


def report_summary(report: dict | None) -> dict | None:
    """The loop report in short: sites by outcome, entries, seconds per stage, the sites."""
    if report is None:
        return None
    loops = report.get("loops", [])
    sites = [{"where": f"{loop.get('function') or '<module>'}:{loop['line']}", "entries": loop["entries"],
              "compiled_runs": loop["compiled_runs"], "fallback_runs": loop["fallback_runs"],
              "backend": loop.get("backend"), "reasons": loop.get("reasons", [])[:3],
              "seconds": {k: round(v, 6) for k, v in loop.get("seconds", {}).items() if v}} for loop in loops]
    stages = {}
    for loop in loops:
        for stage, value in loop.get("seconds", {}).items():
            stages[stage] = round(stages.get(stage, 0.0) + value, 6)
    return {
        "sites": len(loops),
        "compiled": sum(1 for s in sites if s["compiled_runs"] and not s["fallback_runs"]),
        "fallback": sum(1 for s in sites if s["fallback_runs"] and not s["compiled_runs"]),
        "mixed": sum(1 for s in sites if s["compiled_runs"] and s["fallback_runs"]),
        "compiled_entries": sum(s["compiled_runs"] for s in sites),
        "fallback_entries": sum(s["fallback_runs"] for s in sites),
        "stages": stages,
        "loops": sites,
    }


def measure(program: Program, arguments: tuple, repetitions: int, options, cache_dir: Path,
            scratch: Path, calibration: Path | None, log) -> dict:
    cache_dir.mkdir(parents=True)
    if calibration is not None:
        shutil.copy(calibration, cache_dir / calibration.name)
    env = environment(cache_dir, bool(options.ref))
    if options.quick:   # a smoke test of the compiled paths: at these sizes no loop pays for compiling
        env["MEGAGUARDS_COMPILE_AFTER"] = "0"
    cpython = [sys.executable, str(program.path), *arguments]

    def megaguards(tag: str) -> dict:
        report = scratch / f"{program.name}-{tag}.json"
        outcome = run_process([sys.executable, "-m", "megaguards", "run", "--report-json", str(report),
                               str(program.path), *arguments], env, scratch, options.timeout)
        if report.exists():
            outcome["report"] = report_summary(json.loads(report.read_text()))
        return outcome

    def show(engine: str, label: str, outcome: dict) -> None:
        state = ("TIMEOUT" if outcome.get("timeout") else outcome.get("error") or f"checksum={outcome['checksum']}")
        log(f"  {program.name} {label:9s} {engine:10s} wall={outcome['wall']:.3f}s cpu={outcome['cpu']:.3f}s  "
            f"{state[:80]}", runs=1)

    cold = megaguards("cold")
    show("megaguards", "cold", cold)
    runs = {"cpython": [], "megaguards": []}
    stopped = None
    for repetition in range(repetitions):
        label = f"[{repetition + 1}/{repetitions}]"
        runs["cpython"].append(run_process(cpython, env, scratch, options.timeout))
        show("cpython", label, runs["cpython"][-1])
        if stopped is None:
            runs["megaguards"].append(megaguards(f"warm{repetition}"))
            show("megaguards", label, runs["megaguards"][-1])
            if runs["megaguards"][-1].get("timeout"):
                stopped = f"a warm run ran past {options.timeout:g} s: the remaining megaguards runs were skipped"
    return evaluate(program, arguments, cold, runs, stopped, options)


# How an engine's runs of a program are summed up: the median; the fastest run (``--statistic
# min``) on a host whose own speed drifts over tens of percent between runs (the device machine).
STATISTICS = {"median": statistics.median, "min": min}


def summary_wall(outcomes: list[dict], statistic: str = "median") -> float | None:
    walls = [o["wall"] for o in outcomes if "checksum" in o or o.get("timeout")]
    return STATISTICS[statistic](walls) if walls else None


def evaluate(program: Program, arguments: tuple, cold: dict, runs: dict, stopped: str | None, options) -> dict:
    """The row: medians, checksums compared with CPython's, targets, PASS/FAIL, notes."""
    row = {"id": program.id, "program": program.name, "arguments": list(arguments), "models": program.models,
           "compilable": program.compilable, "startup": program.startup, "cold": cold, "runs": runs,
           "problems": [], "notes": []}
    problems = row["problems"]
    reference = sorted({o["checksum"] for o in runs["cpython"] if "checksum" in o})
    for outcome in runs["cpython"]:
        if "checksum" not in outcome:
            problems.append("CPython: " + ("ran past the time limit" if outcome.get("timeout") else outcome["error"]))
    if len(reference) > 1:
        problems.append(f"CPython's checksum differs between its runs: {reference}")
    row["checksum"] = reference[0] if len(reference) == 1 else None
    mismatch, compared = False, 0
    for label, outcome in [("cold run", cold)] + [(f"warm run {k + 1}", o) for k, o in enumerate(runs["megaguards"])]:
        if "error" in outcome:
            problems.append(f"megaguards {label}: {outcome['error']}")
        elif "checksum" in outcome and row["checksum"] is not None:
            compared += 1
        if "checksum" in outcome and row["checksum"] is not None and outcome["checksum"] != row["checksum"]:
            mismatch = True
            problems.append(f"megaguards {label}: checksum {outcome['checksum']} != CPython's {row['checksum']}")
    row["checksums_compared"] = compared   # megaguards runs checked (a run past the limit has none)
    row["checksums_match"] = not mismatch and row["checksum"] is not None and not any(
        "error" in o for o in [cold, *runs["megaguards"]])
    statistic = getattr(options, "statistic", "median")
    cpython_s = summary_wall(runs["cpython"], statistic)
    warm = runs["megaguards"]
    row.update(cpython_s=cpython_s, megaguards_s=None, ratio=None, cold_s=cold["wall"],
               cold_timeout=bool(cold.get("timeout")), timeout=any(o.get("timeout") for o in warm))
    if stopped:
        row["notes"].append(stopped)
    usable = not problems and cpython_s is not None and warm
    if usable:
        row["megaguards_s"] = summary_wall(warm, statistic)
        row["ratio"] = cpython_s / row["megaguards_s"]
    with_report = [o for o in warm if o.get("report")] or ([cold] if cold.get("report") else [])
    if with_report:   # the report of the median (fastest) warm run, or of the cold one
        ordered = sorted(with_report, key=lambda o: o["wall"])
        chosen = ordered[0] if statistic == "min" else ordered[(len(with_report) - 1) // 2]
        row["report"] = chosen["report"]
        if chosen.get("timeout"):
            row["notes"].append("the loop report is that of a run stopped at the time limit (partial)")
    row["targets"] = targets(program, row)
    row["status"] = "PASS" if usable and all(t["passed"] for t in row["targets"]) else "FAIL"
    row["notes"] += where_time_goes(row)
    return row


def targets(program: Program, row: dict) -> list[dict]:
    cpython_s, megaguards_s = row["cpython_s"], row["megaguards_s"]
    if megaguards_s is None:
        return []
    found = [{"target": "<= 1.1x + 30 ms",
              "passed": megaguards_s <= OVERHEAD_FACTOR * cpython_s + OVERHEAD_SLACK_S and not row["timeout"]}]
    if program.startup:
        found.append({"target": "<= +30 ms", "passed": megaguards_s <= cpython_s + STARTUP_SLACK_S})
    if program.compilable:
        found.append({"target": ">= 3x", "passed": row["ratio"] >= SPEEDUP_TARGET and not row["timeout"]})
    return found


def where_time_goes(row: dict) -> list[str]:
    """What the loop report tells about the extra time (warm median run)."""
    report = row.get("report")
    if report is None or row["megaguards_s"] is None:
        return []
    notes = [f"megaguards - CPython: {row['megaguards_s'] - row['cpython_s']:+.3f} s"]
    stages = {k: v for k, v in report["stages"].items() if v >= 0.001}
    if stages:
        notes.append("report seconds summed over sites: " + ", ".join(f"{k} {v:.3f}" for k, v in stages.items()))
    extra = row["megaguards_s"] - row["cpython_s"] - sum(stages.get(k, 0.0) for k in ("unbox", "writeback"))
    if report["fallback_entries"] >= 1000 and extra > 0:
        notes.append(f"{report['fallback_entries']} fallback entries: {extra / report['fallback_entries'] * 1e6:.1f} us"
                     " per fallback entry if the extra time less unbox and write-back were all theirs")
    marshalled = max(report["loops"], default=None,
                     key=lambda s: s["seconds"].get("unbox", 0.0) + s["seconds"].get("writeback", 0.0))
    if marshalled and marshalled["compiled_runs"]:
        unbox, back = marshalled["seconds"].get("unbox", 0.0), marshalled["seconds"].get("writeback", 0.0)
        if unbox + back >= 0.05:
            per_entry = (unbox + back) / marshalled["compiled_runs"] * 1e3
            notes.append(f"site {marshalled['where']}: {marshalled['compiled_runs']} compiled entries, unbox"
                         f" {unbox:.3f} s + write-back {back:.3f} s = {per_entry:.3f} ms per entry, execute"
                         f" {marshalled['seconds'].get('execute', 0.0):.3f} s")
    worst = max(report["loops"], key=lambda s: (s["fallback_runs"], s["entries"]), default=None)
    if worst and worst["fallback_runs"] and worst["reasons"]:
        notes.append(f"busiest fallback site {worst['where']} ({worst['fallback_runs']} entries):"
                     f" {worst['reasons'][-1]}")
    return notes


# ----------------------------------------------------------------------------- command line


def select(only: list[str] | None) -> list[Program]:
    if not only:
        return list(PROGRAMS)
    names = [name.strip() for item in only for name in item.split(",") if name.strip()]
    known = {p.name: p for p in PROGRAMS} | {p.id: p for p in PROGRAMS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown program(s) {', '.join(unknown)}; the group has "
                         f"{', '.join(p.name for p in PROGRAMS)}")
    chosen = {known[name].name for name in names}
    return [p for p in PROGRAMS if p.name in chosen]


def parser_for() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks everyday", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 2)[2])
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 repetition, every loop compiled at once: a smoke test")
    parser.add_argument("--repetitions", "-n", type=int, help="interleaved repetitions (default 3; --quick 1)")
    parser.add_argument("--only", action="append", help="program names or numbers, comma-separated")
    parser.add_argument("--statistic", choices=sorted(STATISTICS), default="median",
                        help="of each engine's runs per program (default median; min for a noisy host)")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per process (default %(default)s)")
    parser.add_argument("--no-calibrate", action="store_true", help="bundled cost-model constants, no calibration")
    parser.add_argument("--note", action="append", default=[], help="a line for the results header")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results (default %(default)s)")
    parser.add_argument("--ref", help="benchmark src/ as of this git commit instead of the working tree")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (a bar with tqdm installed and a terminal, else lines)")
    parser.add_argument("--render", type=Path, metavar="JSON",
                        help="measure nothing: re-write the .md and .svg beside a JSON this runner wrote")
    return parser


def main(argv: list[str] | None = None) -> int:
    options = parser_for().parse_args(argv)
    if options.render:   # e.g. after a change of the Markdown's layout: the same measurements
        result = json.loads(options.render.read_text())
        options.render.with_suffix(".md").write_text(markdown(result))
        options.render.with_suffix(".svg").write_text(chart_svg(result))
        print(text_table(result))
        return 0 if all(row["status"] == "PASS" for row in result["rows"]) else 1
    chosen = select(options.only)
    repetitions = options.repetitions or (1 if options.quick else 3)
    if repetitions < 1:
        raise SystemExit("--repetitions must be at least 1")

    bar = None   # harness.progress_bar's, once calibrated: each process run is a step

    def log(message: str, runs: int = 0) -> None:
        """A line on stderr (above the bar, if any); ``runs``: process runs it reports done."""
        if bar is not None:
            bar.write(message, file=sys.stderr)
            bar.update(runs)
        elif not options.quiet:
            print(message, file=sys.stderr, flush=True)

    started = time.time()
    load_before = os.getloadavg()
    snapshot = export_source(options.ref) if options.ref else None
    scratch = Path(tempfile.mkdtemp(prefix="mg-everyday-"))
    rows = []
    try:
        calibration, calibration_note = (None, "bundled constants (no calibration: --quick or --no-calibrate)") \
            if options.quick or options.no_calibrate else calibrate(scratch, bool(options.ref), log)
        run_directory = scratch / "run"     # the programs' working directory
        run_directory.mkdir()
        plan = [(program, program.quick if options.quick else program.arguments,
                 max(repetitions, 10) if program.startup and not options.quick else repetitions) for program in chosen]
        bar = progress_bar(sum(1 + 2 * count for *_, count in plan), options.quiet)   # cold + N x both engines
        planned = 0
        for number, (program, arguments, count) in enumerate(plan, 1):
            log(f"[{number}/{len(chosen)}] {program.name} {' '.join(arguments)} ({count} repetitions)")
            rows.append(measure(program, arguments, count, options, scratch / "cache" / program.name,
                                run_directory, calibration, log))
            planned += 1 + 2 * count
            if bar is not None:   # runs skipped after a timeout
                bar.update(planned - bar.n)
    finally:
        if bar is not None:
            bar.close()
        shutil.rmtree(scratch, ignore_errors=True)
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    rows.sort(key=sort_key)
    result = {
        "group": "everyday", "issue": 25,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python", "-m", "benchmarks", "everyday",
                               *(argv if argv is not None else sys.argv[1:])]),
        "mode": "quick" if options.quick else "full", "repetitions": repetitions,
        "statistic": options.statistic,
        "timeout_s": options.timeout, "programs": [p.name for p in chosen], "calibration": calibration_note,
        "notes": options.note, "load_average_1min": {"before": round(load_before[0], 2),
                                                     "after": round(os.getloadavg()[0], 2)},
        "duration_s": round(time.time() - started, 1),
        "machine": machine_info(shutil.which(os.environ.get("CC", "gcc")), None, options.ref),
        "targets": {"all": "megaguards <= 1.1 x CPython + 30 ms", "loopfree": "megaguards <= CPython + 30 ms",
                    "compilable": "CPython / megaguards >= 3 (rowsums, boxblur, sieve, atax at the full sizes)"},
        "rows": rows,
    }
    return write(result, options)


def sort_key(row: dict) -> tuple:
    """Slow-downs first: failures without a number, then by ratio, smallest first."""
    return (row["ratio"] is not None, row["ratio"] or 0.0, int(row["id"]))


def dump_json(result: dict) -> str:
    """The result as JSON, one line per row (every run of a program with its loop reports)."""
    head = json.dumps({key: value for key, value in result.items() if key != "rows"}, indent=1)
    rows = ",\n  ".join(json.dumps(row) for row in result["rows"])
    return head[:-2] + ',\n "rows": [\n  ' + rows + "\n ]\n}\n"


def write(result: dict, options) -> int:
    stem = "everyday" + ("-quick" if options.quick else "-only" if options.only else "")
    options.out.mkdir(parents=True, exist_ok=True)
    path = options.out / stem
    result["chart"] = f"{stem}.svg"
    path.with_suffix(".svg").write_text(chart_svg(result))
    path.with_suffix(".json").write_text(dump_json(result))
    path.with_suffix(".md").write_text(markdown(result))
    print(text_table(result))
    print(f"\nwritten: {path.with_suffix('.md')}, .json, .svg ({result['duration_s']:.0f} s)")
    return 0 if all(row["status"] == "PASS" for row in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
