"""The guard in one place (guards/assumptions.py): every reason a loop falls back for a
guard comes from one table, each assumption of the table is triggered here (the loop falls
back and the program's results are CPython's), marshal.c's answers map to the table, and
the CPU kernel and the GPU path check an entry through the same function."""
from __future__ import annotations

import ast
from megaguards import record as records
import re
import types
from pathlib import Path

import numpy
import pytest
from conftest import _comparable, assert_same_as_cpython, outcome, sites_of

import megaguards
from megaguards.codegen import layout as abi
from megaguards.errors import GuardFailure
from megaguards.guards import assumptions
from megaguards.guards.assumptions import MARSHAL_CODES, Assumption
from megaguards.ir.types import Scalar
from megaguards.runtime import data
from megaguards.runtime.kernel import Specialization

PACKAGE = Path(megaguards.__file__).parent


# -- the table is the only source of reasons ----------------------------------------------

def test_no_guard_failure_is_written_outside_the_table():
    """Only the table builds a GuardFailure: nowhere else in the package is one called
    (a literal reason, an f-string or otherwise); errors.py defines the class."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in ("errors.py", "guards/assumptions.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name == "GuardFailure":
                    found.append(f"{relative}:{node.lineno}")
    assert not found, found
    calls = [node for node in ast.walk(ast.parse((PACKAGE / "guards" / "assumptions.py").read_text()))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "GuardFailure"]
    assert len(calls) == 1   # Assumption.failure


def test_every_assumption_named_in_the_source_exists_and_reasons_are_one_line():
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"\bAssumption\.([A-Z0-9_]+)", path.read_text()))
    assert named and named <= set(Assumption.__members__), named - set(Assumption.__members__)
    for assumption in Assumption:
        assert assumption.reason and "\n" not in assumption.reason and assumption.where
    # One reason per assumption, but for the NumPy layout that marshal.c refuses: it reports
    # the list's text, as it did before the table split the two (kept: reports unchanged).
    reasons = [a.reason for a in Assumption if a is not Assumption.NDARRAY_LAYOUT]
    assert len(reasons) == len(set(reasons))
    assert Assumption.NDARRAY_LAYOUT.reason == Assumption.LISTS_UNBOX.reason


def test_failures_carry_their_assumption_and_fill_in_the_reason():
    failure = Assumption.LIST_LEAF_CLASS.failure(cls="str")
    assert isinstance(failure, GuardFailure) and failure.assumption is Assumption.LIST_LEAF_CLASS
    assert str(failure) == "a list of str, not of bool, int or float"


def test_every_marshal_c_guard_code_maps_to_the_table():
    """marshal.c answers with codegen/layout.py's codes only, and each means one assumption."""
    source = (PACKAGE / "runtime" / "marshal.c").read_text()
    defines = dict(flag[2:].split("=") for flag in abi.abi_defines())
    answers = {name for name in defines if name.startswith("MG_GUARD") or name == "MG_PYERROR"}
    assert answers <= set(re.findall(r"\bMG_(?:GUARD\w*|PYERROR)\b", source))
    assert {int(defines[name]) for name in answers} == set(MARSHAL_CODES)
    for code, assumption in MARSHAL_CODES.items():
        failure = assumptions.marshal_failure(code)
        assert failure.assumption is assumption and str(failure) == assumption.reason


# -- each assumption, triggered: the loop falls back, the results are CPython's ------------

def guard(assumption: Assumption, **fields) -> str:
    return "guard: " + assumption.reason.format(**fields)


class Dynamic:
    def __getattr__(self, name):
        return 2.0


class Slotted:
    __slots__ = ("k",)


class Computed:
    @property
    def k(self):
        return 2.0


class Plain:
    pass


def scaled(make, a, n):
    holder = make()   # made here: the arguments are compared after a deep copy
    for i in range(n):
        a[i] = a[i] * holder.k


def fill(a, n):
    for i in range(n):
        a[i] = 1.5


