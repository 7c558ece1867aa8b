"""benchmarks/everyday_runner.py (issue 25's everyday group): a --quick run of two programs
at tiny sizes writes the table, compares every checksum with CPython's, and reports a
megaguards run whose checksum differs as FAIL, never as a number; a run past the time
limit is a lower bound; rows come slow-downs first."""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from xml.dom import minidom

import pytest

from benchmarks import everyday_report, everyday_runner

STUB = '''import sys
# A different checksum whenever megaguards runs the script: the mismatch the runner must catch.
print("checksum=%d" % (2 if "megaguards" in sys.modules else 1))
'''


def test_a_quick_run_writes_the_table_and_a_mismatch_is_a_failure_not_a_number(tmp_path, monkeypatch):
    stub = tmp_path / "stub.py"
    stub.write_text(STUB)
    programs = {p.name: p for p in everyday_runner.PROGRAMS}
    monkeypatch.setattr(everyday_runner, "PROGRAMS", [
        dataclasses.replace(programs["rowsums"], quick=("40", "1")),
        programs["loopfree"],
        everyday_runner.Program("11", "stub", (), (), source=str(stub), models="prints 2 under megaguards")])
    out = tmp_path / "results"
    status = everyday_runner.main(["--quick", "--only", "rowsums,loopfree,stub", "--out", str(out), "--quiet"])
    assert status == 1   # the stub fails (and at these sizes start-up fails the others too)

    result = json.loads((out / "everyday-quick.json").read_text())
    markdown = (out / "everyday-quick.md").read_text()
    assert (out / "everyday-quick.svg").read_text().startswith("<svg")
    rows = {row["program"]: row for row in result["rows"]}
    assert set(rows) == {"rowsums", "loopfree", "stub"} and result["mode"] == "quick"

    for name in ("rowsums", "loopfree"):    # compared, equal, measured
        row = rows[name]
        assert row["checksums_match"] and row["checksums_compared"] == 2, row["problems"]
        assert row["megaguards_s"] > 0 and row["cpython_s"] > 0 and row["ratio"] > 0
        assert row["report"] is not None
    assert rows["rowsums"]["checksum"] == "6440.25"   # python benchmarks/everyday/rowsums.py 40 1
    assert rows["rowsums"]["report"]["compiled"] >= 1

    stub_row = rows["stub"]
    assert stub_row["status"] == "FAIL" and not stub_row["checksums_match"]
    assert stub_row["megaguards_s"] is None and stub_row["ratio"] is None
    assert any("checksum 2 != CPython's 1" in problem for problem in stub_row["problems"])
    assert result["rows"][0]["program"] == "stub"   # no number: listed first
    line = next(line for line in markdown.splitlines() if line.startswith("| 11 | stub |"))
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells[3] == "mismatch" and cells[4] == "-" and cells[-1] == "FAIL: checksum mismatch"
    assert "| # | program | CPython s | megaguards s (warm median) | ratio |" in markdown

    (out / "everyday-quick.md").unlink()    # --render: the same table again from the JSON alone
    assert everyday_runner.main(["--render", str(out / "everyday-quick.json")]) == 1
    assert (out / "everyday-quick.md").read_text() == markdown


def test_the_command_shown_leaves_out_the_notes():
    command = "python -m benchmarks everyday --note 'the machine'\"'\"'s load' --quick --note=x --only sieve"
    assert everyday_report.shown_command(command) == "python -m benchmarks everyday --quick --only sieve"


