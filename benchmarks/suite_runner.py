"""The benchmark suite's runner: every program of benchmarks/suite under every system,
each run in its own process, checksums compared with CPython's.

    python -m benchmarks run [--programs hotspot,mm] [--systems cpython,megaguards-seq,numba]
                             [--size small|medium|large] [--repeat N] [--out DIR]
                             [--derive-from SIZE [--derive-systems cpython,pypy]] [--stages] [--ref REF]
                             [--peak [CALLS]]

The systems take turns: every system's k-th run of a program before any system's next.
After each program, what is measured so far is written to suite-<size>.partial.json (the
final JSON's form), removed when the run completes: a run stopped by a time limit leaves it.

Systems:
  cpython            the baseline: every speed-up is CPython's median time over the system's.
  pypy               Debian's pypy3 (skipped with a note when absent).
  megaguards-seq|cpu|gpu|auto
                     ``python -m megaguards run`` with that MEGAGUARDS_DEVICE and a kernel cache
                     of its own, empty at the start of the runner: the first run is cold (it
                     compiles; its time is kept as ``cold_time``), then --repeat warm runs give
                     the median.  gpu is skipped without a CUDA device.  The auto systems
                     (auto, auto-fresh, explore) also run untimed once per device after the
                     cold run, so that no warm run compiles a kernel the cold run did not choose.
  numba, numba-parallel
                     benchmarks/suite_peers/numba/<program>.py (``--parallel``: prange).
  cuda-hand          benchmarks/suite_peers/cuda/<program>.py (CuPy RawKernel).
A peer that does not exist is skipped ("no numba peer for mm"), as is a system whose
package or device is missing (probed once per run, in a subprocess).  Peers run with
benchmarks/suite on PYTHONPATH and may set their own TOLERANCE (the larger one counts).

A program prints ``checksum=`` and ``time=`` (benchmarks/suite/common.py); a checksum that
differs from the reference (beyond the TOLERANCE) is a failure, never a number.  Each
process's wall time is kept too (JSON ``walls``, ``median_wall``) and tabled outside peak
mode: start-up, input building and CUDA's warm-up, which ``time=`` leaves out.

--derive-from SIZE: the --derive-systems (default cpython,pypy) run at SIZE instead, and
their times are scaled by work(size)/work(SIZE) (each program's ``work``); such figures
are marked derived (JSON ``derived_from``, Markdown †).  When CPython is derived, the other
systems' checksums are compared with megaguards-seq's (or the first megaguards system's).

--stages: the megaguards systems' cold and first warm run also write the loop report
(MEGAGUARDS_REPORT); the seconds per stage, summed over loops, go into the JSON and
suite-<size>-stages.md: analysis, compile, unbox, transfer (GPU), execute, writeback, counting
the loops of the timed region (main's timer.start() .. timer.stop() and the functions it calls);
the other loops' (input set-up, checksum) stages are kept apart as ``outside_region``.

--peak [CALLS]: the peak mode (the MegaGuards paper's method): every process runs the
program's computation CALLS (3) times, each with fresh inputs (``SUITE_CALLS``, read by
benchmarks/suite/common.run and the peers), and its last, warm call's time counts: no
start-up, compilation or first-call cost.  Results go to suite-<size>-peak.*; the
whole-process mode (the default) measures what a user waits for.

--ref REF: megaguards' src/ as of a git commit (exported to a temporary folder put first on
PYTHONPATH, as benchmarks/run.py --ref), e.g. while others edit src/ in the working tree.

Writes into --out (default benchmarks/results): suite-<size>.json (machine, versions, per
program and system: times, median/min/max, checksum, status), suite-<size>.md (speed-ups
over CPython, geometric mean), suite-<size>.png (the chart, with matplotlib) and, with
--stages, suite-<size>-stages.md.  Exit status 1 if any checksum mismatched or a run failed.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import dataclasses
import functools
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import time
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.harness import export_source, machine_info, progress_bar
from benchmarks.suite_report import chart, markdown, stages_markdown

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite"
PEERS = HERE / "suite_peers"
RESULTS = HERE / "results"
SIZES = ("small", "medium", "large")
MEGAGUARDS_DEVICES = ("seq", "cpu", "gpu", "auto", "auto-fresh", "explore")
# auto-fresh: auto with the decisions of earlier runs forgotten before every run (the first
# process's choice: calibration and learned tree only); explore: MegaGuards' adaptive
# selection (every device tried in the process, nothing kept across processes).
MEGAGUARDS_ENVIRONMENT = {"auto-fresh": {"MEGAGUARDS_DEVICE": "auto"},
                          "explore": {"MEGAGUARDS_DEVICE": "auto", "MEGAGUARDS_SELECT": "explore"}}
# Peer system -> (folder under suite_peers, extra arguments, what it needs).
PEER_SYSTEMS = {"numba": ("numba", (), "numba"), "numba-parallel": ("numba", ("--parallel",), "numba"),
                "cuda-hand": ("cuda", (), "cuda")}
SYSTEMS = ("cpython", "pypy", *(f"megaguards-{device}" for device in MEGAGUARDS_DEVICES), *PEER_SYSTEMS)
DEFAULT_SYSTEMS = SYSTEMS
# Which system's checksum the others are compared with when CPython's is not at this size.
REFERENCE_ORDER = ("megaguards-seq", "megaguards-cpu", "megaguards-auto", "megaguards-gpu")
STAGES = ("analysis", "compile", "unbox", "transfer", "execute", "writeback")
LINE = re.compile(r"^(checksum|time)=(.+)$", re.MULTILINE)
TOLERANCE = re.compile(r"^TOLERANCE\s*=\s*([0-9.eE+-]+)", re.MULTILINE)
TIMEOUT = 3600


def programs(selected: str | None) -> list[Path]:
    found = {p.stem: p for p in sorted(SUITE.glob("*.py")) if p.name != "common.py"}
    if not selected:
        return list(found.values())
    names = [name.strip() for name in selected.split(",") if name.strip()]
    unknown = [name for name in names if name not in found]
    if unknown:
        raise SystemExit(f"unknown program(s): {', '.join(unknown)}; the suite has {', '.join(found)}")
    return [found[name] for name in names]


# ----------------------------------------------------------------------------- probes (once per run)


def _probe(code: str) -> str | None:
    """The probe's last stdout line, or None when it failed (run in a subprocess, so that a
    broken CUDA driver or numba install cannot take the runner down)."""
    try:
        found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = found.stdout.strip().splitlines()
    return lines[-1] if found.returncode == 0 and lines else None


@functools.lru_cache(maxsize=None)
def cuda_available() -> bool:
    return _probe("import cupy; print(cupy.cuda.runtime.getDeviceCount())") not in (None, "0")


@functools.lru_cache(maxsize=None)
def numba_version() -> str | None:
    return _probe("import numba; print(numba.__version__)")


@functools.lru_cache(maxsize=None)
def pypy_has_numpy(pypy: str) -> bool:
    try:
        found = subprocess.run([pypy, "-c", "import numpy"], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0


IMPORTS_NUMPY = re.compile(r"^\s*(import numpy|from numpy[\s.])", re.MULTILINE)


def pypy_cannot_run(program: Path, pypy: str) -> str | None:
    """Why pypy3 cannot run the program: Debian's pypy3 has no NumPy, so a NumPy program is
    not supported there (a skip with a note, not an error that looks like a crash)."""
    if IMPORTS_NUMPY.search(program.read_text()) and not pypy_has_numpy(pypy):
        return "not supported by pypy3: the program imports numpy, which this pypy3 lacks"
    return None


def missing_requirement(requirement: str) -> str | None:
    if requirement == "numba" and numba_version() is None:
        return "numba is not installed"
    if requirement == "cuda" and not cuda_available():
        return "no CUDA device (CuPy) here"
    return None


# ----------------------------------------------------------------------------- one system


@dataclass
class Job:
    """How one system runs one program: the command, at which size, how many times."""

    program: Path
    system: str
    size: str                          # the size it runs at (the derived-from size if derived)
    command: list[str] | None = None
    environment: dict = field(default_factory=dict)
    skipped: str | None = None
    tolerance: float | None = None
    derived_from: str | None = None
    work_ratio: float | None = None
    cold_first: bool = False           # megaguards: one cold run before the timed warm runs
    cache_dir: Path | None = None
    primes: tuple = ()                 # environments of untimed runs after the cold run (see make_job)

    def runs(self, repeat: int) -> int:
        return 0 if self.skipped else repeat + int(self.cold_first)


def read_tolerance(path: Path) -> float | None:
    found = TOLERANCE.search(path.read_text())
    return float(found.group(1)) if found else None


def larger(*tolerances: float | None) -> float | None:
    given = [t for t in tolerances if t is not None]
    return max(given) if given else None


def make_job(program: Path, system: str, size: str, cache_root: Path) -> Job:
    job = Job(program, system, size, tolerance=read_tolerance(program))
    arguments = ["--size", size]
    if system == "cpython":
        job.command = [sys.executable, str(program), *arguments]
    elif system == "pypy":
        pypy = shutil.which("pypy3")
        job.command, job.skipped = ([pypy, str(program), *arguments], pypy_cannot_run(program, pypy)) if pypy \
            else (None, "pypy3 is not installed")
    elif system.startswith("megaguards-"):
        device = system.split("-", 1)[1]
        if device == "gpu" and not cuda_available():
            job.skipped = "no CUDA device (CuPy) here"
        job.cache_dir = cache_root / system
        job.command = [sys.executable, "-m", "megaguards", "run", str(program), *arguments]
        job.environment = {"MEGAGUARDS_DEVICE": device, "MEGAGUARDS_CACHE_DIR": str(job.cache_dir),
                           "MEGAGUARDS_AUTO_CALIBRATE": "0", **MEGAGUARDS_ENVIRONMENT.get(device, {})}
        job.cold_first = True
        if job.environment["MEGAGUARDS_DEVICE"] == "auto":
            # A choice depends on timings: the cold run may never pick a device that a warm run
            # then picks, and compiles for, inside its time (particlefilter, small: 313 ms).
            # Untimed runs on each device after the cold one leave every variant compiled.
            job.primes = ({"MEGAGUARDS_SELECT": "cpu"},) + (({"MEGAGUARDS_SELECT": "cuda"},)
                                                           if cuda_available() else ())
    else:
        folder, extra, requirement = PEER_SYSTEMS[system]
        peer = PEERS / folder / program.name
        job.skipped = missing_requirement(requirement) or (
            None if peer.exists() else f"no {folder} peer for {program.stem}")
        if not job.skipped:
            job.command = [sys.executable, str(peer), *arguments, *extra]
            path = os.environ.get("PYTHONPATH")
            job.environment = {"PYTHONPATH": str(SUITE) + (os.pathsep + path if path else "")}
            job.tolerance = larger(job.tolerance, read_tolerance(peer))
    return job


def load_program(program: Path):
    """The suite program as a module (its main() is guarded by __name__): for work()."""
    if str(SUITE) not in sys.path:
        sys.path.insert(0, str(SUITE))  # the programs import common.py as a top-level module
    spec = importlib.util.spec_from_file_location(f"megaguards_suite_{program.stem}", program)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def derive(job: Job, target: str) -> Job:
    """A job made at the smaller size: its times will be scaled by work(target)/work(job.size)."""
    try:
        module = load_program(job.program)
        ratio = module.work(module.SIZES[target]) / module.work(module.SIZES[job.size])
    except (AttributeError, KeyError, ImportError, ZeroDivisionError) as problem:
        job.skipped = job.skipped or f"cannot derive from {job.size}: {type(problem).__name__}: {problem}"
        return job
    job.derived_from, job.work_ratio = job.size, ratio
    return job


def run_once(job: Job, report_path: Path | None) -> dict:
    environment = {**os.environ, **job.environment}
    if job.system == "megaguards-auto-fresh":
        shutil.rmtree(job.cache_dir / "decisions", ignore_errors=True)
    if report_path is not None:
        environment["MEGAGUARDS_REPORT"] = str(report_path)
    started = time.perf_counter()
    try:
        completed = subprocess.run(job.command, capture_output=True, text=True, timeout=TIMEOUT, env=environment)
    except subprocess.TimeoutExpired:
        return {"error": f"ran longer than {TIMEOUT} s"}
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        return {"error": (completed.stderr.strip().splitlines() or ["exit status " + str(completed.returncode)])[-1]}
    values = dict(LINE.findall(completed.stdout))
    if "checksum" not in values or "time" not in values:
        return {"error": "no checksum= / time= line in the output"}
    return {"checksum": values["checksum"], "time": float(values["time"]), "wall": wall}


@dataclass(frozen=True)
class Region:
    """Where the program's loops run inside its timed region: main's lines between
    ``timer.start()`` and ``timer.stop()`` and the program's functions called from there
    (transitively).  A helper also called by the set-up counts as inside."""

    file: str
    functions: frozenset
    lines: tuple[int, int]

    def holds(self, loop: dict) -> bool:
        if Path(loop.get("file", "")).resolve() != Path(self.file):
            return False
        inside_main = loop.get("function") == "main" and self.lines[0] < loop.get("line", 0) < self.lines[1]
        return inside_main or loop.get("function") in self.functions


def timed_region(program: Path) -> Region | None:
    """The program's Region (suite convention, benchmarks/suite/common.py), or None when
    main has no timer.start() ... timer.stop() to read."""
    tree = ast.parse(program.read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def timer_call(node, method):
        return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == method)

    body = functions["main"].body if "main" in functions else []
    starts = [node for node in body if timer_call(node, "start")]
    stops = [node for node in body if timer_call(node, "stop")]
    if not starts or not stops:
        return None
    first, last = starts[0].lineno, stops[-1].lineno
    pending = [node for node in body if first < node.lineno < last]
    called = set()
    while pending:
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                if name in functions and name != "main" and name not in called:
                    called.add(name)
                    pending.append(functions[name])
    return Region(str(program.resolve()), frozenset(called), (first, last))


def stage_milliseconds(report_path: Path, region: Region | None = None) -> dict:
    """The loop report's seconds per stage, summed over the loops of the timed region, in ms
    (+ bytes copied); the other loops' (set-up, checksum) under ``outside_region``."""
    loops = json.loads(report_path.read_text())["loops"]
    if region is not None:
        outside = [loop for loop in loops if not region.holds(loop)]
        loops = [loop for loop in loops if region.holds(loop)]
    totals = {stage: 1000 * sum(loop["seconds"].get(stage, 0.0) for loop in loops) for stage in STAGES}
    if region is not None:
        totals["outside_region"] = {stage: 1000 * sum(loop["seconds"].get(stage, 0.0) for loop in outside)
                                    for stage in STAGES}
    for name in ("bytes_to_device", "bytes_from_device"):
        copied = sum(loop.get("transfers", {}).get(name, 0) for loop in loops)
        if copied:
            totals[name] = copied
    return totals