def add_one(a, n):
    for i in range(n):
        a[i] = a[i] + 1


def first_column(m, n):
    s = 0.0
    for i in range(n):
        s = s + m[i][0]
    return s


@pytest.mark.parametrize("assumption, arguments, fields", [
    (Assumption.MODULE_ATTRIBUTE, (lambda: types.ModuleType("m"), [1.0, 2.0], 2), dict(module="m", attribute="k")),
    (Assumption.PLAIN_ATTRIBUTE_ACCESS, (Dynamic, [1.0, 2.0], 2), dict(cls="Dynamic")),
    (Assumption.SLOT_SET, (Slotted, [1.0, 2.0], 2), dict(attribute="k")),
    (Assumption.NO_DESCRIPTOR, (Computed, [1.0, 2.0], 2), dict(attribute="k")),
    (Assumption.STORED_ATTRIBUTE, (Plain, [1.0, 2.0], 2), dict(attribute="k")),
], ids=lambda value: value.name if isinstance(value, Assumption) else "")
def test_attribute_paths(assumption, arguments, fields):
    assert_same_as_cpython(scaled, *arguments, compiled=guard(assumption, **fields))


class Guarded:
    def __init__(self):
        self.k = 0.0

    def __setattr__(self, name, value):   # runs at each assignment under CPython
        object.__setattr__(self, name, round(value, 1))


def accumulate(make, a, n):
    holder = make()
    for i in range(n):
        holder.k += a[i]
    return holder.k


def module_holder():
    module = types.ModuleType("m")
    module.k = 0.0
    return module


@pytest.mark.parametrize("make, cls", [(Guarded, "Guarded"), (module_holder, "module")])
def test_an_attribute_the_loop_assigns_is_set_without_running_code(make, cls):
    assert_same_as_cpython(accumulate, make, [0.25, 0.25, 0.25], 3,
                           compiled=guard(Assumption.PLAIN_ATTRIBUTE_SET, attribute="k", cls=cls))
    assert_same_as_cpython(accumulate, Plain, [0.25, 0.5], 2, compiled=False)   # no k to read: CPython raises


def helper_reading_a_global(x):
    return x * GUARD_TEST_GLOBAL  # noqa: F821 - defined and deleted by the test


def reads_a_global(a, n):
    for i in range(n):
        a[i] = helper_reading_a_global(a[i])


def test_a_global_of_an_inlined_function_is_defined():
    assert_same_as_cpython(reads_a_global, [1.0, 2.0], 2,
                           compiled=guard(Assumption.GLOBAL_DEFINED, name="GUARD_TEST_GLOBAL",
                                          function="helper_reading_a_global"))


def _unbound_free_variable():
    def helper(x):
        return x * k
    return helper
    k = 2.0  # noqa: F841 - never runs: k is a free variable without a value


helper_with_a_free_variable = _unbound_free_variable()


def reads_a_free_variable(a, n):
    for i in range(n):
        a[i] = helper_with_a_free_variable(a[i])


def test_a_free_variable_of_an_inlined_function_is_bound():
    assert_same_as_cpython(reads_a_free_variable, [1.0, 2.0], 2,
                           compiled=guard(Assumption.FREE_VARIABLE_BOUND, name="k", function="helper"))


def same_after_a_change(function, arguments, change, reason):
    """``function`` jitted runs compiled on ``arguments``; after ``change()`` (undone
    afterwards) it falls back for ``reason`` with CPython's results."""
    fast = megaguards.jit(function)
    fast(*arguments)
    assert [record["compiled_runs"] for record in sites_of(fast)] == [1]
    undo = change()
    try:
        expected, actual = outcome(function, arguments), outcome(fast, arguments)
    finally:
        undo()
    assert actual == expected
    [record] = sites_of(fast)
    assert record["compiled_runs"] == 1 and record["fallback_runs"] == 1 and reason in record["reasons"], record


def helper_with_a_default(x, s=2.0):
    return x * s


def uses_a_default(a, n):
    for i in range(n):
        a[i] = helper_with_a_default(a[i])