def test_a_run_past_the_limit_is_a_bound_and_rows_sort_slow_downs_first():
    class Options:
        timeout = 120.0
    program = everyday_runner.PROGRAMS[0]
    ok = {"wall": 1.0, "cpu": 1.0, "returncode": 0, "checksum": "7"}
    late = {"wall": 120.0, "cpu": 119.0, "returncode": -2, "timeout": True}
    runs = {"cpython": [ok, ok, ok], "megaguards": [late]}
    slow = everyday_runner.evaluate(program, ("1500", "8"), dict(late), runs, "skipped the rest", Options)
    assert slow["status"] == "FAIL" and slow["timeout"] and slow["megaguards_s"] == 120.0
    assert slow["checksums_compared"] == 0
    cells = everyday_report.cells(slow, 120.0)
    assert cells[3] == "> 120" and cells[4] == "< 0.008x" and cells[5] == "> 120"

    fast_runs = {"cpython": [ok, ok, ok], "megaguards": [dict(ok, wall=0.2)] * 3}
    fast = everyday_runner.evaluate(program, ("1500", "8"), dict(ok, wall=1.5), fast_runs, None, Options)
    assert fast["status"] == "PASS" and fast["ratio"] == 5.0 and fast["checksums_compared"] == 4
    wrong = everyday_runner.evaluate(program, ("1500", "8"), dict(ok, checksum="8"), fast_runs, None, Options)
    assert wrong["status"] == "FAIL" and wrong["ratio"] is None
    ordered = sorted([fast, slow, wrong], key=everyday_runner.sort_key)
    assert ordered == [wrong, slow, fast]
    svg = everyday_report.chart_svg({"rows": ordered, "date": "2026-01-01", "mode": "full", "timeout_s": 120.0})
    text = " ".join(node.data for node in minidom.parseString(svg).getElementsByTagName("text")
                    for node in node.childNodes)
    assert "< 0.00833x" in text and "5x" in text and "FAIL: checksum mismatch" in text


def test_the_fastest_runs_count_on_a_noisy_host():
    class Options:
        timeout, statistic = 120.0, "min"
    program = next(p for p in everyday_runner.PROGRAMS if not p.compilable and not p.startup)   # bank
    ok = {"wall": 1.0, "cpu": 1.0, "returncode": 0, "checksum": "7"}
    def report(tag):
        return {"stages": {}, "fallback_entries": 0, "loops": [], "tag": tag}
    runs = {"cpython": [ok, dict(ok, wall=1.6), dict(ok, wall=1.5)],
            "megaguards": [dict(ok, wall=1.9, report=report("slowest")), dict(ok, wall=1.05, report=report("fastest")),
                           dict(ok, wall=1.7, report=report("median"))]}
    row = everyday_runner.evaluate(program, ("1500", "8"), dict(ok), runs, None, Options)
    assert row["cpython_s"] == 1.0 and row["megaguards_s"] == 1.05 and row["status"] == "PASS"
    assert row["report"]["tag"] == "fastest"   # the fastest warm run's report
    Options.statistic = "median"
    median = everyday_runner.evaluate(program, ("1500", "8"), dict(ok), runs, None, Options)
    assert median["status"] == "FAIL" and median["report"]["tag"] == "median"   # 1.7 s against 1.5 s
    header = everyday_report.columns({"statistic": "min"})
    assert "megaguards s (warm min)" in header


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_is_a_bar_of_every_process_run_on_a_terminal(monkeypatch, quiet):
    """Each program: a cold run, then cpython and megaguards per repetition; runs skipped
    after a timeout still count as done."""
    pytest.importorskip("tqdm")

    def measure(program, arguments, count, options, cache_dir, scratch, calibration, log):
        log(f"  {program.name} cold", runs=1)
        log(f"  {program.name} [1/1] cpython", runs=1)   # megaguards' warm run skipped
        return {"id": program.id, "program": program.name, "ratio": 1.0, "status": "PASS"}

    monkeypatch.setattr(everyday_runner, "measure", measure)
    monkeypatch.setattr(everyday_runner, "write", lambda result, options: 0)
    monkeypatch.setattr(everyday_runner, "machine_info", lambda *arguments: {})
    err = Terminal()
    with contextlib.redirect_stderr(err):
        assert everyday_runner.main(["--quick", "--only", "rowsums,sieve"] + ["--quiet"] * quiet) == 0
    if quiet:
        assert err.getvalue() == ""
        return
    text = err.getvalue()
    assert "[1/2] rowsums 200 2 (1 repetitions)" in text and "  sieve [1/1] cpython" in text
    assert "0/6 [00:00<?" in text and "6/6 [" in text.splitlines()[-1]   # 2 programs x (cold + 2 engines)