class Runs:
    """One system's runs of one program, made one at a time (``measure`` interleaves systems)."""

    def __init__(self, job: Job, repeat: int, stages: bool, reports: Path) -> None:
        self.job, self.stages, self.reports = job, stages, reports
        self.count = job.runs(repeat)
        self.times: list[float] = []
        self.walls: list[float] = []   # each process's wall time: start-up and input building included
        self.checksums: set = set()
        self.breakdown: dict = {}
        self.error: str | None = None

    def run(self, attempt: int, progress) -> None:
        job = self.job
        if attempt >= self.count or self.error is not None:
            return
        phase = ("cold" if attempt == 0 else "warm") if job.cold_first else None
        progress(job, attempt, self.count, phase)
        keep_report = self.stages and job.cold_first and attempt < 2
        report_path = self.reports / f"{job.system}-{attempt}.json" if keep_report else None
        outcome = run_once(job, report_path)
        if "error" in outcome:
            self.error = outcome["error"]
            return
        self.times.append(outcome["time"])
        self.walls.append(outcome.get("wall"))
        self.checksums.add(outcome["checksum"])
        if keep_report and report_path.exists():
            self.breakdown[phase] = stage_milliseconds(report_path, timed_region(job.program))
        for prime in job.primes if attempt == 0 else ():
            primed = run_once(dataclasses.replace(job, environment={**job.environment, **prime}), None)
            if "error" in primed:
                self.error = f"{primed['error']} (untimed run with {prime})"
                return

    def result(self) -> dict:
        job, times = self.job, self.times
        if job.skipped:
            return {"status": "skipped", "note": job.skipped}
        if self.error is not None:
            return {"status": "error", "note": self.error, "size": job.size}
        if len(self.checksums) != 1:
            return {"status": "error", "note": f"checksums differ between runs: {sorted(self.checksums)}"}
        entry = {"status": "ok", "checksum": next(iter(self.checksums)), "size": job.size}
        walls = self.walls
        if job.cold_first:
            entry["cold_time"], times, walls = times[0], times[1:], walls[1:]
        entry.update(times=times, median=statistics.median(times), min=min(times), max=max(times),
                     median_over="warm runs (after one cold run)" if job.cold_first else "all runs")
        if walls and None not in walls:   # not scaled where the times are derived: that size's processes
            entry.update(walls=walls, median_wall=statistics.median(walls))
        if job.tolerance is not None:
            entry["tolerance"] = job.tolerance
        if self.stages and job.cold_first:
            entry["stages_ms"] = self.breakdown
        if job.derived_from:
            scaled = [t * job.work_ratio for t in times]
            entry.update(derived_from=job.derived_from, work_ratio=job.work_ratio, measured_times=times,
                         measured_checksum=entry.pop("checksum"), times=scaled, median=statistics.median(scaled),
                         min=min(scaled), max=max(scaled))
            if "cold_time" in entry:
                entry["cold_time"] *= job.work_ratio
        return entry


