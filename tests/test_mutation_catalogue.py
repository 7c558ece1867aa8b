"""The mutation-testing catalogue (tests/mutation/) stays usable: every mutant still
applies to the source as it is, once, and names tests that exist.  The mutants
themselves run on demand (python tests/mutation/run.py), not here."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "mutation"))

from fresh import FRESH  # noqa: E402
from mutants import LISTED, Mutant  # noqa: E402

SOURCE = ROOT / "src" / "megaguards"


def test_names_are_unique_and_the_sets_have_their_sizes():
    names = [mutant.name for mutant in LISTED + FRESH]
    assert len(names) == len(set(names))
    assert (len(LISTED), len(FRESH)) == (10, 32)


@pytest.mark.parametrize("mutant", LISTED + FRESH, ids=lambda mutant: mutant.name)
def test_each_mutant_applies_once_and_changes_the_source(mutant: Mutant):
    text = (SOURCE / mutant.path).read_text()
    mutated = mutant.apply(text)          # raises unless the text occurs exactly once
    assert mutated != text
    if mutant.path.endswith(".py"):
        compile(mutated, mutant.path, "exec")
    for test in mutant.tests:
        assert (ROOT / test.split("::")[0]).is_file(), test


def test_a_mutant_whose_text_is_gone_is_reported():
    stale = Mutant("stale", "ir/nodes.py", "no such text in the file", "x", (), "")
    with pytest.raises(ValueError, match="occurs 0 times"):
        stale.apply((SOURCE / stale.path).read_text())
