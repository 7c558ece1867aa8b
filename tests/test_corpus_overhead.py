"""benchmarks/corpus_overhead.py (issue 25's target for the end-to-end corpus): a run on
two programs writes its table and JSON, compares each program's output under python and
megaguards, and reads from the report how many loops compiled.  No timing is asserted."""
from __future__ import annotations

import json

from benchmarks import corpus_overhead


def test_a_run_writes_the_table_with_outputs_compared(tmp_path):
    out = tmp_path / "results"
    corpus_overhead.main(["--only", "zero_trip,list_1d_int", "--repetitions", "2", "--statistic", "min",
                          "--out", str(out), "--quiet"])
    result = json.loads((out / "corpus-overhead.json").read_text())
    rows = {row["program"]: row for row in result["rows"]}
    assert set(rows) == {"zero_trip.py", "list_1d_int.py"}
    for row in rows.values():
        assert row["same_output"] and row["loops"] > 0 and row["cpython_s"] > 0 and row["megaguards_s"] > 0
        assert row["passed"] == (row["megaguards_s"] <= 1.1 * row["cpython_s"] + 0.030)
    markdown = (out / "corpus-overhead.md").read_text()
    assert "| zero_trip.py |" in markdown and "of 2 pass" in markdown and "2 interleaved repetitions, min;" in markdown
    assert result["statistic"] == "min"
