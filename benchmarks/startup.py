#!/usr/bin/env python3
"""Start-up against python, in one run (issue 25, "Start-up"):

    python benchmarks/startup.py [--repetitions N] [--cold-repetitions N] [--loops N]

* rows 10, 10b: a script that enters no loop (``print("hello")``), whole process, ``python
  hello.py`` against ``python -m megaguards run hello.py`` (auto, then ``--device off``),
  interleaved, median of N (10) after warm-up runs: ``.pyc`` files written, megaguards'
  rewrite cache filled.  Target: at most 30 ms over python.
* row 10e: the same on a bare interpreter, ``python -S hello.py`` against megaguards' CLI
  under ``python -S`` (its source folder put on ``sys.path`` by a one-line bootstrap): no
  site hook has imported anything (this machine's do import pathlib, re, typing...), so
  every module megaguards imports at start-up is paid, as in a fresh virtual environment.
* rows 10c, 10d: importing a generated module of 2000 small loops (one function each),
  timed inside the process around ``import``: python with its ``.pyc`` against megaguards
  with its rewrite cache filled (warm), and megaguards with an empty cache (cold, median of
  fewer runs: each rewrites every loop).

Prints the table and writes ``results/startup-latest.md`` and ``.json``; ``run.py --only
startup`` runs the same rows among the others.  Exit status 0 when every target passes.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import RESULTS, BenchmarkError, machine_info, ratio_text, render_markdown, render_text, status  # noqa: E402

STARTUP_TARGET_MS = 30.0   # loop-free start-up over python
IMPORT_TARGET_MS = 30.0    # the 2000-loop module, warm rewrite cache, over its .pyc import
DEFAULTS = {"repetitions": 10, "cold_repetitions": 3, "loops": 2000}


def generated_module(loops: int) -> str:
    lines = []
    for k in range(loops):
        lines += [f"def f{k}(a, n):", "    s = 0", "    for i in range(n):", f"        s += a[i] * {k}",
                  "    return s", ""]
    return "\n".join(lines)


TIMED_IMPORT = ("import time\nstarted = time.perf_counter()\nimport big\n"
                "print('import=%.6f' % (time.perf_counter() - started))\n")


# ``python -S -c BOOTSTRAP run hello.py``: megaguards' CLI from the source folder this benchmark
# imports, without site (which would otherwise put it on sys.path).
BOOTSTRAP = ("import sys; sys.path.insert(0, {source!r}); sys.argv[0] = 'megaguards'; "
             "from megaguards.cli import main; sys.exit(main())")


def megaguards_source() -> str:
    import megaguards

    return os.path.dirname(os.path.dirname(os.path.abspath(megaguards.__file__)))


def environment(cache: Path) -> dict:
    """.pyc files written (the comparison is with python's warm start), megaguards' cache here."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("MEGAGUARDS_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["MEGAGUARDS_CACHE_DIR"] = str(cache)
    env["MEGAGUARDS_AUTO_CALIBRATE"] = "0"   # no calibration started in the background of the timed runs
    return env


def timed(command: list[str], env: dict, cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(command, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise BenchmarkError(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr[-3000:]}")
    return elapsed, result.stdout


def import_seconds(output: str) -> float:
    return float(next(line for line in output.splitlines() if line.startswith("import="))[len("import="):])


def startup_rows(settings: dict | None = None, log=print) -> tuple[list[dict], dict]:
    settings = {**DEFAULTS, **(settings or {})}
    folder = Path(tempfile.mkdtemp(prefix="mg-bench-startup-"))
    try:
        return _measure(folder, settings, log)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(folder: Path, settings: dict, log) -> tuple[list[dict], dict]:
    python, repetitions = sys.executable, settings["repetitions"]
    (folder / "hello.py").write_text('print("hello")\n')
    (folder / "big.py").write_text(generated_module(settings["loops"]))
    (folder / "main.py").write_text(TIMED_IMPORT)
    env = environment(folder / "cache")
    engines = {"python": [python, "hello.py"],
               "auto": [python, "-m", "megaguards", "run", "hello.py"],
               "off": [python, "-m", "megaguards", "run", "--device", "off", "hello.py"],
               "python -S": [python, "-S", "hello.py"],
               "bare": [python, "-S", "-c", BOOTSTRAP.format(source=megaguards_source()), "run", "hello.py"]}
    log(f"[10] loop-free start-up, median of {repetitions}, interleaved")
    for command in engines.values():   # warm-up: .pyc files, the rewrite cache
        timed(command, env, folder)
        timed(command, env, folder)
    walls: dict = {name: [] for name in engines}
    for _ in range(repetitions):
        for name, command in engines.items():
            walls[name].append(timed(command, env, folder)[0])
    median = {name: statistics.median(values) for name, values in walls.items()}

    log(f"[10c] importing a module of {settings['loops']} loops: warm (median of {repetitions}), "
        f"cold (median of {settings['cold_repetitions']})")
    pyc = [python, "main.py"]
    mega = [python, "-m", "megaguards", "run", "main.py"]
    timed(pyc, env, folder)   # writes big's .pyc
    colds = []
    for repetition in range(settings["cold_repetitions"]):
        cold_env = environment(folder / f"cold-cache-{repetition}")
        colds.append(import_seconds(timed(mega, cold_env, folder)[1]))
    timed(mega, env, folder)   # fills the rewrite cache of the warm runs
    pycs, warms = [], []
    for _ in range(repetitions):
        pycs.append(import_seconds(timed(pyc, env, folder)[1]))
        warms.append(import_seconds(timed(mega, env, folder)[1]))
    imports = {"pyc": statistics.median(pycs), "warm": statistics.median(warms), "cold": statistics.median(colds)}

    raw = {"settings": settings, "walls": walls, "median_walls": median,
           "imports": {"pyc": pycs, "warm": warms, "cold": colds}, "median_imports": imports}
    return rows(median, imports, settings, repetitions), raw


def rows(median: dict, imports: dict, settings: dict, repetitions: int) -> list[dict]:
    out = []
    for row_id, name, flag in (("10", "auto", ""), ("10b", "off", " --device off")):
        over = 1e3 * (median[name] - median["python"])
        out.append({
            "id": row_id, "benchmark": f"loop-free script, whole process: python vs megaguards run{flag}",
            "cpython": f"{median['python'] * 1e3:.1f} ms", "megaguards": f"{median[name] * 1e3:.1f} ms", "pypy": "-",
            "result": f"{over:+.1f} ms", "value": over, "unit": "ms", "target": f"<= {STARTUP_TARGET_MS:g} ms",
            "status": status(over <= STARTUP_TARGET_MS),
            "notes": f"median of {repetitions} interleaved runs, .pyc files and the rewrite cache warm; "
                     f"megaguards/python {median[name] / median['python']:.2f}x"})
    over = 1e3 * (median["bare"] - median["python -S"])
    out.append({
        "id": "10e", "benchmark": "loop-free script on a bare interpreter: python -S vs megaguards run under -S",
        "cpython": f"{median['python -S'] * 1e3:.1f} ms", "megaguards": f"{median['bare'] * 1e3:.1f} ms",
        "pypy": "-", "result": f"{over:+.1f} ms", "value": over, "unit": "ms", "target": f"<= {STARTUP_TARGET_MS:g} ms",
        "status": status(over <= STARTUP_TARGET_MS),
        "notes": f"median of {repetitions} interleaved runs; no site hook has imported anything, so every "
                 f"module megaguards imports at start-up is paid, as in a fresh virtual environment"})
    loops = settings["loops"]
    over = 1e3 * (imports["warm"] - imports["pyc"])
    out.append({
        "id": "10c", "benchmark": f"import a module of {loops} loops: .pyc vs rewrite cache (warm)",
        "cpython": f"{imports['pyc'] * 1e3:.2f} ms", "megaguards": f"{imports['warm'] * 1e3:.2f} ms", "pypy": "-",
        "result": f"{over:+.1f} ms", "value": over, "unit": "ms", "target": f"<= {IMPORT_TARGET_MS:g} ms",
        "status": status(over <= IMPORT_TARGET_MS),
        "notes": f"timed around `import` inside the process, median of {repetitions}; megaguards/.pyc "
                 f"{ratio_text(imports['warm'] / imports['pyc'])} (site registration and the cache's checks "
                 f"included)"})
    out.append({
        "id": "10d", "benchmark": f"import a module of {loops} loops: empty rewrite cache (cold) vs warm",
        "cpython": "-", "megaguards": f"{imports['cold'] * 1e3:.0f} ms", "pypy": "-",
        "result": ratio_text(imports["cold"] / imports["warm"]), "value": imports["cold"] / imports["warm"],
        "unit": "x", "target": "info", "status": "INFO",
        "notes": f"cold: every loop rewritten, compiled and the entry written (median of "
                 f"{settings['cold_repetitions']} fresh cache folders); what every process paid before the cache"})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", "-n", type=int, default=DEFAULTS["repetitions"])
    parser.add_argument("--cold-repetitions", type=int, default=DEFAULTS["cold_repetitions"])
    parser.add_argument("--loops", type=int, default=DEFAULTS["loops"])
    options = parser.parse_args(argv)
    settings = {"repetitions": max(1, options.repetitions), "cold_repetitions": max(1, options.cold_repetitions),
                "loops": options.loops}
    try:
        table, raw = startup_rows(settings, log=lambda line: print(line, file=sys.stderr, flush=True))
    except BenchmarkError as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    machine = machine_info(shutil.which("gcc"), None)
    print(render_text(table, with_pypy=False))
    for row in table:
        print(f"  #{row['id']}: {row['notes']}")
    header = [f"- machine: {machine['cpu_model']}, {machine['cpu_count']} CPUs, Python {machine['python']}",
              f"- megaguards: {machine['megaguards_source']} (imported: {machine['megaguards']})"]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "startup-latest.md").write_text(render_markdown(table, False, header, [], machine))
    (RESULTS / "startup-latest.json").write_text(json.dumps({"rows": table, "raw": raw, "machine": machine},
                                                            indent=2) + "\n")
    return 0 if all(row["status"] != "FAIL" for row in table) else 1


if __name__ == "__main__":
    sys.exit(main())