# ----------------------------------------------------------------------------- one program


def same_checksum(expected: str, actual: str, tolerance: float | None) -> bool:
    if actual == expected:
        return True
    if tolerance is None:
        return False
    try:
        a, b = float(expected), float(actual)
    except ValueError:
        return False
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


def compare_checksums(results: dict) -> str | None:
    """Mark mismatches; returns the system whose checksum was the reference at this size.
    Derived systems are compared with derived CPython (both ran at the smaller size)."""
    def usable(system, derived):
        result = results.get(system, {})
        return result.get("status") == "ok" and bool(result.get("derived_from")) == derived

    reference = next((s for s in ("cpython", *REFERENCE_ORDER) if usable(s, False)), None)
    derived_reference = "cpython" if usable("cpython", True) else None
    for system, result in results.items():
        derived = bool(result.get("derived_from"))
        against = derived_reference if derived else reference
        if result.get("status") != "ok" or against is None or system == against:
            continue
        key = "measured_checksum" if derived else "checksum"
        expected, actual = results[against][key], result[key]
        if not same_checksum(expected, actual, larger(result.get("tolerance"), results[against].get("tolerance"))):
            result.update(status="mismatch", note=f"checksum {actual} != {against}'s {expected}")
    return reference


def measure(jobs: list[Job], repeat: int, stages: bool, progress) -> dict:
    """Every system's k-th run before any system's (k+1)-th: the machine's drift over a
    program's runs (clock, other tenants, page cache) then falls on every system alike
    instead of on one system's block of runs, which matters for ratios of a few ms."""
    with tempfile.TemporaryDirectory(prefix="megaguards-report-") as reports:
        runs = [Runs(job, repeat, stages, Path(reports)) for job in jobs]
        for attempt in range(max((r.count for r in runs), default=0)):
            for system_runs in runs:
                system_runs.run(attempt, progress)
        results = {r.job.system: r.result() for r in runs}
    reference = compare_checksums(results)
    return {"tolerance": read_tolerance(jobs[0].program), "checksum_reference": reference, "systems": results}


