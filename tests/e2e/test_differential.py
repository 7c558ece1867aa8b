"""Differential end-to-end tests: every program in ``programs/`` runs under plain
CPython and under ``megaguards run``; stdout, the return code and (when the
program raises) the exception line must be identical.

Each program declares on its first line what the loop report must show:

* ``# expect: compiled``: at least one loop ran compiled, and every ``for`` (``while``) line
  marked ``# mg: compiled`` has a report entry with ``compiled_runs > 0``;
* ``# expect: fallback``: at least one loop fell back to CPython.

Either kind may mark ``for`` and ``while`` lines ``# mg: fallback``: that entry must have
``fallback_runs > 0`` and ``compiled_runs == 0``.

A ``# mg: fallback "<text>"`` mark also requires ``<text>`` in one of that
entry's reasons (the reason recorded by the analysis that decided).

A mark may depend on the Python version: ``# mg: compiled<3.12, fallback "<text>"``
means ``compiled`` on Python before 3.12 and ``fallback "<text>"`` from 3.12 on (e.g.
``math.hypot``, whose 3.12 algorithm megaguards does not reproduce).

A second line ``# pending: <what is missing>`` marks a program written ahead of
the feature it targets: its output must still be CPython's, but unmet
expectations make the test xfail (with the report) instead of failing.  Delete
the line once the feature lands.

All programs are started at once (a few at a time, one per core) the first time
a test needs a result, so the suite stays fast without pytest-xdist; kernels are
compiled once per session into a shared ``MEGAGUARDS_CACHE_DIR``.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(PROGRAMS_DIR.glob("*.py"))
TIMEOUT = 120

EXPECT_RE = re.compile(r"^#\s*expect:\s*(compiled|fallback)\s*$")
# ``# mg: [<kind> < <major>.<minor>, ]<kind>[ "<reason>"]``: the first kind before that version.
MARK_RE = re.compile(r"#\s*mg:\s*(?:(compiled|fallback)\s*<\s*(\d+)\.(\d+)\s*,\s*)?"
                     r"(compiled|fallback)\b(?:\s+\"([^\"]+)\")?")
PENDING_RE = re.compile(r"^#\s*pending:\s*(.+?)\s*$")


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    report: dict | None = None


def _environment(cache_dir: str) -> dict:
    env = dict(os.environ)
    for name in ("MEGAGUARDS_DEVICE", "MEGAGUARDS_REPORT", "MEGAGUARDS_DUMP", "MEGAGUARDS_REASSOCIATE",
                 "PYTHONSTARTUP", "PYTHONINSPECT"):
        env.pop(name, None)
    env["MEGAGUARDS_CACHE_DIR"] = cache_dir
    # The default exactness (no reassociated float reductions), and parallel loops even when tiny.
    if os.environ.get("MEGAGUARDS_E2E_DEVICE"):  # e.g. gpu, to run the corpus on the GPU machine
        env["MEGAGUARDS_DEVICE"] = os.environ["MEGAGUARDS_E2E_DEVICE"]
    env["MEGAGUARDS_PARALLEL_WORK"] = "0"
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    # Both runs must find megaguards and nothing else extra; the programs dir is cwd.
    return env


def _run(command: list[str], env: dict) -> Outcome:
    try:
        done = subprocess.run(command, cwd=PROGRAMS_DIR, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired as expired:
        return Outcome(-999, expired.stdout or "", f"TIMEOUT after {TIMEOUT}s")
    return Outcome(done.returncode, done.stdout, done.stderr)


def _run_pair(program: Path, env: dict, work: Path) -> tuple[Outcome, Outcome]:
    plain = _run([sys.executable, program.name], env)
    report_path = work / f"{program.stem}.report.json"
    if report_path.exists():
        report_path.unlink()
    guarded = _run([sys.executable, "-m", "megaguards", "run", "--report-json", str(report_path),
                    program.name], env)
    if report_path.exists():
        try:
            guarded.report = json.loads(report_path.read_text())
        except ValueError:
            guarded.report = None
    return plain, guarded


class _Runner:
    """Runs the selected programs concurrently; results on demand."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.env = _environment(str(work / "cache"))
        self.pool = ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2)))
        self.futures: dict[str, object] = {}

    def submit(self, program: Path) -> None:
        if program.name not in self.futures:
            self.futures[program.name] = self.pool.submit(_run_pair, program, self.env, self.work)

    def result(self, program: Path) -> tuple[Outcome, Outcome]:
        self.submit(program)
        return self.futures[program.name].result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def runner(request, tmp_path_factory):
    work = tmp_path_factory.mktemp("megaguards-e2e")
    runner = _Runner(work)
    # Start every program this session selected, so they run while earlier ones are checked.
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("program"), Path) \
                and item.module.__name__ == __name__:
            runner.submit(callspec.params["program"])
    yield runner
    runner.close()


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _header(program: Path) -> tuple[str, dict[int, tuple[str, str | None]]]:
    lines = program.read_text().splitlines()
    match = EXPECT_RE.match(lines[0].strip()) if lines else None
    assert match, f"{program.name}: first line must be '# expect: compiled' or '# expect: fallback'"
    marks = {}
    for number, line in enumerate(lines, start=1):
        found = MARK_RE.search(line)
        if found:
            assert re.match(r"\s*(for|while)\b", line), \
                    f"{program.name}:{number}: '# mg:' marks belong on 'for' and 'while' lines"
            before, major, minor, kind, reason = found.groups()
            if before is not None and sys.version_info < (int(major), int(minor)):
                kind, reason = before, None
            marks[number] = (kind, reason)
    return match.group(1), marks


