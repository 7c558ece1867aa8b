"""The compile pipeline (runtime/pipeline.py): pure stages from a lowered loop and a
signature to frozen records, with reasons as values naming the stage that decided."""
from __future__ import annotations

import ast
from megaguards import record as records

import pytest

from megaguards import config
from megaguards.frontend.lower import lower_loop
from megaguards.guards.signature import Binder
from megaguards.runtime import pipeline


def analysed(source: str, **values):
    """The pipeline's result for the loop in ``source`` and live-ins ``values``."""
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For))
    loop = lower_loop(node)
    names = tuple(values)
    binder = Binder(loop, names)
    signature = pipeline.Signature.of(loop, binder, binder.bind(tuple(values.values())))
    return pipeline.analyse(loop, tuple(loop.assigned), signature, config.current())


def test_a_parallel_loop_goes_through_every_stage_into_frozen_records():
    result = analysed("for i in range(n):\n    b[i] = a[i] * 2.0\n", range=range, n=3, a=[1.0, 2.0, 3.0],
                      b=[0.0] * 3)
    assert isinstance(result, pipeline.Analysed)
    assert [stage for stage, _ in result.laps] == ["type inference", "bounds and layout", "cache key",
                                                    "parallel plan and render"]
    assert result.seconds == sum(seconds for _, seconds in result.laps) > 0
    assert result.plan.depth == 1 and "mg_kernel" in result.rendered.source
    assert result.signature.describe() == "n: py_int, a: list[1-D, py_float], b: list[1-D, py_float]"
    with pytest.raises(records.FrozenInstanceError):
        result.plan = None


def test_the_stage_that_decided_says_why_as_a_value():
    result = analysed("for i in range(1, n):\n    a[i] = a[i - 1] + 1\n", range=range, n=3, a=[1, 2, 3])
    assert [(reason.stage, str(reason)) for reason in result.reasons] == [
        ("parallel", "loop 'i' at line 1: carries a flow/anti dependence on 'a' (lines 2 and 2)")]


def test_aliased_arrays_are_one_group_in_the_signature():
    shared = [1, 2, 3]
    result = analysed("for i in range(1, n):\n    b[i] = a[i - 1]\n", range=range, n=3, a=shared, b=shared)
    assert result.signature.groups[result.typed.body.body[0].array] == result.signature.groups["a"]
    assert result.plan.depth == 0 and "dependence on" in str(result.reasons[0])


@pytest.mark.parametrize("source, values, stage, reason, location", [
    ("for i in range(n):\n    s = a[i] > 0\n    s = s / 2\n", {"n": 2, "a": [1, 2]}, "types",
     "line 3: 's' is assigned values of different types (bool or float)", (3, 4)),
    ("for i in range(n):\n    a[i, 0] = 1\n", {"n": 2, "a": [[1], [2]]}, "signature",
     "'a[i, j]' on a list (Python raises TypeError)", (0, 0)),
])
def test_a_rejected_signature_names_its_stage_and_location(source, values, stage, reason, location):
    result = analysed(source, range=range, **values)
    assert isinstance(result, pipeline.Rejected)
    assert (result.stage, result.location) == (stage, location)
    assert reason in result.reason
