"""Train the learned device selector offline and ship it as src/megaguards/data/selector.json.

    pip install scikit-learn     # for training only; megaguards evaluates the tree itself
    python benchmarks/selector/train.py --data DIR [--data DIR2 ...] [--calibration calibration.json]

``DIR`` holds what ``collect.py`` wrote on the target machine (``<program>-<size>-<device>.jsonl``)
and ``calibration.json`` what ``megaguards calibrate`` stored there.  Each kernel and size
bucket seen on at least two devices is one example: its features and, as label, the
device with the lowest median time.  The cost of a wrong choice is the sample weight:
log2 of the chosen device's time over the best one's, so close calls matter little.  The
calibrated cost model's predictions (recomputed with the calibration given) are not
inputs: they are the gates that the runtime applies after the tree (``selector.gate``:
on cuda, and on cpu for kernels forking many parallel regions), and the evaluation
applies them too.

Reports leave-one-program-out accuracy (the tree trained without a program, tested on
it, then gated) and the time lost against the oracle, then writes the tree trained on
everything.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from megaguards.analysis.features import FEATURE_NAMES, Features, KINDS  # noqa: E402
from megaguards.runtime import costmodel, selector  # noqa: E402

DEVICES = ("seq", "cpu", "cuda")
INPUTS = FEATURE_NAMES


def features_of(record: dict) -> Features:
    found = record["features"]
    return Features(found["work"], {kind: found[f"ops_{kind}"] for kind in KINDS}, found["parallel_trips"],
                    found["parallel_entries"], found["band_trips"], found["launches"], found["inner_trips"],
                    found["bytes"], found["list_elements"], found["coalesced"])


def examples(directories: list[Path], calibration: costmodel.Calibration, threads: int) -> list[dict]:
    """One example per (program, size, kernel, bucket) measured on two devices or more."""
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    found: dict = {}
    for directory in directories:
        for path in sorted(directory.glob("*.jsonl")):
            if path.name == "times.jsonl":
                continue
            program, size, device = path.stem.rsplit("-", 2)
            for line in path.read_text().splitlines():
                record = json.loads(line)
                key = (program, size, record["kernel"], record["bucket"])
                times[key][record["device"]].append(record["seconds"])
                found.setdefault(key, record)
    result = []
    for key, by_device in times.items():
        medians = {device: statistics.median(values) for device, values in by_device.items()}
        if len(medians) < 2:
            continue
        features = features_of(found[key])
        # A device some entry ran on: a forced device that could not run (a GPU variant that
        # did not build) ran the entry elsewhere, as it would under auto.
        available = tuple(device for device in DEVICES if device in medians)
        predicted = {d: t for d, t in calibration.predict(features, threads).items() if d in available}
        best = min(medians, key=medians.get)
        result.append({"program": key[0], "size": key[1], "inputs": selector.inputs(features), "label": best,
                       "medians": medians, "predicted": predicted, "available": available, "features": features})
    return result


def lost(example: dict, device: str) -> float:
    """The chosen device's time over the best one's (1.0: the oracle's choice)."""
    medians = example["medians"]
    return medians.get(device, max(medians.values())) / medians[example["label"]]


def train(rows: list[dict], depth: int):
    from sklearn.tree import DecisionTreeClassifier

    weights = [max(0.05, math.log2(max(r["medians"].values()) / r["medians"][r["label"]])) for r in rows]
    tree = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=2, random_state=0)
    tree.fit([r["inputs"] for r in rows], [r["label"] for r in rows], sample_weight=weights)
    return tree


def choose(tree, row: dict) -> str:
    """What the runtime would run for this example with this (exported) tree."""
    return selector.decide(tree, row["features"], row["predicted"], row["available"])[0]


def shipped(tree, trained_on: str = "") -> selector.Tree:
    data = export(tree, trained_on)
    return selector.Tree(*(tuple(data[key]) for key in ("feature", "threshold", "left", "right", "label", "inputs")),
                         trained_on)


