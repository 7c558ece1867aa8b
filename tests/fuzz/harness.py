"""Differential fuzzing harness: generated loop programs, plain CPython vs megaguards.jit.

For each seed, the program from ``generator.generate(seed)`` is written to a
temporary ``.py`` file, imported as a module, and its ``kernel`` runs on deep
copies of each call's arguments, first plainly (every call in order), then
through ``megaguards.jit`` (every call in order).  Per call, these must be equal:

* the return value (floats bit for bit via ``float.hex``, NumPy arrays via dtype,
  shape and bytes, NaN equal to NaN; the Python/NumPy class of every value), or
  the exception's type and message;
* the final state of every argument (values and element classes; NumPy dtypes).

The harness also reads ``megaguards.report()`` for the program's file: a program
*compiled* when one of its loops had ``compiled_runs > 0``.

Batches run in worker subprocesses (``--worker``), a few at a time, so that a hang
or a crash in native code is reported as such (``timeout``/``crash``) and the
batch goes on.  Command line (from the repository root)::

    python -m tests.fuzz.harness --seeds 0:5000            # a batch; summary + failures
    python -m tests.fuzz.harness --seeds 17 --show         # one program, its calls, details
    python -m tests.fuzz.harness --seeds 0:500 --jobs 2 --env MEGAGUARDS_REASSOCIATE=1 --triage

Workers run megaguards as tests/conftest.py does (MEGAGUARDS_PARALLEL_WORK=0,
with default exact floats) unless the environment or ``--env`` says otherwise.

The exit status is 1 when a seed failed (mismatch, timeout or crash).
"""
from __future__ import annotations

import argparse
import atexit
import copy
import importlib.util
import itertools
import json
import math
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parents[2]
MARK = "@@FUZZ "
SLOW_PLAIN_SECONDS = 5.0       # a program whose plain run is slower is skipped (generator's fault)
# NumPy's error state each program runs under, by seed: NumPy's default (warnings, which are
# compared), raising, raising on overflow only, and silence.
ERROR_STATES = ({}, {"all": "raise"}, {"over": "raise", "under": "warn"}, {"all": "ignore"})
DEFAULT_TIMEOUT = 60.0         # per seed, in the parent (catches hangs in native code)


# --------------------------------------------------------------------------------------
# Comparing outcomes


def comparable(value):
    """A value as plain, exactly comparable data: classes included, floats as hex."""
    if isinstance(value, numpy.ndarray):
        return ("ndarray", value.dtype.str, value.shape, _array_bytes(value))
    if isinstance(value, numpy.generic):
        return (type(value).__name__, comparable(value.item()))
    if type(value) is float:   # a NaN's sign is CPython's too (not its payload)
        return ("float", ("nan", math.copysign(1.0, value)) if value != value else value.hex())
    if type(value) is complex:
        return ("complex", comparable(value.real), comparable(value.imag))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(comparable(v) for v in value))
    if isinstance(value, (int, bool, str, type(None))):
        return (type(value).__name__, value)
    return (type(value).__name__, repr(value))


def _array_bytes(array: numpy.ndarray) -> bytes:
    array = numpy.ascontiguousarray(array)
    if array.dtype.kind == "f":  # NaN equal to NaN of the same sign, whatever its payload
        array = array.copy()
        nans = numpy.isnan(array)
        array[nans] = numpy.copysign(numpy.nan, array[nans])
    return array.tobytes()


