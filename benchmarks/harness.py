"""What the benchmark scripts share: running a program under each engine and reading its
``checksum=``/``time=``/``first=`` lines (``Runner``), the machine a run measured, a
megaguards report's loop sites, the formatting of rows and tables, and the runners' progress bar.

Used by ``run.py`` (the sequential targets), ``calls.py``, the suite runner and the everyday runner.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
RESULTS = HERE / "results"
REPOSITORY = HERE.parent


class BenchmarkError(RuntimeError):
    pass


def progress_bar(total: int, quiet: bool):
    """A tqdm bar on stderr (done of ``total``, elapsed, ETA), or None: --quiet, tqdm not
    installed (the ``bench`` extra has it), or stderr not a terminal, where a log keeps the
    runners' plain lines."""
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, file=sys.stderr, unit="run", dynamic_ncols=True)



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


def source_digest(root: Path | None = None) -> str:
    """A digest of the package's source files as they are on disk (src/megaguards: .py, .c,
    .h): names the tree measured where git cannot (a copy whose .git is older than its files)."""
    import hashlib

    root = root or REPOSITORY / "src" / "megaguards"
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".c", ".h") and p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


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
                              f"working tree, HEAD {commit}" + (" + uncommitted changes in src/" if dirty else "")
                              + f" (src digest {source_digest()})"),
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
        # The rows measure the compiled code, its entry overhead included: every loop compiles
        # at its first entry (by default a loop worth microseconds stays in CPython).
        sequential = {"MEGAGUARDS_DEVICE": "seq", "MEGAGUARDS_COMPILE_AFTER": "0"}
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
