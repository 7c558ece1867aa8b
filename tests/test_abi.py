"""The kernel ABI is written once (codegen/layout.py): marshal.c takes its codes as -D
flags and refuses to compile without them; the marshalling plan is built by one function
that every kernel (one core, all cores, the GPU's prologue) shares."""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import numpy
import pytest

import megaguards
from megaguards import config
from megaguards.codegen import layout as abi
from megaguards.frontend.lower import lower_loop
from megaguards.guards.signature import Binder
from megaguards.runtime import pipeline
from megaguards.runtime.compiler import find_compiler, python_include_flags

MARSHAL_C = Path(megaguards.__file__).parent / "runtime" / "marshal.c"


def test_marshal_c_has_no_codes_of_its_own():
    source = MARSHAL_C.read_text()
    used = set(re.findall(r"\bMG_(?:KIND|BANK|GUARD)_[A-Z_]+|\bMG_(?:ARRAY_FIELDS|PLAN_HEADER|GUARD|PYERROR)\b", source))
    defined = {flag[2:].split("=")[0] for flag in abi.abi_defines()}
    assert used and used <= defined, used - defined
    # no literal code left beside the names: the enums are built from the flags only
    assert not re.search(r"KIND_\w+ = \d|BANK_\w+ = \d|MG_GUARD = -|entry \+= 5", source)
    assert {f"MG_KIND_{kind.name}" for kind in abi.ArrayKind} <= used
    assert {f"MG_BANK_{bank.name}" for bank in abi.ScalarBank} <= used


def test_marshal_c_refuses_to_compile_without_the_layouts_codes(tmp_path):
    options = config.current()
    compiler = find_compiler(options.compiler, options.cache_dir)
    if compiler is None:
        pytest.skip("no C compiler")
    command = [compiler[0], "-fsyntax-only", *python_include_flags(options.cache_dir), str(MARSHAL_C)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode != 0 and "abi_defines" in result.stderr
    result = subprocess.run(command + list(abi.abi_defines()), capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def typed_loop(source: str, **values):
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For))
    loop = lower_loop(node)
    binder = Binder(loop, tuple(values))
    signature = pipeline.Signature.of(loop, binder, binder.bind(tuple(values.values())))
    analysed = pipeline.analyse(loop, tuple(loop.assigned), signature, config.current())
    return analysed, binder


def test_the_plan_names_each_arrays_kind_and_each_scalars_bank():
    analysed, binder = typed_loop(
        "for i in range(n):\n    if flag:\n        c = a[i] * z\n        out[i] = c.real + b[i] + m[i]\n",
        range=range, n=2, flag=True, z=1j, a=[1.5, 2.5], b=[True, False], m=[3, 4],
        out=numpy.zeros(2))
    layout, typed = analysed.layout, analysed.typed
    arrays = layout.arrays
    written = tuple(name == "out" for name in arrays)
    is_list = tuple(name != "out" for name in arrays)
    plan = abi.marshalling_plan(layout, typed, written, is_list, binder.scalar_paths)
    count, header = plan[0], abi.PLAN_HEADER
    assert count == len(arrays) + len(layout.shadows) == len(arrays) + 1
    fields = [plan[header + abi.ARRAY_FIELDS * k:header + abi.ARRAY_FIELDS * (k + 1)] for k in range(count)]
    kinds = {name: field[0] for name, field in zip(arrays, fields)}
    assert kinds == {"a": abi.ArrayKind.LIST_FLOAT, "b": abi.ArrayKind.LIST_BOOL, "m": abi.ArrayKind.LIST_INT,
                     "out": abi.ArrayKind.NDARRAY}
    assert fields[-1][0] == abi.ArrayKind.SHADOW and fields[arrays.index("out")][2:4] == [8, 1]
    scalars = plan[header + abi.ARRAY_FIELDS * count:]
    assert scalars[0] == len(binder.scalar_paths)
    banks = dict(zip(binder.scalar_paths, scalars[1::2]))
    assert banks == {"n": abi.ScalarBank.INTS, "flag": abi.ScalarBank.TRUTH, "z": abi.ScalarBank.COMPLEX}
    assert dict(zip(binder.scalar_paths, scalars[2::2])) == {
        path: layout.scalars[path][1] for path in binder.scalar_paths}


def every_kind(a, b, m, out, z, flag, n):
    for i in range(n):
        if flag:
            c = a[i] * z
            out[i] = c.real + b[i] + m[i]
        a[i] = a[i] + 1.0
        m[i] = m[i] * 2
        b[i] = not b[i]


def test_every_kind_and_bank_round_trips_through_the_compiled_kernel():
    from conftest import sites_of

    def arguments():
        return [1.5, 2.5, -0.5], [True, False, True], [3, -4, 5], numpy.zeros(3), 2 + 1j, True, 3

    expected, got = arguments(), arguments()
    every_kind(*expected)
    fast = megaguards.jit(every_kind)
    fast(*got)
    assert [record["compiled_runs"] for record in sites_of(fast)] == [1]
    assert expected[3].tobytes() == got[3].tobytes()
    for want, have in zip(expected[:3], got[:3]):
        assert want == have and [type(v) for v in want] == [type(v) for v in have]
