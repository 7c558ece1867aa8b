"""The suite runner (python -m benchmarks run): systems and peers, checksums, the
Markdown geomean row, the chart, derived times and the stage breakdown, on mm at small
size (a few seconds of subprocesses)."""
import contextlib
import importlib.util
import io
import json
import math
import textwrap

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
    assert by_system["megaguards-seq"] == f"{expected:.1f}x"
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
    table = (out / "suite-small-stages.md").read_text()
    assert "| mm | megaguards-seq | cold |" in table and "| mm | megaguards-seq | warm |" in table
    assert "numba" not in table.split("| time= |")[1]  # peers have no loop report


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
