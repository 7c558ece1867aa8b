"""The suite runner (python -m benchmarks run): systems and peers, checksums, the
Markdown geomean row, the chart, derived times and the stage breakdown, on mm at small
size (a few seconds of subprocesses)."""
import contextlib
import importlib.util
import io
import json
import math
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks import suite_report, suite_runner

# A stand-in for a numba peer: the suite program itself, its checksum nudged within the
# peer's TOLERANCE; with --parallel a wrong checksum (the runner must call it a mismatch).
FAKE_PEER = textwrap.dedent("""
    import contextlib, io, runpy, sys
    TOLERANCE = 1e-9
    parallel = "--parallel" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--parallel"]
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        runpy.run_path({program!r}, run_name="__main__")
    values = dict(line.split("=", 1) for line in captured.getvalue().split())
    checksum = float(values["checksum"])
    print(f"checksum={{-1.0 if parallel else checksum * (1 + 1e-12)!r}}")
    print(f"time={{values['time']}}")
""")


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    peers = tmp_path_factory.mktemp("peers")
    (peers / "numba").mkdir()
    (peers / "numba" / "mm.py").write_text(FAKE_PEER.format(program=str(suite_runner.SUITE / "mm.py")))
    out = tmp_path_factory.mktemp("results")
    stderr = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(stderr):
        patch.setattr(suite_runner, "PEERS", peers)
        patch.setattr(suite_runner, "numba_version", lambda: "test")  # the fake peer needs no numba
        status = suite_runner.main(["--programs", "mm", "--size", "small", "--repeat", "1", "--stages",
                                    "--systems", "cpython,megaguards-seq,numba,numba-parallel,cuda-hand",
                                    "--out", str(out)])
    report = json.loads((out / "suite-small.json").read_text())
    return status, report, out, stderr.getvalue()


def test_a_completed_run_leaves_no_partial_results(small_run):
    _, report, out, _ = small_run
    assert not (out / "suite-small.partial.json").exists()
    assert list(report["programs"]) == ["mm"]


def test_a_stopped_run_leaves_the_programs_measured_so_far(tmp_path, monkeypatch):
    """The runner killed after its first program (a time limit): that program's results
    are on disk in the final JSON's form."""
    real = suite_runner.measure
    measured = []

    def measure_then_stop(jobs, *arguments):
        if measured:
            raise KeyboardInterrupt   # what a time limit's signal amounts to, here
        measured.append(jobs[0].program.stem)
        return real(jobs, *arguments)

    monkeypatch.setattr(suite_runner, "measure", measure_then_stop)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            pytest.raises(KeyboardInterrupt):
        suite_runner.main(["--programs", "mm,nbody", "--size", "small", "--repeat", "1", "--quiet",
                           "--systems", "cpython", "--out", str(tmp_path)])
    partial = json.loads((tmp_path / "suite-small.partial.json").read_text())
    assert list(partial["programs"]) == measured == ["mm"]
    assert partial["programs"]["mm"]["systems"]["cpython"]["status"] == "ok"
    assert not (tmp_path / "suite-small.json").exists()


def test_systems_checksums_and_speedups(small_run):
    status, report, _, _ = small_run
    systems = report["programs"]["mm"]["systems"]
    assert systems["cpython"]["status"] == "ok"
    seq = systems["megaguards-seq"]
    assert seq["status"] == "ok" and seq["checksum"] == systems["cpython"]["checksum"]
    assert seq["median_over"].startswith("warm") and seq["cold_time"] > 0 and len(seq["times"]) == 1
    numba = systems["numba"]
    assert numba["status"] == "ok" and numba["tolerance"] == 1e-9
    assert numba["checksum"] != systems["cpython"]["checksum"]  # equal within the peer's tolerance only
    assert systems["numba-parallel"]["status"] == "mismatch" and "-1.0" in systems["numba-parallel"]["note"]
    assert status == 1  # a mismatch fails the run
    assert report["programs"]["mm"]["checksum_reference"] == "cpython"
    assert suite_report.speedup(systems, "megaguards-seq") == pytest.approx(
        systems["cpython"]["median"] / seq["median"])


