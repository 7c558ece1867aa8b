"""Mutation testing on demand: plant each mutant of the catalogue in a copy of ``src/``
and run the tests it names against that copy; a mutant is *killed* when they fail.

    python tests/mutation/run.py                   # every mutant, 2 at a time
    python tests/mutation/run.py --set listed      # issue 24's ten mutants only
    python tests/mutation/run.py --only bool-in-int-list --jobs 1 --verbose
    python tests/mutation/run.py --broad           # survivors also face the broad test set

The unmutated copy runs the same tests first: a red baseline stops the run (every
mutant would look killed).  Not part of the default test run: a full pass takes
minutes per mutant.  tests/test_mutation_catalogue.py checks that every mutant still
applies to the source as it is."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from fresh import FRESH  # noqa: E402
from mutants import LISTED, Mutant  # noqa: E402

SETS = {"listed": LISTED, "fresh": FRESH, "all": LISTED + FRESH}
# What a survivor of its own tests faces with --broad: every in-process semantic test,
# the e2e corpus and the fuzz regressions.
BROAD = ("tests/test_semantics.py", "tests/test_parallel.py", "tests/test_hoisting.py", "tests/test_boxing.py",
         "tests/test_dependence.py", "tests/test_builtins.py", "tests/test_complex.py", "tests/test_comprehensions.py",
         "tests/test_inline.py", "tests/test_codegen.py", "tests/test_cuda_emulation.py",
         "tests/e2e/test_differential.py", "tests/fuzz/test_regressions.py")


def planted_copy(mutant: Mutant | None, folder: Path) -> Path:
    """A copy of src/ with ``mutant`` applied (none: the source as it is)."""
    source = folder / "src"
    shutil.copytree(ROOT / "src", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    if mutant is not None:
        target = source / "megaguards" / mutant.path
        target.write_text(mutant.apply(target.read_text()))
    return source


def run_tests(source: Path, tests, timeout: float, verbose: bool) -> tuple[str, float, str]:
    """'passed', 'failed' or 'timed out', the seconds it took and the first failing test."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")])),
                       PYTHONDONTWRITEBYTECODE="1")
    where = subprocess.run([sys.executable, "-c", "import megaguards; print(megaguards.__file__)"],
                           env=environment, capture_output=True, text=True, cwd=ROOT)
    if not where.stdout.startswith(str(source)):
        raise SystemExit(f"the planted copy is not what Python imports: {where.stdout or where.stderr}")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", *tests]
    started = time.perf_counter()
    try:
        result = subprocess.run(command, env=environment, cwd=ROOT, timeout=timeout, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except subprocess.TimeoutExpired:
        return "timed out", time.perf_counter() - started, ""
    if verbose:
        print(result.stdout)
    killer = next((line.split(" ", 1)[1].split(" - ")[0] for line in result.stdout.splitlines()
                   if line.startswith(("FAILED ", "ERROR "))), "")
    return ("passed" if result.returncode == 0 else "failed"), time.perf_counter() - started, killer


def judge(mutant: Mutant | None, tests, timeout: float, verbose: bool) -> tuple[str, float, str]:
    with tempfile.TemporaryDirectory(prefix="megaguards-mutant-") as folder:
        return run_tests(planted_copy(mutant, Path(folder)), tests, timeout, verbose)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="all")
    parser.add_argument("--only", nargs="*", help="mutant names")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--broad", action="store_true", help="survivors also run the broad test set")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per test run (a hang counts as killed)")
    parser.add_argument("--verbose", action="store_true", help="show pytest's output")
    arguments = parser.parse_args(argv)
    chosen = [m for m in SETS[arguments.set] if not arguments.only or m.name in arguments.only]
    if arguments.only and len(chosen) != len(set(arguments.only)):
        parser.error(f"unknown mutants: {sorted(set(arguments.only) - {m.name for m in chosen})}")
    test_sets = sorted({m.tests for m in chosen} | ({BROAD} if arguments.broad else set()))
    with ThreadPoolExecutor(arguments.jobs) as pool:
        baselines = list(pool.map(lambda tests: judge(None, tests, arguments.timeout, arguments.verbose), test_sets))
        red = [tests for tests, (result, _, _) in zip(test_sets, baselines) if result != "passed"]
        if red:
            print(f"baseline not green, no mutant run: {red}", file=sys.stderr)
            return 2

        def one(mutant: Mutant) -> tuple[Mutant, str, str, float, str]:
            result, seconds, killer = judge(mutant, mutant.tests, arguments.timeout, arguments.verbose)
            if result == "passed" and arguments.broad:
                result, more, killer = judge(mutant, BROAD, arguments.timeout, arguments.verbose)
                return mutant, result, "broad", seconds + more, killer
            return mutant, result, "own", seconds, killer
        outcomes = list(pool.map(one, chosen))
    print("| mutant | file | result | tests | seconds | first failing test |\n|---|---|---|---|---|---|")
    for mutant, result, tier, seconds, killer in outcomes:
        verdict = {"failed": "killed", "timed out": "killed (timed out)", "passed": "SURVIVED"}[result]
        print(f"| {mutant.name} | {mutant.path} | {verdict} | {tier} | {seconds:.0f} | {killer} |")
    killed = sum(result != "passed" for _, result, _, _, _ in outcomes)
    print(f"\n{killed} of {len(outcomes)} killed ({100 * killed / max(1, len(outcomes)):.0f}%)")
    return 0 if killed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