def test_a_default_of_an_inlined_function_is_there():
    def change():
        saved, helper_with_a_default.__defaults__ = helper_with_a_default.__defaults__, None
        return lambda: setattr(helper_with_a_default, "__defaults__", saved)
    same_after_a_change(uses_a_default, ([1.0, 2.0], 2), change,
                        guard(Assumption.PARAMETER_DEFAULT, name="s", function="helper_with_a_default"))


def helper_rebound(x):
    return x * GUARD_TEST_FACTOR


GUARD_TEST_FACTOR = 3.0


def uses_a_rebound_helper(a, n):
    for i in range(n):
        a[i] = helper_rebound(a[i])


def test_an_inlined_function_is_still_a_python_function():
    def change():
        global helper_rebound
        saved, helper_rebound = helper_rebound, abs

        def undo():
            global helper_rebound
            helper_rebound = saved
        return undo
    same_after_a_change(uses_a_rebound_helper, ([1.0, -2.0], 2), change,
                        guard(Assumption.PYTHON_FUNCTION, cls="builtin_function_or_method"))


def test_scalars():
    from fractions import Fraction

    def scale(a, x, n):
        for i in range(n):
            a[i] = a[i] * x
    assert_same_as_cpython(scale, [1, 2], Fraction(1, 3), 2,
                           compiled=guard(Assumption.SCALAR_NUMBER, name="'x'", cls="Fraction"))
    assert_same_as_cpython(scale, [1, 2], 2**70, 2, compiled=guard(Assumption.SCALAR_INT64))


def test_arrays_classes_ranks_and_leaves():
    assert_same_as_cpython(add_one, (1, 2), 2, compiled=guard(Assumption.ARRAY_CLASS, cls="tuple"))
    assert_same_as_cpython(first_column, [1.0, 2.0], 2, compiled=guard(Assumption.LIST_RANK, rank=2))
    assert_same_as_cpython(add_one, [], 0, compiled=guard(Assumption.LIST_NOT_EMPTY))
    assert_same_as_cpython(add_one, [1j, 2j], 2, compiled=guard(Assumption.LIST_LEAF_CLASS, cls="complex"))


def pair_products(pairs):
    total = 0.0
    for a, b in pairs:
        total += a * b
    return total


def first_columns_doubled(m, n):
    for i in range(n):
        m[i][0] = m[i][1] * 2


def test_rows_a_loop_unpacks_hold_as_many_values_and_tuple_rows_are_only_read():
    assert_same_as_cpython(pair_products, [(1.0, 2.0), (3.0, 0.5)])   # tuple rows, read: compiled
    assert_same_as_cpython(pair_products, numpy.ones((4, 2)))
    assert_same_as_cpython(pair_products, [(1.0, 2.0, 3.0)] * 2,
                           compiled=guard(Assumption.ROW_WIDTH, name="'pairs'", width=3, wanted=2))
    assert_same_as_cpython(pair_products, numpy.ones((4, 3)),
                           compiled=guard(Assumption.ROW_WIDTH, name="'pairs'", width=3, wanted=2))
    # Written, the rows must be lists: a tuple raises TypeError in CPython, which runs the loop.
    assert_same_as_cpython(first_columns_doubled, [(1, 2), (3, 4)], 2, compiled=guard(Assumption.LIST_RANK, rank=2))
    assert_same_as_cpython(first_columns_doubled, [[1, 2], (3, 4)], 2, compiled=guard(Assumption.LISTS_UNBOX))


def test_str_and_bytes_are_read_one_level_never_written():
    assert_same_as_cpython(first_column, "ab", 2, compiled=guard(Assumption.TEXT_READ, name="'m'", cls="str"))
    assert_same_as_cpython(add_one, bytearray(b"ab"), 2, compiled=guard(Assumption.TEXT_READ, name="'a'",
                                                                         cls="bytearray"))


