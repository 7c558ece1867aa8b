"""The learned device selector (Wang, Grewe and O'Boyle): a small decision tree over a
kernel's features, instantiated with the entry's sizes, trained offline on the H100
machine (``benchmarks/selector/train.py``) and shipped as ``data/selector.json``.
Evaluated here without scikit-learn: a walk from the root to a leaf.

The tree's inputs are ``Features.vector()``.  The calibrated cost model keeps a veto on
the GPU (``gate``): the tree's cuda stands only where the model predicts the GPU at
least ``CUDA_MARGIN`` times faster than the better CPU device; and on all cores for a
kernel that forks many parallel regions per entry, which the tree's inputs do not show.
Trees that also read the model's predicted ratios fitted the suite better but chose worse
on programs left out of their training (leave-one-program-out 1.34x the oracle's time,
against 1.11x for features and the gates at depth 5: benchmarks/results/selector-h100.md).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..record import record

MODEL = Path(__file__).resolve().parent.parent / "data" / "selector.json"


@record
class Tree:
    feature: tuple      # per node: input index, -1 for a leaf
    threshold: tuple
    left: tuple
    right: tuple
    label: tuple        # per node: the device chosen at that leaf
    inputs: tuple       # names of the inputs, for explain
    trained_on: str

    def choose(self, values) -> str:
        node = 0
        while self.feature[node] >= 0:
            node = self.left[node] if values[self.feature[node]] <= self.threshold[node] else self.right[node]
        return self.label[node]


CUDA_MARGIN = 2.0   # the GPU's predicted speed-up over the better CPU device that lets the tree's cuda stand
# The model's GPU speed-up over the tree's CPU device from which the GPU runs instead: the
# tree learned from few GPU shapes (nbody's time-step region, large, 16384 bodies: the tree's
# cpu predicted 6.3 s, the GPU 36 ms, 173x; it ran 1.1 s on 16 cores, the whole process
# 0.5 s slower than on the GPU).  The model's GPU can be far too hopeful: lavaMD, medium,
# in the training data (benchmarks/selector/data, the first two sets) predicted 23x faster
# on the GPU and ran 9x slower there; the mark stays well above that.
GPU_CLEAR_WIN = 50.0
# From this many parallel regions forked per entry (a parallel loop inside a sequential
# one) the model decides between the tree's cpu and seq: the tree has no input for the
# forks, the model a term per fork (lud, medium: 256 forks, 16 cores 2.4x slower than one).
FORK_GATE_REGIONS = 16


def inputs(features) -> tuple:
    """The tree's input vector."""
    return tuple(features.vector())


def gate(choice: str, predicted: dict, regions: int = 1) -> str:
    """The tree's choice, unless the cost model vetoes it:

    - cuda where the model predicts the GPU less than CUDA_MARGIN times faster than the
      better CPU device: then that CPU device.  The tree learns from few GPU shapes; the
      model's GPU terms (launch, copies, per-thread work) come from calibration.
    - cpu for a kernel forking ``regions`` >= FORK_GATE_REGIONS parallel regions per entry
      where the model predicts one core faster: then seq.
    - seq or cpu where the model predicts the GPU GPU_CLEAR_WIN times faster than every
      CPU device: then cuda."""
    host = {device: predicted[device] for device in ("seq", "cpu") if device in predicted}
    if choice in host and "cuda" in predicted and predicted["cuda"] * GPU_CLEAR_WIN <= min(host.values()):
        return "cuda"
    if choice == "cpu" and regions >= FORK_GATE_REGIONS and len(host) == 2 and host["seq"] < host["cpu"]:
        return "seq"
    if choice != "cuda" or "cuda" not in predicted or not host:
        return choice
    best = min(host, key=host.get)
    return choice if predicted["cuda"] * CUDA_MARGIN <= host[best] else best


def decide(tree: Tree | None, features, predicted: dict, available) -> tuple[str, str]:
    """(device, how) for one entry with these ``features``: the tree's choice, gated; the
    cost model's fastest device where the tree is missing or chose a device this kernel
    lacks (a kernel without a GPU variant); else the widest device.  ``how``: "tree",
    "gpu gate" or "fork gate" (the tree's cuda or cpu vetoed), "gpu win" (the tree's seq or
    cpu overruled), "model" or "widest".
    ``predicted`` holds the available devices only.  The runtime and the offline
    evaluation (benchmarks/selector/train.py) both choose through here."""
    choice = tree.choose(inputs(features)) if tree is not None else None
    if choice in available:
        gated = gate(choice, predicted, features.parallel_entries)
        if gated == choice:
            return choice, "tree"
        return gated, ("gpu gate" if choice == "cuda" else "gpu win" if gated == "cuda" else "fork gate")
    if predicted:
        return min(predicted, key=predicted.get), "model"
    return available[-1], "widest"


@lru_cache(maxsize=4)
def load(path: str = str(MODEL)) -> Tree | None:
    try:
        data = json.loads(Path(path).read_text())
        return Tree(tuple(data["feature"]), tuple(data["threshold"]), tuple(data["left"]), tuple(data["right"]),
                    tuple(data["label"]), tuple(data["inputs"]), data.get("trained_on", "?"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
