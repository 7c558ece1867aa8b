"""benchmarks/selection_report.py: policies over the oracle of the same run, re-runs apart."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import selection_report  # noqa: E402


def write_run(path: Path, programs: dict) -> Path:
    path.write_text(json.dumps({"programs": {
        program: {"systems": {system: {"status": "ok", "median": seconds} for system, seconds in systems.items()}}
        for program, systems in programs.items()}}))
    return path


def test_ratios_geomean_and_worst_against_the_same_runs_oracle(tmp_path):
    run = write_run(tmp_path / "a.json", {
        "mm": {"megaguards-seq": 4.0, "megaguards-cpu": 1.0, "megaguards-gpu": 2.0, "megaguards-auto-fresh": 4.0},
        "nn": {"megaguards-seq": 1.0, "megaguards-cpu": 2.0, "megaguards-auto-fresh": 1.0}})
    lines, summary = selection_report.table("small", selection_report.medians([run]), {})
    text = "\n".join(lines)
    assert "| mm | cpu 1000 ms | 4.00x |" in text and "| nn | seq 1000 ms | 1.00x |" in text
    geomean, worst = summary["auto, empty store"]
    assert geomean == pytest.approx(2.0) and worst == pytest.approx(4.0)
    assert summary["always GPU"] == (pytest.approx(2.0), pytest.approx(2.0))   # only where it ran


def test_a_rerun_divides_by_the_main_runs_oracle_and_is_marked(tmp_path, capsys):
    main = write_run(tmp_path / "a.json", {"mm": {"megaguards-cpu": 2.0, "megaguards-auto-fresh": 6.0}})
    rerun = write_run(tmp_path / "b.json", {"mm": {"megaguards-auto-fresh": 3.0}})
    out = tmp_path / "r.md"
    assert selection_report.main(["--size", "large", str(main), "--rerun", "large", str(rerun),
                                  "--out", str(out)]) == 0
    text = out.read_text()
    assert "auto, empty store (re-run)‡" in text and "| mm | cpu 2000 ms | 3.00x | 1.00x | 1.50x |" in text
    assert "separate run" in text


def test_failed_runs_and_other_systems_are_left_out(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"programs": {"mm": {"systems": {
        "cpython": {"status": "ok", "median": 9.0},
        "megaguards-cpu": {"status": "ok", "median": 1.0},
        "megaguards-gpu": {"status": "checksum mismatch", "median": 0.1}}}}}))
    assert selection_report.medians([path]) == {"mm": {"megaguards-cpu": 1.0}}


def test_a_program_measured_in_two_runs_gets_the_median_of_all_their_runs(tmp_path):
    def run(path, seq_times, cpu_times):
        path.write_text(json.dumps({"programs": {"mm": {"systems": {
            "megaguards-seq": {"status": "ok", "median": sorted(seq_times)[1], "times": seq_times,
                               "min": min(seq_times)},
            "megaguards-cpu": {"status": "ok", "median": sorted(cpu_times)[1], "times": cpu_times,
                               "min": min(cpu_times)}}}}}))
        return path

    first = run(tmp_path / "a.json", [1.0, 5.0, 6.0], [2.0, 2.0, 9.0])
    second = run(tmp_path / "b.json", [1.0, 1.0, 7.0], [3.0, 3.0, 3.0])
    assert selection_report.medians([first]) == {"mm": {"megaguards-seq": 5.0, "megaguards-cpu": 2.0}}
    assert selection_report.medians([first, second]) == {"mm": {"megaguards-seq": 3.0, "megaguards-cpu": 3.0}}
    assert selection_report.medians([first, second], "min") == {"mm": {"megaguards-seq": 1.0, "megaguards-cpu": 2.0}}


def write_runs(path: Path, programs: dict) -> Path:
    """Like write_run, with every warm run: program -> system -> list of seconds."""
    path.write_text(json.dumps({"programs": {
        program: {"systems": {system: {"status": "ok", "median": sorted(times)[len(times) // 2], "times": times,
                                       "min": min(times)} for system, times in systems.items()}}
        for program, systems in programs.items()}}))
    return path


def test_the_bootstrap_interval_is_the_geomean_itself_without_noise_and_seeded(tmp_path):
    steady = write_runs(tmp_path / "a.json", {
        "mm": {"megaguards-seq": [2.0] * 5, "megaguards-cpu": [1.0] * 5, "megaguards-auto-fresh": [1.5] * 5},
        "nn": {"megaguards-seq": [1.0] * 5, "megaguards-auto-fresh": [1.2] * 5}})
    runs = selection_report.warm_runs([steady])
    low, high = selection_report.bootstrap_interval(runs, ["megaguards-auto-fresh"], resamples=50)[
        "megaguards-auto-fresh"]
    assert low == pytest.approx(1.8 ** 0.5) and high == pytest.approx(1.8 ** 0.5)   # (1.5 * 1.2) ** (1/2)
    noisy = write_runs(tmp_path / "b.json", {
        "mm": {"megaguards-seq": [1.0, 1.1, 1.9, 1.0, 1.2], "megaguards-auto-fresh": [1.0, 1.6, 1.1, 1.3, 2.0]}})
    first = selection_report.bootstrap_interval(selection_report.warm_runs([noisy]), ["megaguards-auto-fresh"])
    again = selection_report.bootstrap_interval(selection_report.warm_runs([noisy]), ["megaguards-auto-fresh"])
    assert first == again and first["megaguards-auto-fresh"][0] < first["megaguards-auto-fresh"][1]


def test_the_interval_row_is_printed_when_asked(tmp_path):
    run = write_runs(tmp_path / "a.json", {"mm": {"megaguards-cpu": [1.0, 1.0, 1.0],
                                                  "megaguards-auto-fresh": [2.0, 2.0, 2.0]}})
    out = tmp_path / "r.md"
    assert selection_report.main(["--size", "small", str(run), "--interval", "20", "--out", str(out)]) == 0
    assert "| **geomean, 95% interval** | | 2.00-2.00x | 1.00-1.00x |" in out.read_text()


def test_one_run_per_program_reads_one_run_instead_of_a_zero_width_interval(tmp_path):
    run = write_runs(tmp_path / "a.json", {"mm": {"megaguards-cpu": [1.0], "megaguards-auto-fresh": [2.0]},
                                           "nn": {"megaguards-seq": [1.0], "megaguards-auto-fresh": [1.5]}})
    out = tmp_path / "r.md"
    assert selection_report.main(["--size", "large", str(run), "--interval", "20", "--out", str(out)]) == 0
    assert "| **geomean, 95% interval** | | one run | one run | one run |" in out.read_text()
    twice = write_runs(tmp_path / "b.json", {"mm": {"megaguards-cpu": [1.0, 1.2], "megaguards-auto-fresh": [2.0]}})
    assert "megaguards-auto-fresh" in selection_report.bootstrap_interval(
        selection_report.warm_runs([twice]), ["megaguards-auto-fresh"], resamples=20)


def hand_written_geomean(values):
    """The formula the reports used before statistics.geometric_mean."""
    return math.exp(sum(map(math.log, values)) / len(values))


@pytest.mark.parametrize("values", [[2.0], [1.0, 4.0], [0.5, 3.0, 7.25, 1e-3], [1e150, 1e-150, 2.0, 9.0]])
def test_geometric_means_agree_with_the_hand_written_ones(values):
    """Each report's geometric mean, with what it did around the formula: the suite's is None
    without values, the trainer's skips values <= 0 and NaN and is NaN without any."""
    import suite_report
    from selector import train

    expected = hand_written_geomean(values)
    assert suite_report.geometric_mean(values) == pytest.approx(expected, rel=1e-12)
    assert suite_report.geometric_mean([]) is None
    assert train.geomean(values + [0.0, -1.0, math.nan]) == pytest.approx(expected, rel=1e-12)
    assert math.isnan(train.geomean([])) and math.isnan(train.geomean([0.0]))
    oracle = {"megaguards-seq": 1.0}   # each program's oracle time 1: the ratios are the values
    measured = {f"p{k}": {**oracle, "megaguards-auto": value} for k, value in enumerate(values)}
    _, summary = selection_report.table("small", measured, {})
    assert summary["auto, warm store"] == (pytest.approx(expected, rel=1e-12), max(values))