def add_one_through_view(data, n):
    view = memoryview(data)
    for i in range(n):
        view[i] = view[i] + 1
    return data


def shift_through_view(data, n):
    view = memoryview(data)
    for i in range(1, n):
        view[i] = data[i - 1] + 1
    return data


def test_array_module_arrays_and_memoryviews_of_numbers():
    from array import array

    assert_same_as_cpython(add_one, array("d", [1.5, 2.5]), 2)
    assert_same_as_cpython(add_one, array("q", [1, 2**40]), 2)
    assert_same_as_cpython(add_one, array("i", [1, 2]), 2)
    assert_same_as_cpython(add_one, array("u", "ab"), 2,   # CPython: TypeError
                           compiled=guard(Assumption.BUFFER_TYPECODE, name="'a'", code="u"))
    assert_same_as_cpython(add_one_through_view, bytearray(b"ab"), 2)
    assert_same_as_cpython(add_one_through_view, b"ab", 2,   # CPython: TypeError (read-only memory)
                           compiled=guard(Assumption.BUFFER_WRITABLE, name="'view'"))
    # The view writes what the array reads: each item sees the one before it written.
    assert_same_as_cpython(shift_through_view, array("d", [0.5] * 6), 6,
                           compiled=guard(Assumption.BUFFERS_DISJOINT))
    assert_same_as_cpython(first_column, array("d", [1.0, 2.0]), 2, compiled=guard(Assumption.LIST_RANK, rank=2))
    assert_same_as_cpython(add_one, array("q", [2**63 - 1]), 1, compiled="runtime flag")   # CPython: OverflowError
    # A part of the array, every third element: the others keep their values.
    assert_same_as_cpython(strided_double, array("d", [float(i) for i in range(100)]), 5, 90, 3)
    shared = array("d", [float(i) for i in range(50)])
    assert_same_as_cpython(shifted_copy, shared, shared, 50)   # one array under two names


def test_array_module_arrays_stay_on_the_cpu_with_one_reason(monkeypatch):
    """Under device gpu (GPU or not: the GPU analysis runs), an array.array loop runs on the
    CPU, the reason said once (the band's and the region's reasons are the same one)."""
    import warnings
    from array import array

    from megaguards import config
    from megaguards.runtime import process

    monkeypatch.setattr(config, "_current", config.current()._replace(device="gpu"))
    fast = megaguards.jit(add_one)
    values = array("d", [1.0, 2.0, 3.0])
    with process.fresh(), warnings.catch_warnings():   # "no CUDA device is usable": this process's own
        warnings.simplefilter("ignore")
        fast(values, 3)
    assert list(values) == [2.0, 3.0, 4.0]
    [record] = sites_of(fast)
    notes = [reason for reason in record["reasons"] if reason.startswith("not on the GPU")]
    assert notes == ["not on the GPU: array.array 'a' runs on the CPU only"], record["reasons"]


def strided_double(a, start, stop, step):
    for i in range(start, stop, step):
        a[i] = a[i] * 2.0 + a[i - 1]


def shifted_copy(source, target, n):
    for i in range(1, n):
        target[i] = source[i - 1] + 0.5


def test_numpy_dtype_and_rank():
    assert_same_as_cpython(add_one, numpy.arange(3, dtype=numpy.uint8), 3,
                           compiled=guard(Assumption.NDARRAY_DTYPE, name="a", dtype="uint8"))
    assert_same_as_cpython(add_one, numpy.zeros((2, 3)), 2,
                           compiled=guard(Assumption.NDARRAY_RANK, name="a", ndim=2, rank=1))


class FakeCupyArray(numpy.ndarray):   # what is_cupy_array() takes for a CuPy array
    pass


FakeCupyArray.__name__ = "ndarray"
FakeCupyArray.__module__ = "cupy._guard_test"


def test_cupy_arrays_need_the_gpu():
    def running(base, n):
        a = base.view(FakeCupyArray)
        for i in range(1, n):
            a[i] = a[i - 1] + 1.0   # sequential: never on the GPU
        return base
    assert_same_as_cpython(running, numpy.zeros(4), 4, compiled=guard(Assumption.HOST_ARRAYS))