def outcome(function, arguments: tuple):
    """(("returned", value) or ("raised", type, message), arguments afterwards, the warnings
    raised, as (class, message)), comparable.  ``arguments`` is used as is (the caller
    copies).  megaguards' own warnings (its set-up) are not the program's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("returned", comparable(function(*arguments)))
        except _Slow:
            raise
        except Exception as error:  # the exception is what we compare
            result = ("raised", type(error).__name__, str(error))
    said = tuple((w.category.__name__, str(w.message)) for w in caught if not str(w.message).startswith("megaguards"))
    return result, comparable(arguments), said


def describe_difference(expected, actual) -> str:
    (plain_result, plain_args, plain_said), (fast_result, fast_args, fast_said) = expected, actual
    lines = []
    if plain_said != fast_said:
        lines.append(f"warnings: python {list(plain_said)} | megaguards {list(fast_said)}")
    if plain_result != fast_result:
        lines.append(f"result: python {_short(plain_result)} | megaguards {_short(fast_result)}")
    if plain_args != fast_args:
        for position, (a, b) in enumerate(zip(plain_args[1], fast_args[1])):
            if a != b:
                lines.append(f"argument {position}: python {_short(a)} | megaguards {_short(b)}")
    return "; ".join(lines)


def _short(value, limit: int = 600) -> str:
    text = readable(value)
    return text if len(text) <= limit else text[:limit] + "..."


def readable(value) -> str:
    """A comparable value (see ``comparable``) written back as Python-like text."""
    if isinstance(value, tuple) and len(value) == 4 and value[0] == "ndarray":
        _, dtype, shape, data = value
        values = numpy.frombuffer(data, dtype=numpy.dtype(dtype)).reshape(shape)
        return f"array({values.tolist()!r}, {numpy.dtype(dtype).name})"
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("list", "tuple") and isinstance(value[1], tuple):
        inner = ", ".join(readable(v) for v in value[1])
        return f"[{inner}]" if value[0] == "list" else f"({inner})"
    if isinstance(value, tuple) and value and value[0] == "raised":
        return f"raised {value[1]}: {value[2]}"
    if isinstance(value, tuple) and value and value[0] == "returned":
        return f"returned {readable(value[1])}"
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "float":
        if isinstance(value[1], tuple):   # ("nan", its sign)
            return "nan" if value[1][1] > 0 else "-nan"
        return repr(float.fromhex(value[1]))
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        if value[0] in ("int", "bool", "NoneType", "str"):
            return repr(value[1])
        return f"{value[0]}({readable(value[1])})"
    return repr(value)


def fresh(arguments):
    """``arguments`` itself when it is a factory (called), else a deep copy of it.  A factory
    keeps what deepcopy loses: read-only flags, strides, views sharing one buffer."""
    return tuple(arguments()) if callable(arguments) else copy.deepcopy(tuple(arguments))


def same_outcome(function, fast, arguments):
    """Run ``function`` and ``fast`` on fresh copies of ``arguments`` (a tuple or a factory
    of tuples); returns (equal, description of the difference)."""
    expected = outcome(function, fresh(arguments))
    actual = outcome(fast, fresh(arguments))
    return expected == actual, ("" if expected == actual else describe_difference(expected, actual))


# --------------------------------------------------------------------------------------
# One program, in this process


class _Slow(Exception):
    """The plain run of a program took too long (the generator's fault, not megaguards')."""


@dataclass
class SeedResult:
    seed: int
    status: str = "ok"               # ok | mismatch | timeout | crash | error | slow
    mismatches: list = field(default_factory=list)
    compiled_runs: int = 0
    fallback_runs: int = 0
    loops: int = 0
    reasons: list = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0

    @property
    def compiled(self) -> bool:
        return self.compiled_runs > 0

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "timeout", "crash", "error")


_counter = itertools.count()
_workdir: Path | None = None


def _work_directory() -> Path:
    global _workdir
    if _workdir is None:
        _workdir = Path(tempfile.mkdtemp(prefix="mg-fuzz-"))
        atexit.register(_remove_work_directory, _workdir, os.getpid())
    return _workdir


def _remove_work_directory(path: Path, creator: int) -> None:
    # A forked child inherits the registration but not the ownership.
    if os.getpid() == creator:
        shutil.rmtree(path, ignore_errors=True)


def load_kernel(source: str, stem: str):
    """Write ``source`` to a fresh .py file, import it, return (module, path)."""
    path = _work_directory() / f"{stem}_{os.getpid()}_{next(_counter)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def _alarm(seconds: float):
    def handler(signum, frame):
        raise _Slow()
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return True
    return False


def _disarm(armed: bool) -> None:
    if armed:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_program(program, progress=None) -> SeedResult:
    """Run one generated program plainly and through megaguards.jit; compare every call."""
    import megaguards

    started = time.perf_counter()
    result = SeedResult(program.seed)
    try:
        module, path = load_kernel(program.source, f"fuzz_{program.seed}")
    except Exception as error:
        result.status, result.detail = "error", f"generated program does not load: {error!r}"
        return result
    expected = []
    error_state = ERROR_STATES[program.seed % len(ERROR_STATES)]
    armed = _alarm(SLOW_PLAIN_SECONDS)
    try:
        calls = program.make_calls()   # made outside the error state (overflowing casts)
        with numpy.errstate(**error_state):
            for call in calls:
                expected.append(outcome(module.kernel, call))
    except _Slow:
        result.status, result.detail = "slow", "the plain run is too slow"
        return result
    finally:
        _disarm(armed)
    if progress:
        progress("plain-done")
    try:
        fast = megaguards.jit(module.kernel)
        calls = program.make_calls()
        with numpy.errstate(**error_state):
            actual = [outcome(fast, call) for call in calls]
    except Exception:
        result.status, result.detail = "error", "harness: " + traceback.format_exc(limit=5)
        return result
    for number, (plain, guarded) in enumerate(zip(expected, actual)):
        if plain != guarded:
            result.mismatches.append(f"call {number}: {describe_difference(plain, guarded)}")
    if result.mismatches:
        result.status = "mismatch"
    loops = [loop for loop in megaguards.report()["loops"] if loop["file"] == str(path)]
    result.loops = len(loops)
    result.compiled_runs = sum(loop["compiled_runs"] for loop in loops)
    result.fallback_runs = sum(loop["fallback_runs"] for loop in loops)
    result.reasons = sorted({reason for loop in loops for reason in loop["reasons"]})
    result.seconds = time.perf_counter() - started
    internal = [reason for reason in result.reasons   # an internal error, or C or CUDA that did not compile
                if reason.startswith("internal error in megaguards") or "(a megaguards bug)" in reason]
    if internal and not result.mismatches:   # CPython ran the loop: equal results, but a megaguards bug
        result.status, result.detail = "error", internal[0]
    return result


def _avoided() -> tuple:
    return tuple(f for f in os.environ.get("MG_FUZZ_AVOID", "").split(",") if f)


def run_seed(seed: int, progress=None) -> SeedResult:
    from .generator import generate

    try:
        program = generate(seed, _avoided())
    except Exception:
        return SeedResult(seed, status="error", detail="generator: " + traceback.format_exc(limit=5))
    return run_program(program, progress)


# --------------------------------------------------------------------------------------
# Batches in worker subprocesses


def _worker_main() -> int:
    """Read seeds (one per line) from stdin; print one result line per seed."""
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing else may write protocol lines
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        seed = int(line)
        out.write(MARK + json.dumps({"seed": seed, "phase": "start"}) + "\n")
        out.flush()

        def progress(phase, seed=seed):
            out.write(MARK + json.dumps({"seed": seed, "phase": phase}) + "\n")
            out.flush()
        result = run_seed(seed, progress)
        out.write(MARK + json.dumps({"seed": seed, "result": asdict(result)}) + "\n")
        out.flush()
    return 0


class _Worker:
    def __init__(self, number: int, seeds: list[int], events: queue.Queue, env: dict) -> None:
        self.number = number
        self.seeds = list(seeds)
        self.current: int | None = None
        self.phase = ""
        self.events = 0
        self.since = time.monotonic()
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.harness", "--worker"], cwd=ROOT, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.process.stdin.write("".join(f"{s}\n" for s in self.seeds))
        self.process.stdin.close()
        self.reader = threading.Thread(target=self._read, args=(events,), daemon=True)
        self.reader.start()

    def _read(self, events: queue.Queue) -> None:
        for line in self.process.stdout:
            if line.startswith(MARK):
                events.put((self, json.loads(line[len(MARK):])))
        events.put((self, None))

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            self.stderr.seek(0)
            return self.stderr.read()[-limit:]
        except Exception:
            return ""

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _environment(extra: dict | None) -> dict:
    env = dict(os.environ)
    env.setdefault("MEGAGUARDS_CACHE_DIR", str(_work_directory() / "kernel-cache"))
    # As the test suite runs megaguards (tests/conftest.py): every loop compiled at its first
    # entry (the programs are tiny: the default threshold would leave them all in CPython),
    # parallel loops even when tiny, so the OpenMP code runs; float reductions exact (the default).
    env.setdefault("MEGAGUARDS_COMPILE_AFTER", "0")
    env.setdefault("MEGAGUARDS_PARALLEL_WORK", "0")
    for name in ("MEGAGUARDS_REPORT", "MEGAGUARDS_DUMP", "MEGAGUARDS_DEVICE"):
        env.pop(name, None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra or {})
    return env


def run_batch(seeds, jobs: int | None = None, timeout: float = DEFAULT_TIMEOUT, env: dict | None = None,
              on_result=None) -> list[SeedResult]:
    """Run the seeds in ``jobs`` worker processes; returns results in seed order."""
    seeds = list(seeds)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(seeds) or 1))
    environment = _environment(env)
    events: queue.Queue = queue.Queue()
    results: dict[int, SeedResult] = {}
    workers = [_Worker(k, seeds[k::jobs], events, environment) for k in range(jobs) if seeds[k::jobs]]
    live = set(workers)

    def finish(worker: _Worker, result: SeedResult) -> None:
        results[result.seed] = result
        if result.seed in worker.seeds:
            worker.seeds.remove(result.seed)
        worker.current = None
        if on_result:
            on_result(result)

    def restart(worker: _Worker) -> None:
        live.discard(worker)
        worker.kill()
        if worker.seeds:
            replacement = _Worker(worker.number, worker.seeds, events, environment)
            live.add(replacement)

    while live:
        try:
            worker, event = events.get(timeout=1.0)
        except queue.Empty:
            now = time.monotonic()
            for worker in list(live):
                if worker.current is not None and now - worker.since > timeout:
                    finish(worker, SeedResult(worker.current, status="timeout",
                                              detail=f"no result after {timeout:.0f}s (phase: {worker.phase or 'plain'}; "
                                                     "a hang in megaguards if the plain run finished)"))
                    restart(worker)
            continue
        if worker not in live:
            continue
        if event is None:  # the worker exited
            code = worker.process.wait()
            if worker.current is not None:
                finish(worker, SeedResult(worker.current, status="crash",
                                          detail=f"worker exited with {code} (phase: {worker.phase or 'plain'}): "
                                                 + worker.stderr_tail()))
            elif worker.seeds and not worker.events:  # it died before its first seed: it cannot run at all
                for seed in list(worker.seeds):
                    finish(worker, SeedResult(seed, status="error",
                                              detail=f"worker exited with {code}: {worker.stderr_tail()}"))
            live.discard(worker)
            if worker.seeds:
                restart(worker)
            continue
        worker.events += 1
        if "result" in event:
            finish(worker, SeedResult(**event["result"]))
        else:
            if event["phase"] == "start":
                worker.current, worker.phase, worker.since = event["seed"], "", time.monotonic()
            else:
                worker.phase = event["phase"]
    for seed in seeds:
        results.setdefault(seed, SeedResult(seed, status="error", detail="no result (worker lost)"))
    return [results[s] for s in seeds]


# Known open bugs (BUGS.md): a failing seed is attributed to one when the same program
# passes with that bug's trigger removed; anything else is a new failure.
KNOWN_BUGS: dict = {
    # "BUGS.md #N (what)": the environment that removes bug #N's trigger, as a dict or a function
    # returning one, while #N is open; e.g. {"MG_FUZZ_AVOID": "longrange"} (a generator feature
    # left out), {"MEGAGUARDS_HOIST": "0"}, or {"CC": a wrapper script adding a compiler flag}.
}


def _merge(*changes: dict) -> dict:
    merged: dict = {}
    for change in changes:
        for name, value in change.items():
            if name == "MG_FUZZ_AVOID" and merged.get(name):
                value = f"{merged[name]},{value}"
            merged[name] = value
    return merged


def triage(results: list[SeedResult], jobs: int | None = None, env: dict | None = None) -> dict[int, str]:
    """seed -> the known bug that explains its failure, for the failed results that one explains.
    Each seed is re-run with each known bug's trigger removed (and with all of them removed)."""
    failed = [r.seed for r in results if r.failed]
    if not failed:
        return {}
    explained: dict[int, str] = {}
    variants = [(name, change() if callable(change) else change) for name, change in KNOWN_BUGS.items()]
    if len(variants) > 1:
        variants.append((" and ".join(KNOWN_BUGS), _merge(*(change for _, change in variants))))
    for name, change in variants:
        pending = [seed for seed in failed if seed not in explained]
        if not pending:
            break
        for result in run_batch(pending, jobs, env=_merge(env or {}, change)):
            if result.status == "ok":
                explained[result.seed] = name
    return explained


