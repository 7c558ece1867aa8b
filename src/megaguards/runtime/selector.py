"""The learned device selector (Wang, Grewe and O'Boyle): a small decision tree over a
kernel's features, instantiated with the entry's sizes, trained offline on the H100
machine (``benchmarks/selector/train.py``) and shipped as ``data/selector.json``.
Evaluated here without scikit-learn: a walk from the root to a leaf.

The tree's inputs are ``Features.vector()`` followed by the cost model's predicted
log2 ratios seq/cpu and cpu/gpu, so the tree refines the calibrated model on the
shapes it was trained on, and follows it elsewhere.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MODEL = Path(__file__).resolve().parent.parent / "data" / "selector.json"


@dataclass(frozen=True)
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


def inputs(features, predicted: dict) -> tuple:
    """The tree's input vector: the features, then the model's predicted log ratios."""
    def ratio(first: str, second: str) -> float:
        if first not in predicted or second not in predicted:
            return 0.0
        return math.log2(max(predicted[first], 1e-9) / max(predicted[second], 1e-9))

    return tuple(features.vector()) + (ratio("seq", "cpu"), ratio("cpu", "cuda"))


@lru_cache(maxsize=4)
def load(path: str = str(MODEL)) -> Tree | None:
    try:
        data = json.loads(Path(path).read_text())
        return Tree(tuple(data["feature"]), tuple(data["threshold"]), tuple(data["left"]), tuple(data["right"]),
                    tuple(data["label"]), tuple(data["inputs"]), data.get("trained_on", "?"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