def read_only_written(base, n):
    a = base.copy()
    a.flags.writeable = False
    for i in range(n):
        a[i] = 1.0
    return a


def self_overlapping_written(base, n):
    a = numpy.lib.stride_tricks.as_strided(base, shape=(n,), strides=(0,))
    for i in range(n):
        a[i] = a[i] + 1.0
    return base


def overlapping_views(base, n):
    a, b = base[1:], base[:-1]
    for i in range(n):
        a[i] = b[i] + 1.0
    return base


def shared_rows(n):
    m = [[0] * n] * n
    for i in range(n):
        for j in range(n):
            m[i][j] = m[i][j] + i
    return m


@pytest.mark.parametrize("function, arguments, assumption", [
    (read_only_written, (numpy.zeros(3), 3), Assumption.WRITTEN_WRITEABLE),
    (self_overlapping_written, (numpy.zeros(3), 3), Assumption.WRITTEN_NOT_SELF_OVERLAPPING),
    (overlapping_views, (numpy.arange(6.0), 5), Assumption.WRITTEN_VIEWS_DISJOINT),
    (shared_rows, (3,), Assumption.LIST_ROWS_DISTINCT),
], ids=lambda value: value.name if isinstance(value, Assumption) else "")
def test_what_a_written_array_adds(function, arguments, assumption):
    assert_same_as_cpython(function, *arguments, compiled=guard(assumption))


def test_a_list_of_ints_and_floats_is_typed_again_and_compiles():
    """Assumption.LIST_ONE_CLASS: the entry that finds the mix is tried again at once, the list
    int-or-float; its next entries compile directly."""
    fast = assert_same_as_cpython(add_one, [1, 2.5, 2], 3)
    [record] = sites_of(fast)
    assert guard(Assumption.LIST_ONE_CLASS) in record["reasons"] and record["fallback_runs"] == 0
    assert assumptions.marshal_failure(abi.MIXED_GUARD - 3).array_position == 3


def test_append_needs_a_list_of_its_own():
    def collect(a, n, out):
        for i in range(n):
            out.append(a[i] + 1)
        return out

    class Sink(list):   # a subclass may override append
        pass
    assert_same_as_cpython(collect, [1, 2], 2, Sink(), compiled=guard(Assumption.APPENDED_LIST, cls="Sink"))
    shared = [1, 2]
    assert_same_as_cpython(collect, shared, 2, shared, compiled=guard(Assumption.APPENDED_DISTINCT))


def test_appends_by_key_need_a_list_or_dict_of_lists_keyed_from_zero():
    def group(a, n, groups):
        for i in range(n):
            groups[a[i] % 2].append(a[i])
        return groups

    class Rows(list):
        pass
    assert_same_as_cpython(group, [1, 2], 2, Rows([[], []]), compiled=guard(Assumption.KEYED_CLASS, cls="Rows"))
    assert_same_as_cpython(group, [1, 2], 2, {1: [], 2: []}, compiled=guard(Assumption.KEYED_TABLE))
    assert_same_as_cpython(group, [1, 2], 2, {0: [], 1: Rows()}, compiled=guard(Assumption.KEYED_TABLE))
    assert_same_as_cpython(group, [1, 2], 2, {0: [], 1: []})


class Body:
    def __init__(self, x):
        self.x = x
        self.v = 1.0


class Other:
    def __init__(self, x):
        self.x = x
        self.v = 2.0


class Mover(Body):
    def move(self, dt):
        self.x += self.v * dt


def move_all(make, n):
    bodies = make()
    for p in bodies:
        p.move(0.5)
    return [(b.x, b.v) for b in bodies]


def push(make, n):
    bodies = make()   # made here: objects compare by identity, results by their fields
    for p in bodies:
        p.x += p.v * 0.5
    return [(b.x, b.v) for b in bodies], bodies[0] is bodies[-1]