def _describe_loops(report: dict) -> str:
    rows = []
    for loop in report.get("loops", []):
        rows.append(f"  line {loop['line']} ({loop['function']}): compiled={loop['compiled_runs']} "
                    f"fallback={loop['fallback_runs']} reasons={loop['reasons']}")
    return "\n".join(rows) or "  (no loops reached)"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program(program: Path, runner: _Runner) -> None:
    expect, marks = _header(program)
    plain, guarded = runner.result(program)

    # Plain locals, so that a failing assertion shows the difference and not whole Outcome reprs.
    out_plain, out_guarded = plain.stdout, guarded.stdout
    rc_plain, rc_guarded = plain.returncode, guarded.returncode
    err_plain, err_guarded = plain.stderr[-3000:], guarded.stderr[-3000:]
    assert rc_plain != -999, f"CPython run timed out: {err_plain}"
    assert rc_guarded != -999, f"megaguards run timed out: {err_guarded}"
    assert "Traceback" not in err_plain or rc_plain != 0, f"CPython printed a traceback but exited 0:\n{err_plain}"
    assert out_guarded == out_plain, (
        f"stdout differs\n--- CPython ---\n{out_plain}\n--- megaguards ---\n{out_guarded}\n"
        f"--- megaguards stderr ---\n{err_guarded}")
    assert rc_guarded == rc_plain, (
        f"return code differs: CPython {rc_plain}, megaguards {rc_guarded}\n"
        f"--- CPython stderr ---\n{err_plain}\n--- megaguards stderr ---\n{err_guarded}")
    if rc_plain != 0:
        last_plain, last_guarded = _last_line(plain.stderr), _last_line(guarded.stderr)
        assert last_guarded == last_plain, (
            f"exception line differs\n--- CPython stderr ---\n{err_plain}\n--- megaguards stderr ---\n{err_guarded}")
    assert "internal error" not in guarded.stderr, f"megaguards internal error:\n{err_guarded}"

    lines = program.read_text().splitlines()
    pending = PENDING_RE.match(lines[1].strip()) if len(lines) > 1 else None
    try:
        _check_report(program, guarded, expect, marks)
    except AssertionError as unmet:
        if pending is None:
            raise
        pytest.xfail(f"pending ({pending.group(1)}): {unmet}")


def _check_report(program: Path, guarded: Outcome, expect: str, marks: dict) -> None:
    report = guarded.report
    assert report is not None, f"no JSON report written\n{guarded.stderr[-3000:]}"
    assert report.get("version") == 1
    here = str(program.resolve())
    loops = [loop for loop in report["loops"] if Path(loop["file"]).resolve() == Path(here)]
    by_line = {loop["line"]: loop for loop in loops}
    summary = _describe_loops(report)

    if expect == "compiled":
        assert any(loop["compiled_runs"] > 0 for loop in loops), f"no loop ran compiled:\n{summary}"
    else:
        assert any(loop["fallback_runs"] > 0 for loop in loops), f"no loop fell back:\n{summary}"
    for line, (kind, reason) in sorted(marks.items()):
        loop = by_line.get(line)
        assert loop is not None, f"line {line} is marked '# mg: {kind}' but has no report entry:\n{summary}"
        if kind == "compiled":
            assert loop["compiled_runs"] > 0, f"line {line} is marked '# mg: compiled':\n{summary}"
        else:
            assert loop["fallback_runs"] > 0 and loop["compiled_runs"] == 0, \
                f"line {line} is marked '# mg: fallback':\n{summary}"
            assert reason is None or any(reason in text for text in loop["reasons"]), \
                f"line {line}: no reason contains {reason!r}:\n{summary}"
