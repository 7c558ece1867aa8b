"""The end-to-end corpus as a start-up benchmark (issue 25: "every program of
``tests/e2e/programs``: at most 1.1x CPython's whole-process time + 30 ms").

    python -m benchmarks corpus [--repetitions N] [--only NAME,...] [--out DIR] [--quiet]

The corpus's programs are small: each runs for milliseconds, so what this measures is what
megaguards adds to a short script whose loops are worth little (rewriting, estimating,
and whatever it compiles).  Per program, with megaguards' default settings (no
``MEGAGUARDS_*`` of the caller's shell, a kernel cache of the run's own): one warm-up run
of each (``.pyc`` files, the rewrite cache and the kernels written, as on a machine where
the script ran before), then N interleaved runs of ``python prog.py`` and ``python -m
megaguards run prog.py``, whole process, median (``--statistic min``: the fastest run of
each, for a host whose own noise spreads python's runs over tens of ms); the outputs must
be identical.  Rows come
slow-downs first, with the loops each run compiled (from its report).

Writes <out>/corpus-overhead.md and .json.  Exit status 0 when every program meets the
target and every output matches, else 1.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.everyday_runner import environment
from benchmarks.harness import REPOSITORY, RESULTS, machine_info

CORPUS = REPOSITORY / "tests" / "e2e" / "programs"
RATIO_TARGET, EXTRA_TARGET_S = 1.1, 0.030


def timed(command: list[str], env: dict, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    result = subprocess.run(command, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=300)
    return time.perf_counter() - started, result


STATISTICS = {"median": statistics.median, "min": min}


def measure(program: Path, repetitions: int, scratch: Path, statistic: str = "median") -> dict:
    env = environment(scratch / "cache", ref=False)
    report = scratch / "report.json"
    python = [sys.executable, str(program)]
    megaguards = [sys.executable, "-m", "megaguards", "run", str(program)]
    timed(megaguards, env, scratch)
    timed(python, env, scratch)
    cpython, ours, outputs = [], [], set()
    for _ in range(repetitions):
        seconds, plain = timed(python, env, scratch)
        cpython.append(seconds)
        seconds, run = timed(megaguards, env, scratch)
        ours.append(seconds)
        outputs.add((plain.stdout, plain.returncode) == (run.stdout, run.returncode))
    timed(megaguards, dict(env, MEGAGUARDS_REPORT=str(report)), scratch)
    loops = json.loads(report.read_text())["loops"] if report.exists() else []
    cpython_s, megaguards_s = STATISTICS[statistic](cpython), STATISTICS[statistic](ours)
    return {"program": program.name, "cpython_s": round(cpython_s, 4), "megaguards_s": round(megaguards_s, 4),
            "over_s": round(megaguards_s - cpython_s, 4), "same_output": outputs == {True},
            "passed": outputs == {True} and megaguards_s <= RATIO_TARGET * cpython_s + EXTRA_TARGET_S,
            "compiled_loops": sum(1 for loop in loops if loop["compiled_runs"]), "loops": len(loops)}


def describe_machine() -> str:
    info = machine_info(shutil.which("cc"), None)
    return (f"{info['cpu_model']}, {info['cpus_usable']} usable CPUs, Python {info['python']}, megaguards from "
            f"{info['megaguards_source']}")


def render(result: dict) -> str:
    rows = result["rows"]
    passed = sum(row["passed"] for row in rows)
    lines = ["# The end-to-end corpus: whole-process time, megaguards vs CPython (issue 25)", "",
             f"- date: {result['date']}; command: `{result['command']}`; {result['repetitions']} interleaved "
             f"repetitions, {result.get('statistic', 'median')}; default settings, warm caches",
             f"- machine: {result['machine']}",
             f"- target: at most {RATIO_TARGET}x CPython + {EXTRA_TARGET_S * 1e3:.0f} ms, the same output: "
             f"**{passed} of {len(rows)} pass**", "",
             "| program | CPython s | megaguards s | over | loops compiled | status |", "|---|---|---|---|---|---|"]
    for row in rows:
        status = "PASS" if row["passed"] else "FAIL" + ("" if row["same_output"] else ": OUTPUT DIFFERS")
        lines.append(f"| {row['program']} | {row['cpython_s']:.3f} | {row['megaguards_s']:.3f} | "
                     f"{1e3 * row['over_s']:+.0f} ms | {row['compiled_loops']} of {row['loops']} | {status} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", "-n", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--statistic", choices=sorted(STATISTICS), default="median",
                        help="of each engine's runs per program (default median; min for a noisy host)")
    parser.add_argument("--only", help="program names (without .py), comma-separated")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    options = parser.parse_args(argv)
    programs = sorted(CORPUS.glob("*.py"))
    if options.only:
        wanted = {name.strip().removesuffix(".py") for name in options.only.split(",")}
        programs = [p for p in programs if p.stem in wanted]
        if not programs:
            parser.error(f"no program of {CORPUS} named {options.only}")
    scratch = Path(tempfile.mkdtemp(prefix="mg-corpus-"))
    rows = []
    try:
        for number, program in enumerate(programs, 1):
            rows.append(measure(program, options.repetitions, scratch, options.statistic))
            if not options.quiet:
                row = rows[-1]
                print(f"[{number}/{len(programs)}] {program.name}: python {row['cpython_s']:.3f} s, megaguards "
                      f"{row['megaguards_s']:.3f} s {'PASS' if row['passed'] else 'FAIL'}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.sort(key=lambda row: (row["passed"], -row["over_s"]))
    result = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "repetitions": options.repetitions,
              "statistic": options.statistic,
              "command": "python -m benchmarks corpus " + " ".join(argv if argv is not None else sys.argv[1:]),
              "machine": describe_machine(), "rows": rows}
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "corpus-overhead.json").write_text(json.dumps(result, indent=1) + "\n")
    text = render(result)
    (options.out / "corpus-overhead.md").write_text(text)
    if not options.quiet:
        print(text)
    return 0 if all(row["passed"] for row in rows) else 1