def test_fields_of_a_lists_objects():
    """frontend/fields.py: one class, each object once where a field is set, the field on every object."""
    assert_same_as_cpython(push, lambda: [Body(1.0), Body(2.0), Body(4.5)], 3)
    assert_same_as_cpython(push, lambda: (lambda b: [b, Body(1.0), b])(Body(3.0)), 3,
                           compiled=guard(Assumption.FIELD_DISTINCT, name="'bodies'", field="x"))
    assert_same_as_cpython(push, lambda: [Body(1.0), Other(2.0)], 2,
                           compiled=guard(Assumption.FIELD_ONE_CLASS, name="'bodies'", classes="Body and Other"))

    def without_v():
        bodies = [Body(1.0), Body(2.0)]
        del bodies[1].v
        return bodies
    assert_same_as_cpython(push, without_v, 2, compiled=guard(Assumption.FIELD_PRESENT, name="'bodies'", field="v"))


def heaviest_of(make):
    bodies, start = make()
    best = start
    for b in bodies:
        if b.x > best.x:
            best = b
    return best.x, best is start


def test_a_name_holding_one_of_the_lists_objects():
    """Assumption.OBJECT_IN_LIST: ``best`` holds one of the list's objects (its index in the
    kernel), or None; any other object: CPython."""
    assert_same_as_cpython(heaviest_of, lambda: (lambda b: (b, b[1]))([Body(1.0), Body(5.0), Body(2.0)]))
    assert_same_as_cpython(heaviest_of, lambda: ([Body(1.0), Body(5.0)], Body(3.0)),
                           compiled=guard(Assumption.OBJECT_IN_LIST, name="'best'", array="'bodies'"))


class Ship:
    def __init__(self, x):
        self.pos, self.vel = Body(x), Body(2 * x)


def glide_all(make, n):
    ships = make()
    for s in ships:
        s.pos.x += s.vel.x * 0.5
    return [(s.pos.x, s.vel.x) for s in ships]


def test_fields_of_fields_set_through_one_list_and_read_through_another():
    """Assumption.FIELDS_DISJOINT: ``s.pos.x`` set, ``s.vel.x`` read: no Body may be both."""
    assert_same_as_cpython(glide_all, lambda: [Ship(1.0), Ship(2.5)], 2)

    def crossed():
        ships = [Ship(1.0), Ship(2.5)]
        ships[1].vel = ships[0].pos
        return ships
    assert_same_as_cpython(glide_all, crossed, 2, compiled=guard(
        Assumption.FIELDS_DISJOINT, names="'ships[...].pos' and 'ships[...].vel'", field="x"))


def compare_all(make, n):
    bodies = make()
    for p in bodies:
        for q in bodies:
            if p is not q:
                p.x += q.v
    return [(b.x, b.v) for b in bodies]


def test_objects_compared_in_the_loop():
    """Assumption.OBJECTS_COMPARED: ``p is not q`` compares indices, which needs each object once."""
    assert_same_as_cpython(compare_all, lambda: [Body(1.0), Body(2.0)], 2)
    assert_same_as_cpython(compare_all, lambda: (lambda b: [b, b])(Body(1.0)), 2,
                           compiled=guard(Assumption.OBJECTS_COMPARED, name="'bodies'"))


def test_methods_of_a_lists_objects():
    """A method called on the objects (``p.move(dt)``) is their class's, inlined with ``self``
    standing for each object; an object holding an attribute of that name runs CPython's loop."""
    fast = assert_same_as_cpython(move_all, lambda: [Mover(1.0), Mover(2.0)], 2)

    def shadowed():
        bodies = [Mover(1.0), Mover(2.0)]
        bodies[1].move = lambda dt: None
        return bodies
    assert fast(shadowed, 2) == move_all(shadowed, 2) == [(1.5, 1.0), (2.0, 1.0)]
    [loop] = [record for record in sites_of(fast) if record["compiled_runs"]]
    assert loop["fallback_runs"] == 1 and guard(Assumption.METHOD_NOT_SHADOWED, method="move") in loop["reasons"]


