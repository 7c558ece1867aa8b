"""The benchmark suite's programs (benchmarks/suite/*.py) at ``--size small``: the
checksum under ``megaguards run`` must equal CPython's (or be within the program's
stated TOLERANCE), and the report must show a compiled loop."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parent.parent / "benchmarks" / "suite"
PROGRAMS = sorted(p for p in SUITE.glob("*.py") if p.name != "common.py")
CHECKSUM = re.compile(r"^checksum=(.+)$", re.MULTILINE)
TOLERANCE = re.compile(r"^TOLERANCE\s*=\s*([0-9.eE+-]+)", re.MULTILINE)


def run(arguments, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, arguments)], capture_output=True, text=True,
                          timeout=300, **kwargs)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_suite_program_matches_cpython_and_compiles(program, tmp_path):
    plain = run([program, "--size", "small"])
    assert plain.returncode == 0, plain.stderr
    report = tmp_path / "report.json"
    fast = run(["-m", "megaguards", "run", "--report-json", report, program, "--size", "small"])
    assert fast.returncode == 0, fast.stderr
    expected, actual = CHECKSUM.search(plain.stdout).group(1), CHECKSUM.search(fast.stdout).group(1)
    tolerance = TOLERANCE.search(program.read_text())
    if tolerance:
        assert math_close(float(expected), float(actual), float(tolerance.group(1))), (expected, actual)
    else:
        assert actual == expected
    loops = json.loads(report.read_text())["loops"]
    assert any(loop["compiled_runs"] for loop in loops), [loop["reasons"] for loop in loops]


def math_close(a: float, b: float, relative: float) -> bool:
    return a == b or abs(a - b) <= relative * max(abs(a), abs(b))


def test_runner_compares_checksums_and_writes_json_and_markdown(tmp_path):
    root = SUITE.parent.parent
    completed = subprocess.run([sys.executable, "-m", "benchmarks", "run", "--programs", "hotspot",
                                "--systems", "megaguards-seq,pypy", "--repeat", "1", "--out", str(tmp_path),
                                "--quiet"], cwd=root, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    report = json.loads((tmp_path / "suite-small.json").read_text())
    systems = report["programs"]["hotspot"]["systems"]
    assert systems["cpython"]["status"] == "ok" and systems["megaguards-seq"]["status"] == "ok"
    assert systems["megaguards-seq"]["checksum"] == systems["cpython"]["checksum"]
    assert systems["pypy"]["status"] in ("ok", "skipped")  # never a made-up number
    assert "| hotspot |" in (tmp_path / "suite-small.md").read_text()


def test_runner_reports_a_checksum_mismatch_as_a_failure(monkeypatch):
    monkeypatch.syspath_prepend(str(SUITE.parent.parent))  # `pytest` does not put the root on sys.path
    from benchmarks import suite_runner

    assert suite_runner.same_checksum("1.5", "1.5", None)
    assert not suite_runner.same_checksum("1.5", "1.5000001", None)
    assert suite_runner.same_checksum("1.5", "1.5000000001", 1e-9)