# ----------------------------------------------------------------------------- command line


def parse_systems(text: str, parser) -> list[str]:
    systems = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        parser.error(f"unknown system(s) {', '.join(unknown)}; known: {', '.join(SYSTEMS)}")
    return systems


def parser_for() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks run", description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", help="comma-separated program names (default: the whole suite)")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                        help="comma-separated, from %(default)s (default: all; cpython is always added)")
    parser.add_argument("--size", choices=SIZES, default="small")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs per program and system (megaguards: warm runs, after one cold run)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results (default: %(default)s)")
    parser.add_argument("--derive-from", choices=SIZES, metavar="SIZE",
                        help="time the --derive-systems at SIZE and scale by work(--size)/work(SIZE)")
    parser.add_argument("--derive-systems", default="cpython,pypy",
                        help="systems whose times are derived with --derive-from (default: %(default)s)")
    parser.add_argument("--stages", action="store_true",
                        help="stage breakdown (cold vs warm) of the megaguards systems from their loop reports")
    parser.add_argument("--ref", help="benchmark src/ as of this git commit instead of the working tree")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (a bar with tqdm installed and a terminal, else lines)")
    parser.add_argument("--peak", type=int, nargs="?", const=3, default=0, metavar="CALLS",
                        help="peak mode: each process runs the program's computation CALLS times (default 3, "
                             "fresh inputs each time) and the last, warm call is timed; results go to "
                             "suite-<size>-peak.*")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = parser_for()
    options = parser.parse_args(argv)
    systems = parse_systems(options.systems, parser)
    derived = set(parse_systems(options.derive_systems, parser)) if options.derive_from else set()
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    if options.peak < 0 or options.peak == 1:
        parser.error("--peak needs at least 2 calls (the last one is the warm call)")
    if options.derive_from == options.size:
        parser.error("--derive-from must name another size than --size")
    if "cpython" not in systems:
        systems.insert(0, "cpython")  # the baseline every speed-up needs
    python_path = os.environ.get("PYTHONPATH")
    report = {"size": options.size, "repeat": options.repeat, "systems": systems,
              "derive_from": options.derive_from, "derived_systems": sorted(derived) or None,
              "stages": options.stages, "peak": options.peak or None,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": {**machine_info(shutil.which(os.environ.get("CC", "gcc")), shutil.which("pypy3"),
                                         options.ref),
                          "numba": numba_version() if any(s.startswith("numba") for s in systems) else None},
              "programs": {}}
    snapshot = export_source(options.ref) if options.ref else None  # puts it first on PYTHONPATH
    partial = options.out / f"{stem_of(report)}.partial.json"
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix="megaguards-suite-cache-") as cache_root:
            plan = {}
            for program in programs(options.programs):
                plan[program.stem] = [
                    derive(make_job(program, system, options.derive_from, Path(cache_root)), options.size)
                    if system in derived else make_job(program, system, options.size, Path(cache_root))
                    for system in systems]
                if options.peak:   # common.run / the peers repeat the computation; the last time= counts
                    for job in plan[program.stem]:
                        job.environment = {**job.environment, "SUITE_CALLS": str(options.peak)}
            progress = Progress(sum(job.runs(options.repeat) for jobs in plan.values() for job in jobs),
                                options.quiet)
            try:
                for name, jobs in plan.items():
                    report["programs"][name] = measure(jobs, options.repeat, options.stages, progress)
                    # What is measured so far survives a run stopped by a time limit.
                    partial.write_text(json.dumps(report, indent=1) + "\n")
            finally:
                progress.close()
    finally:
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
            os.environ.pop("PYTHONPATH", None)
            if python_path is not None:
                os.environ["PYTHONPATH"] = python_path
    partial.unlink(missing_ok=True)
    return write_outputs(report, options.out)