def test_lists_unbox_in_marshal_c():
    ragged = guard(Assumption.LISTS_UNBOX)
    assert_same_as_cpython(add_one, [1, True, 2], 3, compiled=ragged)                 # homogeneous
    assert_same_as_cpython(add_one, [1, 2**70, 2], 3, compiled=ragged)                # ints within int64
    assert_same_as_cpython(first_column, [[1.0, 2.0], [3.0]], 2, compiled=ragged)     # rectangular


def test_a_numpy_layout_marshal_c_refuses():
    """A field of a structured array: float64 elements 12 bytes apart (not whole elements)."""
    def field(record, n):
        a = record["x"]
        for i in range(n):
            a[i] = a[i] + 1.0
        return record
    record = numpy.zeros(4, dtype=[("x", "f8"), ("y", "i4")])
    assert_same_as_cpython(field, record, 4, compiled=guard(Assumption.NDARRAY_LAYOUT))


# -- what no program reaches through a site, checked on the executables themselves -------

def scale_by(a, x, n):
    for i in range(n):
        a[i] = a[i] * x


@pytest.fixture
def captured(monkeypatch):
    """The CPU specialization and binding of one compiled entry of ``scale_by``."""
    seen = []
    original = Specialization.run
    monkeypatch.setattr(Specialization, "run", lambda self, binding: seen.append((self, binding))
                        or original(self, binding))
    fast = megaguards.jit(scale_by)
    fast([1.0, 2.0], 2.0, 2)
    monkeypatch.setattr(Specialization, "run", original)
    specialization, binding = seen[0]
    n = specialization.scalar_paths.index("n")
    return specialization, binding, n


def test_marshal_c_answers_through_the_table(captured):
    """mg_enter's and mg_prologue's answers on values the binder would have refused."""
    specialization, binding, n = captured

    def with_n(value):
        scalars = list(binding.scalars)
        scalars[n] = value
        return records.replace(binding, scalars=tuple(scalars))
    for value, assumption in ((2**70, Assumption.SCALAR_INT64), ("two", Assumption.UNBOXING_SUCCEEDS)):
        with pytest.raises(GuardFailure) as raised:
            specialization.run(with_n(value))
        assert raised.value.assumption is assumption
    with pytest.raises(GuardFailure) as raised:
        specialization.prologue(with_n("two"))
    assert raised.value.assumption is Assumption.PROLOGUE_READABLE
    assert specialization.run(binding).values is not None   # and the specialization still runs


def test_a_gpu_live_out_of_unknown_class():
    typed = types.SimpleNamespace(assigned_types={"s": frozenset({Scalar.PY_INT, Scalar.PY_FLOAT})})
    with pytest.raises(GuardFailure) as raised:
        data.box_live_outs(("s",), {"s": 1}, {}, typed, {})
    assert raised.value.assumption is Assumption.LIVE_OUT_CLASS and "'s'" in str(raised.value)


@pytest.mark.parametrize("assumption", [a for a in Assumption if a.where.startswith(("marshal.c", "check_entry",
                                                                                        "Gpu", "data."))],
                         ids=lambda a: a.name)
def test_any_failure_at_run_time_falls_back_with_cpythons_result(assumption, monkeypatch):
    """Whatever assumption fails once the executable runs, the site runs the loop in
    CPython from unchanged data and says the assumption's reason."""
    def failing(self, binding):
        raise assumption.failure(**{field: "x" for field in re.findall(r"{(\w+)", assumption.reason)})
    monkeypatch.setattr(Specialization, "run", failing)
    reason = "guard: " + assumption.reason.format(**{f: "x" for f in re.findall(r"{(\w+)", assumption.reason)})
    assert_same_as_cpython(scale_by, [1.0, 2.0], 3.0, 2, compiled=reason)


