"""The IR printer (ir/printer.py): the text of a lowered and a typed loop, and printed
expressions that Python reads back with the meaning of the source they came from."""
from __future__ import annotations

import ast
import math

import pytest

from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.frontend.lower import lower_loop
from megaguards.ir import nodes as ir
from megaguards.ir.printer import format_expression, format_loop, format_typed
from megaguards.ir.types import Scalar

SOURCE = '''for i in range(1, len(a) - 1):
    t = a[i - 1] * 2.0 + 1.0
    if not t > 0.5 and -i % 2 == 0:
        b[i] = -t
    else:
        b[i] = math.sqrt(t if t < 9 else 9.0)
    k = 0
    while k < 3:
        k += 1
        if k == 2:
            break
'''


def lower(source: str) -> ir.Loop:
    return lower_loop(next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.For)))


def test_a_lowered_loop_reads_as_python_with_its_lines():
    assert format_loop(lower(SOURCE)).splitlines() == [
        "# arrays: a[1], b[1] written",
        "# scalars read: i, t, k",
        "# scalars assigned: i, t, k",
        "# functions: range, len, math.sqrt",
        "for i in range(1, len(a) - 1, 1):               # line 1",
        "    t = (a[i - 1] * 2.0) + 1.0                  # line 2",
        "    if (not (t > 0.5)) and (((-i) % 2) == 0):   # line 3",
        "        b[i] = -t                               # line 4",
        "    else:",
        "        b[i] = math.sqrt(t if (t < 9) else 9.0) # line 6",
        "    k = 0                                       # line 7",
        "    while k < 3:                                # line 8",
        "        k = k + 1                               # line 9",
        "        if k == 2:                              # line 10",
        "            break                               # line 11",
    ]


def test_a_typed_loop_shows_each_variable_s_type_and_each_statement_s():
    loop = lower(SOURCE)
    floats = ArrayInfo(Scalar.PY_FLOAT, 1, True)
    typed = infer_types(loop.body, {}, {"a": floats, "b": floats},
                        {"range": "range", "len": "len", "math.sqrt": "math.sqrt"})
    lines = format_typed(typed).splitlines()
    assert lines[:5] == ["# i: py_int (local) assigned py_int", "# k: py_int (local) assigned py_int",
                         "# t: py_float (local) assigned py_float", "# a: array of py_float, rank 1, list",
                         "# b: array of py_float, rank 1, list"]
    assert lines[6].endswith("# line 2: py_float") and lines[7].endswith("# line 3: py_bool")


@pytest.mark.parametrize("expression", [
    "a[i - 1] * 2.0 + 1.0", "-i % 3 - (i - 7) // 2", "2 ** -i + abs(i - 9)", "i < n <= 2 * i or not i",
    "(i if i > 2 else -i) * 3", "i and n - i and 7", "-(-i) ** 2", "math.floor(a[i] / 3) ^ i << 2 | 1",
    "~i & 5 > 2 != (n >= i)", "a[len(a) - 1 - i] % 1.5",
])
def test_printed_expressions_mean_what_their_source_means(expression):
    loop = lower(f"for i in range(n):\n    x = {expression}\n")
    (assign,) = loop.body.body
    printed = format_expression(assign.value)

    def outcome(text: str, i: int):
        try:
            return eval(text, {"i": i, "n": 4, "a": [0.5, 7.25, -3.0, 2.0, 9.5], "math": math, "abs": abs})
        except Exception as error:  # the same exception is the same meaning
            return type(error)
    for i in range(-3, 6):
        assert outcome(printed, i) == outcome(expression, i), printed
