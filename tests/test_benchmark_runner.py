"""benchmarks/run.py and its helpers (harness.py, hoisting.py): output parsing, --only,
the loop copies of a dumped kernel, the tables, and that the scripts start."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import harness  # noqa: E402
import hoisting  # noqa: E402
import run  # noqa: E402


def test_a_programs_output_gives_its_three_values_and_a_missing_one_is_an_error():
    assert harness.parse_output("noise\nchecksum=12.5\ntime=0.25\nfirst= 0.5 \n") == {
        "checksum": "12.5", "time": "0.25", "first": "0.5"}
    with pytest.raises(harness.BenchmarkError, match="no 'first=' line"):
        harness.parse_output("checksum=1\ntime=2\n")


def test_the_source_digest_names_the_files_on_disk(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.c").write_text("int b;\n")
    (tmp_path / "notes.txt").write_text("not source\n")
    first = harness.source_digest(tmp_path)
    (tmp_path / "notes.txt").write_text("changed, still not source\n")
    assert harness.source_digest(tmp_path) == first and len(first) == 12
    (tmp_path / "sub" / "b.c").write_text("int b = 2;\n")
    assert harness.source_digest(tmp_path) != first
    assert "(src digest " in harness.machine_info(None, None)["megaguards_source"]


def test_only_selects_groups_in_run_order_and_hoist_names_every_hoist_group():
    assert run.select_groups(None) == list(run.GROUPS)
    assert run.select_groups(["unbox,mm"]) == ["mm", "unbox"]
    assert run.select_groups(["hoist"]) == ["hoist-mm", "hoist-stencil", "hoist-saxpy"]
    with pytest.raises(SystemExit, match="unknown group 'nope'"):
        run.select_groups(["mm", "nope"])


def test_the_copies_of_a_loop_and_the_checks_each_holds():
    kernel = """int mg_kernel(void) {
      if (mg_fast && !mg_negative) { a[i] = b[i]; }
      else if (mg_fast) { a[mg_wrap(i)] = 1; }
      else { a[mg_index(i, n)] = mg_add_i64(x, y, &e) + mg_mul_i64(x, y, &e); }
    }"""
    copies = hoisting.loop_copies(kernel)
    assert [copy["condition"] for copy in copies] == [
        "mg_fast && !mg_negative", "mg_fast", "else (the checking copy)"]
    assert [(c["mg_index"], c["checked_int_ops"], c["mg_wrap"]) for c in copies] == [(0, 0, 0), (0, 0, 1), (1, 2, 0)]
    assert hoisting.loop_copies("int mg_kernel(void) { return 0; }") is None


def test_a_report_without_compiled_runs_says_why():
    def summary(site):
        return {"megaguards": {"report": {"loops": [site]}}}
    site = {"function": "matmul", "line": 3, "compiled_runs": 0, "fallback_runs": 2, "entries": 2,
            "reasons": ["unstable types"]}
    assert harness.compiled_problem(summary(site), "matmul") == "matmul() loop never ran compiled: unstable types"
    assert harness.compiled_problem(summary(site), "other") == "no loop site of other() in the megaguards report"
    site.update(compiled_runs=1, fallback_runs=1)
    assert harness.compiled_problem(summary(site), "matmul") is None
    assert "fell back 1 of 2 entries" in harness.compiled_problem(summary(site), "matmul", every_entry=True)


def test_the_tables_leave_out_pypy_when_absent_and_escape_bars():
    rows = [{"id": "1", "benchmark": "mm", "cpython": harness.seconds(2.5), "megaguards": harness.seconds(0.0025),
             "result": harness.ratio_text(1000.0), "target": ">= 50x", "checks": "0", "status": harness.status(True),
             "notes": "a | b"}]
    text = harness.render_text(rows, with_pypy=False)
    assert "PyPy" not in text and "2.500 s" in text and "2.50 ms" in text and "1000.0x" in text and "PASS" in text
    markdown = harness.render_markdown(rows, True, ["header"], ["a note"], {"cpus": 2})
    assert "| PyPy |" in markdown and "a \\| b" in markdown and "- cpus: 2" in markdown


@pytest.mark.parametrize("script", ["run.py", "calls.py"])
def test_the_scripts_start(script):
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "--ref" in result.stdout