def test_every_assumption_is_triggered_by_a_test_here():
    source = Path(__file__).read_text()
    untested = [a.name for a in Assumption if f"Assumption.{a.name}" not in source]
    assert not untested, untested


# -- the CPU kernel and the GPU path check an entry through the same function -------------

def shifted(a, b, n):
    for i in range(1, n):
        b[i] = a[i] * 2.0 + 1.0


def test_cpu_and_gpu_call_the_same_check_with_the_same_record(emulator, monkeypatch):
    """An empty range: the GPU checks the entry, declines, and the CPU kernel runs the
    loop, checking it again, through the same function and the same record."""
    calls = []
    original = assumptions.check_entry
    monkeypatch.setattr(assumptions, "check_entry", lambda assumed, binding, gpu=False:
                        calls.append((assumed, gpu)) or original(assumed, binding, gpu))
    fast = megaguards.jit(shifted)
    fast(numpy.arange(4.0), numpy.zeros(4), 1)
    assert [gpu for _, gpu in calls] == [True, False]
    assert calls[0][0] is calls[1][0] and calls[0][0].numpy_written
    launches = emulator.launches
    calls.clear()
    a, b = numpy.arange(8.0), numpy.zeros(8)
    fast(a, b, 8)
    assert emulator.launches > launches and [gpu for _, gpu in calls] == [True]
    assert b.tolist() == [0.0] + [k * 2.0 + 1.0 for k in range(1, 8)]


def gpu_rows(m, n):
    for i in range(n):
        for j in range(n):
            m[i][j] = m[i][j] + 1.0
    return m


def gpu_views(base, n):
    a, b = base[1:], base[:-1]
    for i in range(n):
        a[i] = b[i] * 2.0
    return base


@pytest.mark.parametrize("function, make, assumption", [
    (gpu_rows, lambda: ([[0.0] * 4] * 4, 4), Assumption.LIST_ROWS_DISTINCT),
    (gpu_views, lambda: (numpy.arange(9.0), 8), Assumption.WRITTEN_VIEWS_DISJOINT),
], ids=lambda value: value.name if isinstance(value, Assumption) else "")
def test_the_gpu_path_refuses_what_the_cpu_refuses(emulator, function, make, assumption):
    expected = outcome(function, make())
    fast = megaguards.jit(function)
    assert outcome(fast, make()) == expected
    [record] = sites_of(fast)[:1]
    assert record["compiled_runs"] == 0 and guard(assumption) in record["reasons"], record


def test_an_integer_sum_on_the_gpu_that_may_leave_int64(emulator):
    def total(a):
        s = 0
        for i in range(len(a)):
            s += a[i]
        return s
    values = [2**61] * 8 + [1]
    fast = megaguards.jit(total)
    assert _comparable(fast(list(values))) == _comparable(total(list(values))) == ("int", 2**64 + 1)
    [record] = sites_of(fast)
    assert guard(Assumption.GPU_SUM_INT64) in record["reasons"] and record["compiled_runs"] == 0, record


def test_list_rows_reachable_twice_are_found_at_every_level():
    """check_list_rows: a row beside its matrix, a row shared inside a 3-level list, a row
    listed twice in its matrix fail; the same matrix passed under two names, distinct rows
    and a 1-level list pass."""
    from megaguards.guards.assumptions import check_list_rows

    def fails(arrays, ranks) -> bool:
        try:
            check_list_rows(arrays, [True] * len(arrays), ranks)
        except GuardFailure as failure:
            assert failure.assumption is Assumption.LIST_ROWS_DISTINCT
            return True
        return False

    m = [[float(i + j) for j in range(3)] for i in range(4)]
    cube = [[[0.0] * 2 for _ in range(3)] for _ in range(2)]
    assert not fails((m, m, [1.0, 2.0]), (2, 2, 1))
    assert not fails((cube,), (3,))
    assert fails((m, m[2]), (2, 1))
    cube[1][2] = cube[0][0]
    assert fails((cube,), (3,))
    assert fails(([m[0], m[1], m[0]],), (2,))