class Progress:
    """Called as each run starts: a bar on stderr of the runs done, the ETA and the run
    (harness.progress_bar), else '[k/N] program [size] system run i/n (cold)' lines on stderr."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.done, self.total, self.quiet = 0, total, quiet
        self.bar = progress_bar(total, quiet)

    def __call__(self, job: Job, attempt: int, count: int, phase: str | None) -> None:
        self.done += 1
        if self.quiet:
            return
        size = f"{job.size}, derived" if job.derived_from else job.size
        text = f"{job.program.stem} [{size}] {job.system} run {attempt + 1}/{count}" + (f" ({phase})" if phase else "")
        if self.bar is None:
            print(f"[{self.done}/{self.total}] {text}", file=sys.stderr, flush=True)
        else:   # the runs before this one are done
            self.bar.set_description_str(text, refresh=False)
            self.bar.update(self.done - 1 - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.update(self.done - self.bar.n)
            self.bar.close()


def stem_of(report: dict) -> str:
    """The results' file name without its suffix: suite-<size>, suite-<size>-peak."""
    return f"suite-{report['size']}" + ("-peak" if report.get("peak") else "")


def write_outputs(report: dict, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / stem_of(report)
    picture = stem.with_suffix(".png")
    report["chart"] = chart(report, picture)  # the file's name, or why there is none
    text = markdown(report)
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    stem.with_suffix(".md").write_text(text)
    if report["stages"]:
        out.joinpath(f"{stem_of(report)}-stages.md").write_text(stages_markdown(report))
    print(text)
    failed = [name for name, entry in report["programs"].items()
              if any(r["status"] in ("mismatch", "error") for r in entry["systems"].values())]
    if failed:
        print(f"failures (mismatch or error): {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0