def test_whole_process_wall_times_beside_the_timed_regions(small_run):
    """Each process's wall time (what a user waits for: start-up and input building too) is
    kept beside time= and tabled; it cannot be shorter than the region it contains."""
    _, report, out, _ = small_run
    systems = report["programs"]["mm"]["systems"]
    for name in ("cpython", "megaguards-seq"):
        result = systems[name]
        assert len(result["walls"]) == len(result["times"]) and result["median_wall"] > result["median"]
    text = (out / "suite-small.md").read_text()
    table = text.split("Whole process, median wall seconds")[1].splitlines()
    header = [cell.strip() for cell in table[2].strip("|").split("|")]
    row = dict(zip(header, [cell.strip() for cell in table[4].strip("|").split("|")]))
    assert row["megaguards-seq"] == f"{systems['megaguards-seq']['median_wall']:.3f}"
    assert row["program"] == "mm" and "numba-parallel" not in header   # a mismatch has no times


def test_missing_peer_or_device_is_skipped_with_a_note(small_run, tmp_path, monkeypatch):
    _, report, _, _ = small_run
    cuda = report["programs"]["mm"]["systems"]["cuda-hand"]
    assert cuda["status"] == "skipped"
    assert cuda["note"] in ("no CUDA device (CuPy) here", "no cuda peer for mm")
    monkeypatch.setattr(suite_runner, "PEERS", tmp_path)
    monkeypatch.setattr(suite_runner, "numba_version", lambda: "test")
    job = suite_runner.make_job(suite_runner.SUITE / "mandelbrot.py", "numba-parallel", "small", tmp_path)
    assert job.skipped == "no numba peer for mandelbrot" and job.runs(3) == 0
    monkeypatch.setattr(suite_runner, "numba_version", lambda: None)
    job = suite_runner.make_job(suite_runner.SUITE / "mm.py", "numba", "small", tmp_path)
    assert job.skipped == "numba is not installed"