def export(tree, trained_on: str) -> dict:
    inner = tree.tree_
    labels = [str(tree.classes_[max(range(len(v[0])), key=lambda k: v[0][k])]) for v in inner.value]
    return {"feature": [int(f) if f >= 0 else -1 for f in inner.feature],
            "threshold": [float(t) for t in inner.threshold],
            "left": [int(c) for c in inner.children_left], "right": [int(c) for c in inner.children_right],
            "label": labels, "inputs": list(INPUTS), "trained_on": trained_on}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--calibration", type=Path, help="default: calibration.json in the first --data folder")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--machine", default="the H100 machine (16 cores, one H100)")
    parser.add_argument("--out", type=Path, default=ROOT / "src" / "megaguards" / "data" / "selector.json")
    parser.add_argument("--report", type=Path, help="write the accuracy report (Markdown) here")
    options = parser.parse_args()
    calibration_path = options.calibration or options.data[0] / "calibration.json"
    data = json.loads(calibration_path.read_text())
    calibration = costmodel.Calibration(data["constants"], data.get("hardware", {}), data.get("date", "?"), "measured")
    threads = data.get("hardware", {}).get("threads", 16)
    rows = examples(options.data, calibration, threads)
    programs = sorted({r["program"] for r in rows})
    lines = ["# Learned device selector: leave-one-program-out evaluation", "",
             f"- data: {', '.join(str(d) for d in options.data)}; {len(rows)} examples (kernel x size) from "
             f"{len(programs)} programs; {options.machine}",
             f"- decision tree over the features, depth {options.depth}, weighted by the time a wrong choice "
             f"loses; its cuda gated by the cost model (at least {selector.CUDA_MARGIN:g}x faster than the better CPU "
             f"device predicted), and its cpu where the kernel forks {selector.FORK_GATE_REGIONS} parallel regions "
             f"an entry or more and the model predicts one core faster", "",
             "| left-out program | examples | tree right | model right | tree time / oracle | model time / oracle |",
             "|---|---|---|---|---|---|"]
    totals = collections.Counter()
    tree_ratios, model_ratios = [], []
    tested = [r for r in rows if r["program"] != "calibration"]
    for program in [p for p in programs if p != "calibration"]:  # the generated shapes always train
        train_rows = [r for r in rows if r["program"] != program]
        test_rows = [r for r in rows if r["program"] == program]
        tree = shipped(train(train_rows, options.depth))
        right = model_right = 0
        ratio, model_ratio = [], []
        for row in test_rows:
            choice = choose(tree, row)
            modelled = choose(None, row)
            right += choice == row["label"]
            model_right += modelled == row["label"]
            ratio.append(lost(row, choice))
            model_ratio.append(lost(row, modelled))
        totals.update(examples=len(test_rows), right=right, model_right=model_right)
        tree_ratios += ratio
        model_ratios += model_ratio
        lines.append(f"| {program} | {len(test_rows)} | {right} | {model_right} | {geomean(ratio):.2f}x | "
                     f"{geomean(model_ratio):.2f}x |")
    lines += ["", f"Overall: tree {totals['right']}/{totals['examples']} right "
              f"({totals['right'] / max(1, totals['examples']):.0%}), geometric-mean time {geomean(tree_ratios):.2f}x "
              f"the oracle's; cost model alone {totals['model_right']}/{totals['examples']} "
              f"({totals['model_right'] / max(1, totals['examples']):.0%}), {geomean(model_ratios):.2f}x.", "",
              "Fixed devices on the same examples (a device a kernel cannot use counts as its slowest): " +
              ", ".join(f"always {device} {geomean([lost(r, device) for r in tested]):.2f}x" for device in DEVICES)]
    report = "\n".join(lines) + "\n"
    print(report)
    if options.report:
        options.report.write_text(report)
    tree = train(rows, options.depth)
    stamp = datetime.date.today().isoformat()
    options.out.write_text(json.dumps(export(tree, f"{options.machine}, {stamp}"), indent=1) + "\n")
    print(f"wrote {options.out}")
    return 0


def geomean(values) -> float:
    """Of the positive values (nan: none)."""
    values = [v for v in values if v > 0]
    return statistics.geometric_mean(values) if values else float("nan")


if __name__ == "__main__":
    sys.exit(main())
