"""The benchmark suite's runner: every program of benchmarks/suite under every system,
each run in its own process, checksums compared with CPython's.

    python -m benchmarks run [--programs hotspot,mm] [--systems cpython,megaguards-seq]
                             [--size small|medium|large] [--repeat N] [--out DIR]

Systems: ``cpython``, ``pypy`` (Debian's ``pypy3``, skipped with a note when absent) and
``megaguards-seq``, ``megaguards-cpu``, ``megaguards-gpu``, ``megaguards-auto``
(``megaguards run`` with that ``MEGAGUARDS_DEVICE``; the GPU one is skipped without a
CUDA device).  A program prints ``checksum=`` and ``time=`` (benchmarks/suite/common.py);
a checksum that differs from CPython's (beyond the program's TOLERANCE) is a failure,
never a number.  Writes ``suite-<size>.json`` (machine, versions, per program and system:
times, median/min/max, checksum, status) and ``suite-<size>.md`` (speed-ups over CPython)
into ``--out`` (default benchmarks/results).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.run import machine_info

SUITE = Path(__file__).resolve().parent / "suite"
RESULTS = Path(__file__).resolve().parent / "results"
MEGAGUARDS_DEVICES = ("seq", "cpu", "gpu", "auto")
SYSTEMS = ("cpython", "pypy", *(f"megaguards-{device}" for device in MEGAGUARDS_DEVICES))
DEFAULT_SYSTEMS = ("cpython", "pypy", "megaguards-seq", "megaguards-cpu", "megaguards-gpu", "megaguards-auto")
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


def command_for(system: str, program: Path, size: str) -> tuple[list[str] | None, dict, str | None]:
    """(command, extra environment, why it cannot run) for one system."""
    arguments = [str(program), "--size", size]
    if system == "cpython":
        return [sys.executable, *arguments], {}, None
    if system == "pypy":
        pypy = shutil.which("pypy3")
        return ([pypy, *arguments], {}, None) if pypy else (None, {}, "pypy3 is not installed")
    device = system.split("-", 1)[1]
    if device == "gpu" and not cuda_available():
        return None, {}, "no CUDA device (CuPy) here"
    return [sys.executable, "-m", "megaguards", "run", *arguments], {"MEGAGUARDS_DEVICE": device}, None


def cuda_available() -> bool:
    probe = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
    try:
        found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0 and found.stdout.strip() not in ("", "0")


def run_once(command: list[str], environment: dict) -> dict:
    completed = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT,
                               env={**os.environ, **environment})
    if completed.returncode != 0:
        return {"error": (completed.stderr.strip().splitlines() or ["exit status " + str(completed.returncode)])[-1]}
    values = dict(LINE.findall(completed.stdout))
    if "checksum" not in values or "time" not in values:
        return {"error": "no checksum= / time= line in the output"}
    return {"checksum": values["checksum"], "time": float(values["time"])}


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


def measure(program: Path, systems: list[str], size: str, repeat: int, progress) -> dict:
    tolerance_match = TOLERANCE.search(program.read_text())
    tolerance = float(tolerance_match.group(1)) if tolerance_match else None
    results, reference = {}, None
    for system in systems:
        command, environment, skipped = command_for(system, program, size)
        if skipped:
            results[system] = {"status": "skipped", "note": skipped}
            continue
        times, checksums, error = [], set(), None
        for attempt in range(repeat):
            progress(f"{program.stem} [{size}] {system} run {attempt + 1}/{repeat}")
            outcome = run_once(command, environment)
            if "error" in outcome:
                error = outcome["error"]
                break
            times.append(outcome["time"])
            checksums.add(outcome["checksum"])
        if error or len(checksums) != 1:
            results[system] = {"status": "error", "note": error or f"checksums differ between runs: {sorted(checksums)}"}
            continue
        checksum = checksums.pop()
        if system == "cpython":
            reference = checksum
        entry = {"times": times, "median": statistics.median(times), "min": min(times), "max": max(times),
                 "checksum": checksum, "status": "ok"}
        if reference is not None and system != "cpython" and not same_checksum(reference, checksum, tolerance):
            entry.update(status="mismatch", note=f"checksum {checksum} != CPython's {reference}")
        results[system] = entry
    return {"tolerance": tolerance, "systems": results}


def markdown(report: dict) -> str:
    systems = report["systems"]
    lines = [f"# megaguards benchmark suite, size {report['size']}", "",
             f"- date: {report['date']}", f"- machine: {report['machine']['cpu_model']}, "
             f"{report['machine']['cpus_usable']} usable CPUs, Python {report['machine']['python']}",
             f"- megaguards: {report['machine']['megaguards_source']}",
             f"- runs: {report['repeat']} per program and system, each in its own process; median kernel time",
             "", "Speed-up over CPython (median time of CPython / median time of the system):", "",
             "| program | CPython | " + " | ".join(s for s in systems if s != "cpython") + " |",
             "|---|---|" + "---|" * (len(systems) - 1)]
    for name, entry in report["programs"].items():
        results = entry["systems"]
        base = results.get("cpython", {})
        cells = [f"{base['median']:.4g} s" if base.get("status") == "ok" else base.get("status", "-")]
        for system in systems:
            if system == "cpython":
                continue
            result = results.get(system, {})
            if result.get("status") == "ok" and base.get("status") == "ok":
                cells.append(f"{base['median'] / result['median']:.1f}x")
            else:
                cells.append(result.get("status", "-"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    notes = [f"- {name} / {system}: {result['status']}: {result['note']}"
             for name, entry in report["programs"].items() for system, result in entry["systems"].items()
             if result.get("note")]
    return "\n".join(lines + ([""] + ["## Notes", ""] + notes if notes else [])) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", help="comma-separated program names (default: the whole suite)")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                        help=f"comma-separated, from {', '.join(SYSTEMS)}")
    parser.add_argument("--size", choices=("small", "medium", "large"), default="small")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    options = parser.parse_args(argv)
    systems = [s.strip() for s in options.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or options.repeat < 1:
        parser.error(f"unknown system(s) {unknown}" if unknown else "--repeat must be at least 1")
    if "cpython" not in systems:
        systems.insert(0, "cpython")  # the reference every checksum and speed-up needs
    progress = (lambda text: None) if options.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    report = {"size": options.size, "repeat": options.repeat, "systems": systems,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine_info(shutil.which(os.environ.get("CC", "gcc")), shutil.which("pypy3")),
              "programs": {p.stem: measure(p, systems, options.size, options.repeat, progress)
                           for p in programs(options.programs)}}
    options.out.mkdir(parents=True, exist_ok=True)
    stem = options.out / f"suite-{options.size}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(report))
    print(markdown(report))
    failed = [name for name, entry in report["programs"].items()
              if any(r["status"] in ("mismatch", "error") for r in entry["systems"].values())]
    if failed:
        print(f"failures (mismatch or error): {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0
