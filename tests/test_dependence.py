"""Dependence analysis on the IR directly (analysis/dependence.py with islpy)."""
import ast

from megaguards.analysis.bounds import hoist_checks
from megaguards.analysis.dependence import carries_dependence
from megaguards.analysis.parallel import array_accesses
from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.frontend.lower import lower_loop
from megaguards.ir.types import Scalar


def analyse(source: str, arrays: dict, scalars=None):
    loop = lower_loop(next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For)))
    typed = infer_types(loop.body, scalars or {"n": Scalar.PY_INT}, arrays, {"range": "range"})
    facts = hoist_checks(typed)
    accesses = list(array_accesses(typed.body.body, (), {}))
    invariant = {n for n in typed.live_ins if n not in typed.assigned_types}
    writes = [a for a in accesses if a.write]
    return any(carries_dependence(typed.body, (), w, other, invariant, facts)
               for w in writes for other in accesses if other.group == w.group)


FLOAT_1D = ArrayInfo(Scalar.PY_FLOAT, 1, True, True)


def test_distance_one_flow_dependence():
    assert analyse("for i in range(1, n):\n    a[i] = a[i - 1] + 1.0\n", {"a": FLOAT_1D})


def test_disjoint_even_and_odd_elements_are_independent():
    assert not analyse("for i in range(n):\n    a[2 * i] = a[2 * i + 1] * 2.0\n", {"a": FLOAT_1D})


def test_reading_another_array_is_independent():
    assert not analyse("for i in range(1, n):\n    b[i] = a[i - 1]\n", {"a": FLOAT_1D, "b": FLOAT_1D})


def test_parametric_offset_is_assumed_dependent():
    # a[i + k] = a[i]: for k == 0 no dependence, for any other k one: parametric, so dependent.
    assert analyse("for i in range(n):\n    a[i + k] = a[i]\n", {"a": FLOAT_1D},
                   {"n": Scalar.PY_INT, "k": Scalar.PY_INT})


def test_wrapped_subscript_meets_the_last_element():
    # a[i - 1] at i = 0 is a[n - 1], which the last iteration writes: dependent.
    assert analyse("for i in range(len(a)):\n    a[i] = a[i - 1] * 0.5\n", {"a": FLOAT_1D})


def test_same_element_written_every_iteration_is_an_output_dependence():
    assert analyse("for i in range(n):\n    a[0] = i * 1.0\n", {"a": FLOAT_1D})


INT_1D = ArrayInfo(Scalar.PY_INT, 1, True, True)
FLOAT_2D = ArrayInfo(Scalar.PY_FLOAT, 2, True, True)


def test_non_affine_subscript_may_touch_any_element():
    # h[b[i]]: b may hold one index twice (a histogram), so two iterations may meet.
    assert analyse("for i in range(n):\n    h[b[i]] = h[b[i]] + 1\n", {"h": INT_1D, "b": INT_1D})
    assert analyse("for i in range(n):\n    a[b[i]] = a[i] * 2.0\n", {"a": FLOAT_1D, "b": INT_1D})


def test_non_affine_subscript_in_one_dimension_leaves_the_others_to_decide():
    # a[i][b[j]]: any column, but iterations of i touch different rows.
    assert not analyse("for i in range(n):\n    for j in range(n):\n        a[i][b[j]] = 1.0\n",
                       {"a": FLOAT_2D, "b": INT_1D})
    # a[b[j]][j]: any row, and every iteration of i the same columns.
    assert analyse("for i in range(n):\n    for j in range(n):\n        a[b[j]][j] = i * 1.0\n",
                   {"a": FLOAT_2D, "b": INT_1D})
