"""Lowering and type-stability analysis as pure functions over one loop."""
import ast

import pytest

from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.errors import Unsupported
from megaguards.frontend.lower import lower_loop
from megaguards.ir import nodes as ir
from megaguards.ir.types import Scalar


def lower(source: str) -> ir.Loop:
    return lower_loop(next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For)))


def typed(source: str, scalars: dict, arrays: dict | None = None, functions=None):
    loop = lower(source)
    return infer_types(loop.body, scalars, arrays or {}, functions or {"range": "range"})


def test_lowering_collects_arrays_ranks_and_writes():
    loop = lower("for i in range(n):\n    for j in range(m):\n        C[i][j] = A[i, j] + self.B[j][i]\n")
    assert {(a.name, a.rank, a.written) for a in loop.arrays} == {("A", 2, False), ("C", 2, True), ("self.B", 2, False)}
    assert set(loop.assigned) == {"i", "j"} and set(loop.functions) == {"range"}


@pytest.mark.parametrize("body, reason", [
    ("print(i)", "call to 'print'"),
    ("a.extend(i)", "call to 'a.extend'"),
    ("row = A[i]\n    row[0] = 1", "partial indexing"),
    ("x = [i]", "list display"),
    ("try:\n        pass\n    except E:\n        pass", "'try'"),
    ("self = other\n    self.x = i", "assignment to attribute 'self.x' of a name the loop rebinds"),
    ("a.total = i\n    s = b.total", "attribute 'a.total' is assigned and 'b.total' used too"),
    ("x = A[i:]", "slice"),
])
def test_unsupported_constructs_have_reasons_and_lines(body, reason):
    with pytest.raises(Unsupported) as caught:
        lower(f"for i in range(n):\n    {body}\n")
    assert reason in caught.value.reason and caught.value.line in (0, 2, 3)   # 0: the loop as a whole


def test_stable_loop_types():
    result = typed("for i in range(n):\n    s += a[i] * 0.5\n", {"n": Scalar.PY_INT, "s": Scalar.PY_FLOAT},
                   {"a": ArrayInfo(Scalar.PY_INT, 1, True)})
    assert result.variables == {"n": Scalar.PY_INT, "s": Scalar.PY_FLOAT, "i": Scalar.PY_INT}


def test_int_variable_becoming_float_holds_int_or_float():
    result = typed("for i in range(n):\n    s = s + 0.5\n", {"n": Scalar.PY_INT, "s": Scalar.PY_INT})
    assert result.variables["s"] is Scalar.PY_INT_OR_FLOAT   # its kernel value carries its class
    assert result.assigned_types["s"] == {Scalar.PY_FLOAT}


def test_bool_variable_becoming_float_is_unstable():
    with pytest.raises(Unsupported, match="changes type"):   # True prints as True: no joined type
        typed("for i in range(n):\n    s = s + 0.5\n", {"n": Scalar.PY_INT, "s": Scalar.PY_BOOL})


def test_python_float_accumulating_numpy_values_becomes_numpy_float64():
    result = typed("for i in range(n):\n    s += a[i]\n", {"n": Scalar.PY_INT, "s": Scalar.PY_FLOAT},
                   {"a": ArrayInfo(Scalar.NP_FLOAT64, 1, False)})
    assert result.assigned_types["s"] == {Scalar.NP_FLOAT64}


def test_storing_a_float_into_an_int_list_makes_it_int_or_float():
    result = typed("for i in range(n):\n    a[i] = 0.5\n", {"n": Scalar.PY_INT}, {"a": ArrayInfo(Scalar.PY_INT, 1, True)})
    assert result.arrays["a"].element is Scalar.PY_INT_OR_FLOAT   # each element keeps its own class


def test_storing_a_bool_into_an_int_list_is_rejected():
    with pytest.raises(Unsupported, match="element type"):
        typed("for i in range(n):\n    a[i] = n > 2\n", {"n": Scalar.PY_INT}, {"a": ArrayInfo(Scalar.PY_INT, 1, True)})


def test_float_index_is_rejected_like_python_type_error():
    with pytest.raises(Unsupported, match="index of type float"):
        typed("for i in range(n):\n    a[x] = 1\n", {"n": Scalar.PY_INT, "x": Scalar.PY_FLOAT},
              {"a": ArrayInfo(Scalar.PY_INT, 1, True)})


def test_numpy_promotion_rules_come_from_numpy():
    result = typed("for i in range(n):\n    b[i] = a[i] * 2.0\n", {"n": Scalar.PY_INT},
                   {"a": ArrayInfo(Scalar.NP_FLOAT32, 1, False), "b": ArrayInfo(Scalar.NP_FLOAT32, 1, True)})
    store = result.body.body[0]
    assert store.value.type is Scalar.NP_FLOAT32  # NEP 50: a Python float does not widen float32