def summary(results: list[SeedResult]) -> str:
    ran = [r for r in results if r.status != "slow"]
    compiled = sum(r.compiled for r in ran)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    ratio = compiled / len(ran) if ran else 0.0
    return (f"{len(results)} programs: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
            + f"; compiled {compiled}/{len(ran)} ({ratio:.0%})")


def compiled_ratio(results: list[SeedResult]) -> float:
    ran = [r for r in results if r.status != "slow"]
    return sum(r.compiled for r in ran) / len(ran) if ran else 0.0


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        if ":" in part:
            start, stop = part.split(":")
            seeds.extend(range(int(start), int(stop)))
        elif part.strip():
            seeds.append(int(part))
    return seeds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.harness", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:200", help="e.g. 0:5000 or 3,17,40:50 (default 0:200)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per program")
    parser.add_argument("--show", action="store_true", help="print each program and run it in this process")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the workers")
    parser.add_argument("--json", help="write every result to this file")
    parser.add_argument("--avoid", default="", help="generator features to leave out, e.g. readonly "
                        "(while a known bug is open; sets MG_FUZZ_AVOID for the workers)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--triage", action="store_true", help="re-run failures with each known bug's "
                        "trigger removed, and say which known bug explains each")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        return _worker_main()
    seeds = parse_seeds(options.seeds)
    extra = dict(item.split("=", 1) for item in options.env)
    if options.avoid:
        extra["MG_FUZZ_AVOID"] = options.avoid
    if options.show:
        from .generator import generate

        os.environ.update(_environment(extra))

        from megaguards import config
        settings = config.from_environment()
        config.configure(**settings._asdict())
        failed = False
        for seed in seeds:
            program = generate(seed, _avoided())
            print(f"# seed {seed}\n{program.source}{program.describe_calls()}")
            result = run_program(program)
            failed |= result.failed
            print(f"# => {result.status}; compiled_runs {result.compiled_runs}, fallback_runs {result.fallback_runs}")
            for line in result.mismatches:
                print(f"#    {line}")
            for reason in result.reasons:
                print(f"#    reason: {reason}")
            if result.detail:
                print(f"#    {result.detail}")
        return int(failed)
    started = time.perf_counter()

    def report(result: SeedResult) -> None:
        if result.failed:
            print(f"seed {result.seed}: {result.status}: {' | '.join(result.mismatches) or result.detail}", flush=True)
    results = run_batch(seeds, options.jobs, options.timeout, extra, None if options.quiet else report)
    print(summary(results) + f" in {time.perf_counter() - started:.1f}s")
    if options.triage:
        explained = triage(results, options.jobs, extra)
        for r in results:
            if r.failed:
                print(f"seed {r.seed}: {explained.get(r.seed, 'NEW (not explained by a known bug)')}")
    if options.json:
        Path(options.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    return int(any(r.failed for r in results))


if __name__ == "__main__":
    sys.exit(main())