def test_markdown_geomean_row_and_chart(small_run):
    _, report, out, _ = small_run
    text = (out / "suite-small.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| **geomean**"))
    systems = report["programs"]["mm"]["systems"]
    expected = systems["cpython"]["median"] / systems["megaguards-seq"]["median"]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    header = [cell.strip() for cell in text.splitlines()[text.splitlines().index(
        next(line for line in text.splitlines() if line.startswith("| program")))].strip("|").split("|")]
    by_system = dict(zip(header, cells))
    assert by_system["megaguards-seq"] == suite_report.times(expected)
    assert by_system["numba-parallel"] == "-"  # a mismatch is no number, not even in the mean
    assert "no numba peer" not in text and "cuda-hand: skipped" in text
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert report["chart"].startswith("no chart")
    else:
        assert report["chart"] == "suite-small.png"
        assert (out / "suite-small.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stage_breakdown_cold_and_warm(small_run):
    _, report, out, _ = small_run
    stages = report["programs"]["mm"]["systems"]["megaguards-seq"]["stages_ms"]
    assert set(stages) == {"cold", "warm"}
    assert stages["cold"]["compile"] > 0 and stages["warm"]["compile"] < stages["cold"]["compile"]
    assert stages["warm"]["execute"] > 0 and stages["warm"]["transfer"] == 0
    # make_input's and main's list comprehensions run before timer.start(): booked apart.
    assert stages["warm"]["outside_region"]["analysis"] > 0
    assert stages["cold"]["outside_region"]["execute"] < stages["cold"]["execute"]
    table = (out / "suite-small-stages.md").read_text()
    overview, per_program = table.split("## Per program")
    systems_row = next(line for line in overview.splitlines() if line.startswith("| mm | megaguards-seq |"))
    region = 1000 * report["programs"]["mm"]["systems"]["megaguards-seq"]["times"][0]
    assert f"| {region:.1f} |" in systems_row and f"{100 * stages['warm']['execute'] / region:.0f}%" in systems_row
    assert "### mm" in per_program and "| ms | megaguards-seq cold | megaguards-seq warm |" in per_program
    compile_row = next(line for line in per_program.splitlines() if line.startswith("| compile |"))
    assert compile_row == f"| compile | {stages['cold']['compile']:.1f} | {stages['warm']['compile']:.1f} |"
    assert "| transfer |" not in per_program  # no GPU run: the row is left out
    assert "numba" not in table  # peers have no loop report


def test_timed_region_follows_calls_from_the_timer_span():
    region = suite_runner.timed_region(suite_runner.SUITE / "bfs.py")
    assert region.functions == {"search", "expand", "advance"}  # not make_input, not checksum
    blackscholes = suite_runner.timed_region(suite_runner.SUITE / "blackscholes.py")
    start, stop = blackscholes.lines
    file = str(suite_runner.SUITE / "blackscholes.py")
    assert blackscholes.holds({"file": file, "function": "main", "line": start + 1})  # the repeat loop
    assert not blackscholes.holds({"file": file, "function": "main", "line": start - 2})
    assert not blackscholes.holds({"file": file, "function": "make_input", "line": 10})
    assert blackscholes.holds({"file": file, "function": "price", "line": 10})


def test_progress_counts_every_run(small_run):
    _, _, _, stderr = small_run
    lines = [line for line in stderr.splitlines() if line.startswith("[")]
    # cpython 1, megaguards-seq cold + 1 warm, numba 1, numba-parallel 1, cuda-hand skipped.
    assert [line.split("]")[0] for line in lines] == [f"[{k}/5" for k in range(1, 6)]
    assert "mm [small] megaguards-seq run 1/2 (cold)" in lines[1]


def test_derived_times_are_scaled_by_the_work_ratio(tmp_path):
    with contextlib.redirect_stdout(io.StringIO()):
        status = suite_runner.main(["--programs", "mm", "--size", "medium", "--derive-from", "small",
                                    "--repeat", "1", "--systems", "cpython,megaguards-seq", "--quiet",
                                    "--out", str(tmp_path)])
    assert status == 0
    report = json.loads((tmp_path / "suite-medium.json").read_text())
    entry = report["programs"]["mm"]
    cpython, seq = entry["systems"]["cpython"], entry["systems"]["megaguards-seq"]
    spec = importlib.util.spec_from_file_location("mm_for_test", suite_runner.SUITE / "mm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ratio = module.work(module.SIZES["medium"]) / module.work(module.SIZES["small"])
    assert cpython["derived_from"] == "small" and cpython["size"] == "small"
    assert cpython["work_ratio"] == pytest.approx(ratio) and ratio > 10
    assert cpython["median"] == pytest.approx(cpython["measured_times"][0] * ratio)
    assert "checksum" not in cpython  # a small-size checksum says nothing at medium
    assert seq["size"] == "medium" and "derived_from" not in seq
    assert entry["checksum_reference"] == "megaguards-seq"
    text = (tmp_path / "suite-medium.md").read_text()
    assert f"{cpython['median']:.4g} s†" in text and "compared with megaguards-seq's" in text
    wall_rows = text.split("Whole process, median wall seconds")[1].splitlines()
    assert wall_rows[2] == "| program | megaguards-seq |"   # CPython's processes ran at another size
    assert math.isclose(suite_report.speedup(entry["systems"], "megaguards-seq"), cpython["median"] / seq["median"])


def test_derived_mode_needs_another_size():
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        suite_runner.main(["--size", "small", "--derive-from", "small"])


@pytest.mark.skipif(not suite_runner.cuda_available(), reason="no CUDA device (CuPy + GPU)")
def test_gpu_stages_book_transfers(tmp_path):
    with contextlib.redirect_stdout(io.StringIO()):
        status = suite_runner.main(["--programs", "mm", "--size", "small", "--repeat", "1", "--stages", "--quiet",
                                    "--systems", "cpython,megaguards-gpu", "--out", str(tmp_path)])
    assert status == 0
    stages = json.loads((tmp_path / "suite-small.json").read_text())["programs"]["mm"]["systems"][
        "megaguards-gpu"]["stages_ms"]
    for phase in ("cold", "warm"):
        assert stages[phase]["transfer"] > 0 and stages[phase]["execute"] > 0
        assert stages[phase]["bytes_to_device"] >= 2 * 96 * 96 * 8  # a and b, float64


def test_pypy_without_numpy_skips_numpy_programs_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(suite_runner.shutil, "which", lambda name: "/opt/pypy/bin/pypy3")
    monkeypatch.setattr(suite_runner, "pypy_has_numpy", lambda pypy: False)
    job = suite_runner.make_job(suite_runner.SUITE / "mm_numpy.py", "pypy", "small", tmp_path)
    assert job.skipped.startswith("not supported by pypy3") and job.runs(3) == 0
    job = suite_runner.make_job(suite_runner.SUITE / "mm.py", "pypy", "small", tmp_path)
    assert job.skipped is None and job.command[0] == "/opt/pypy/bin/pypy3"
    monkeypatch.setattr(suite_runner, "pypy_has_numpy", lambda pypy: True)
    job = suite_runner.make_job(suite_runner.SUITE / "mm_numpy.py", "pypy", "small", tmp_path)
    assert job.skipped is None


@pytest.mark.skipif(suite_runner.shutil.which("pypy3") is None, reason="pypy3 is not installed")
def test_pypy_numpy_program_is_no_failure(tmp_path):
    if suite_runner.pypy_has_numpy(suite_runner.shutil.which("pypy3")):
        pytest.skip("this pypy3 has NumPy")
    with contextlib.redirect_stdout(io.StringIO()):
        status = suite_runner.main(["--programs", "mm_numpy", "--size", "small", "--repeat", "1", "--quiet",
                                    "--systems", "cpython,pypy", "--out", str(tmp_path)])
    assert status == 0  # a program pypy cannot import is not a failed run
    pypy = json.loads((tmp_path / "suite-small.json").read_text())["programs"]["mm_numpy"]["systems"]["pypy"]
    assert pypy["status"] == "skipped" and "imports numpy" in pypy["note"]
    assert "mm_numpy / pypy: skipped: not supported by pypy3" in (tmp_path / "suite-small.md").read_text()


def test_ref_benchmarks_the_source_of_a_commit(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with contextlib.redirect_stdout(io.StringIO()):
        status = suite_runner.main(["--programs", "mm", "--size", "small", "--repeat", "1", "--quiet",
                                    "--systems", "cpython,megaguards-seq", "--ref", "HEAD", "--out", str(tmp_path)])
    assert status == 0
    report = json.loads((tmp_path / "suite-small.json").read_text())
    assert "(--ref HEAD)" in report["machine"]["megaguards_source"]
    assert report["programs"]["mm"]["systems"]["megaguards-seq"]["status"] == "ok"
    assert "PYTHONPATH" not in suite_runner.os.environ  # the snapshot's path is taken back


def test_geomean_over_the_programs_every_system_ran():
    def ok(median):
        return {"status": "ok", "median": median}

    report = {"size": "medium", "repeat": 1, "date": "today", "systems": ["cpython", "pypy", "megaguards-seq"],
              "machine": {"cpu_model": "test", "cpus_usable": 2, "python": "3", "megaguards_source": "test"},
              "programs": {"mm": {"systems": {"cpython": ok(8.0), "pypy": ok(4.0), "megaguards-seq": ok(1.0)}},
                           "mm_numpy": {"systems": {"cpython": ok(9.0), "megaguards-seq": ok(0.01),
                                                    "pypy": {"status": "skipped", "note": "no numpy"}}}}}
    assert suite_report.common_programs(report) == ["mm"]
    lines = suite_report.markdown(report).splitlines()
    assert "| **geomean** | | 2.0x (1 of 2) | 84.9x |" in lines  # sqrt(8 * 900)
    assert "| **geomean, the 1 of 2 programs every system ran** | | 2.0x | 8.0x |" in lines


@pytest.mark.parametrize("gpu", [False, True])
def test_auto_systems_compile_every_device_s_kernel_before_the_timed_runs(tmp_path, monkeypatch, gpu):
    """auto's choice depends on timings, so its cold run may leave a device's kernel
    uncompiled for a warm run to compile inside its time: untimed runs on each device follow
    the cold run, and their times are not kept."""
    monkeypatch.setattr(suite_runner, "cuda_available", lambda: gpu)
    calls = []

    def fake_run_once(job, report_path):
        calls.append(job.environment.get("MEGAGUARDS_SELECT"))
        return {"checksum": "1", "time": float(len(calls))}

    monkeypatch.setattr(suite_runner, "run_once", fake_run_once)
    program = suite_runner.SUITE / "mm.py"
    job = suite_runner.make_job(program, "megaguards-auto-fresh", "small", tmp_path)
    runs = suite_runner.Runs(job, 2, False, tmp_path)
    for attempt in range(3):
        runs.run(attempt, lambda *arguments: None)
    primes = ["cpu", "cuda"] if gpu else ["cpu"]
    assert calls == [None, *primes, None, None]
    result = runs.result()
    assert result["cold_time"] == 1.0 and result["times"] == [2.0 + len(primes), 3.0 + len(primes)]
    seq = suite_runner.make_job(program, "megaguards-seq", "small", tmp_path)
    assert seq.primes == ()


def test_peak_mode_times_the_last_of_several_calls_in_one_process(tmp_path):
    """--peak: SUITE_CALLS reaches every system; each process prints a checksum and a time
    per call (the same checksum: fresh inputs each time), the last time counts; the results
    are suite-<size>-peak.*."""
    import os
    import subprocess
    import sys

    program = suite_runner.SUITE / "mm.py"
    environment = dict(os.environ, SUITE_CALLS="2")
    printed = subprocess.run([sys.executable, str(program), "--size", "small"], capture_output=True, text=True,
                             env=environment, timeout=120).stdout.splitlines()
    assert [line.split("=")[0] for line in printed] == ["checksum", "time"] * 2 and printed[0] == printed[2]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = suite_runner.main(["--programs", "mm", "--size", "small", "--repeat", "1", "--peak", "2",
                                    "--systems", "cpython", "--out", str(tmp_path)])
    report = json.loads((tmp_path / "suite-small-peak.json").read_text())
    assert status == 0 and report["peak"] == 2 and not (tmp_path / "suite-small.json").exists()
    assert "peak mode" in (tmp_path / "suite-small-peak.md").read_text()
    with pytest.raises(SystemExit):
        suite_runner.main(["--peak", "1", "--out", str(tmp_path)])


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def progress_on_a_terminal(quiet: bool, systems=("cpython", "megaguards-seq", "numba")) -> str:
    """What Progress writes on a terminal for one run of each system (then closed)."""
    err = Terminal()
    with contextlib.redirect_stderr(err):
        progress = suite_runner.Progress(len(systems), quiet)
        for system in systems:
            progress(SimpleNamespace(program=Path("mm.py"), size="small", derived_from=None, system=system), 0, 1,
                     None)
        progress.close()
    return err.getvalue()


def test_progress_is_a_bar_of_the_runs_with_the_eta_on_a_terminal():
    pytest.importorskip("tqdm")
    text = progress_on_a_terminal(False)
    assert "0/3 [00:00<?" in text and "3/3 [" in text.splitlines()[-1]   # the total; the time left (?: unknown yet)
    assert "mm [small] numba run 1/1" in text and "[1/3]" not in text


def test_progress_lines_without_tqdm_and_nothing_when_quiet(monkeypatch):
    assert progress_on_a_terminal(True) == ""
    monkeypatch.setitem(sys.modules, "tqdm", None)   # not installed
    assert progress_on_a_terminal(False).splitlines() == [
        "[1/3] mm [small] cpython run 1/1", "[2/3] mm [small] megaguards-seq run 1/1", "[3/3] mm [small] numba run 1/1"]
