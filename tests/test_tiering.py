"""Compile what pays (runtime/tiering.py, frontend/work.py): with the default settings a
loop is compiled once its CPython time (estimated from its trip counts before anything is
compiled) pays for compiling it; a loop worth microseconds runs in CPython and a script
made of such loops never imports the back end.  (The rest of the suite compiles every loop
at its first entry: conftest sets MEGAGUARDS_COMPILE_AFTER=0.)"""
from __future__ import annotations

import ast
import inspect
import json
import textwrap

import pytest

import megaguards
from conftest import assert_same_as_cpython, run_python, sites_of
from megaguards import MegaguardsWarning, config
from megaguards.frontend.work import formula
from megaguards.runtime import process
from megaguards.runtime.estimate import NODE_SECONDS, estimate
from test_startup import HEAVY, PRINT_MODULES, REWRITE, heavy_among, imported, run_megaguards, write

RANGE = ("range", range)


def estimate_of(function, **values):
    """The estimated seconds of the first loop of ``function`` for these live-ins (and
    ``range``, ``len``, ``enumerate``, ``zip`` as the built-ins); ``Lower(seconds)`` where
    the estimate is a lower bound (some trips not told)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    loop = next(node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.While)))
    values = {"range": range, "len": len, "enumerate": enumerate, "zip": zip, **values}
    names = tuple(values)
    seconds, exact = estimate(formula(loop, names), tuple(values[name] for name in names))
    return seconds if exact else Lower(seconds)


class Lower(float):
    """An estimate that is a lower bound."""

    def __repr__(self) -> str:
        return f"Lower({float(self)!r})"


def dot(a, b, n):
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    return s


def triangle(A, n):
    for i in range(n):
        for j in range(i + 1, n):
            A[i][j] = A[j][i]


def square(A, n):
    for i in range(n):
        for j in range(n):
            A[i][j] = A[j][i]


def rows(table):
    s = 0
    for row in table:
        for v in row:
            s += v
    return s


def pairs(xs, ys, table):
    s = 0
    for x, y in zip(xs, ys):
        s += x * y
    for k, row in enumerate(table):
        for j in range(len(row)):
            s += row[j] * k
    return s


class Grid:
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n


class Cells:
    def __init__(self, cells):
        self.cells = cells

    def total(self):
        s = 0
        for k, c in enumerate(self.cells, 1):
            s += k * c
        for i in reversed(range(True, len(self.cells))):
            s -= self.cells[i]
        return s


def over_grid(grid, out):
    for i in range(grid.n):
        out[i] = i


def built(n):
    for r in range(4):
        row = [k * r for k in range(n)]
        for j in range(len(row)):
            row[j] += 1


def marks(flags, p, n, step):
    for m in range(p * p, n + 1, step):
        flags[m] = False


def counting(a, n):
    for i in range(n):
        k = 0
        while k < i and a[k] >= 0:
            k += 1


def searching(a, n):
    for i in range(n):
        k = 0
        while a[k] != i:
            k += 1


def sieve(flags, limit):
    p = 2
    while p * p <= limit:
        if flags[p]:
            for m in range(p * p, limit + 1, p):
                flags[m] = False
        p += 1


def walking(items):
    for x in iter(items):
        print(x)


def test_the_estimate_follows_the_trip_counts():
    small, large = estimate_of(dot, a=None, b=None, n=100), estimate_of(dot, a=None, b=None, n=10000)
    assert small > 0 and large == pytest.approx(100 * small, rel=0.05)
    assert estimate_of(dot, a=None, b=None, n=-5) == estimate_of(dot, a=None, b=None, n=0) < small
    # An inner bound that depends on the outer variable counts at its largest: never under the square.
    assert 0 < estimate_of(triangle, A=None, n=300) <= estimate_of(square, A=None, n=300)
    assert estimate_of(square, A=None, n=300) == pytest.approx(4 * estimate_of(square, A=None, n=150), rel=0.05)
    # Rows: as many trips as the first row has elements.
    assert estimate_of(rows, table=[[1] * 50] * 40) == pytest.approx(estimate_of(rows, table=[[1] * 40] * 50),
                                                                      rel=0.05)
    assert estimate_of(rows, table=[]) < estimate_of(rows, table=[[1] * 50] * 40)
    assert estimate_of(pairs, xs=[1] * 10, ys=[2] * 1000, table=[[1.0] * 3] * 3) < \
        estimate_of(pairs, xs=[1] * 1000, ys=[2] * 1000, table=[[1.0] * 3] * 3)
    # A step: the trips it makes; one that may be 0 is not told (CPython raises ValueError).
    assert estimate_of(marks, flags=None, p=3, n=10 ** 6, step=3) > 100 * estimate_of(marks, flags=None, p=3,
                                                                                      n=10 ** 6, step=1000)
    assert type(estimate_of(marks, flags=None, p=3, n=100, step=0)) is Lower
    assert estimate_of(marks, flags=None, p=3, n=10 ** 6, step=-3) == estimate_of(marks, flags=None, p=3, n=0, step=1)
    # Attributes (a slot, an object's own field), reversed(), enumerate(xs, 1), a bool bound.
    assert estimate_of(over_grid, grid=Grid(1000), out=None) == pytest.approx(
        10 * estimate_of(over_grid, grid=Grid(100), out=None), rel=0.1)
    many, few = Cells([1] * 1000), Cells([1] * 100)
    assert estimate_of(Cells.total, self=many, s=0) == pytest.approx(10 * estimate_of(Cells.total, self=few, s=0),
                                                                    rel=0.1)
    # A list built by a comprehension, then walked: as long as the comprehension's trips.
    assert estimate_of(built, n=4000) == pytest.approx(10 * estimate_of(built, n=400), rel=0.1)
    # A while loop that counts to a bound: as many trips as the range it counts through.
    assert estimate_of(counting, a=None, n=200) == pytest.approx(estimate_of(triangle, A=None, n=200), rel=0.5)
    # A sieve's ``while p * p <= limit``: told (over-estimated), growing with the limit.
    assert 0 < estimate_of(sieve, flags=None, limit=100, p=2) < estimate_of(sieve, flags=None, limit=10 ** 4, p=2)
    # The scale: microseconds for a 100-trip loop, as CPython takes.
    assert 100 * 5 * NODE_SECONDS < small < 100 * 30 * NODE_SECONDS


HELPERS = """
def weighted(row, weights):
    n = len(row)
    total = 0.0
    for j in range(n):
        total += row[j] * weights[j]
    return total

def scores(table, weights, out):
    for row in table:
        out.append(weighted(row, weights))
"""


def test_a_call_of_a_module_function_is_read_through_its_body():
    """``weighted`` (a loop over the row, through ``n = len(row)``) makes each of the
    caller's iterations as long as a row; the function must still be that one at entry."""
    from megaguards.frontend.work import module_functions

    tree = ast.parse(HELPERS)
    namespace: dict = {}
    exec(compile(HELPERS, "<helpers>", "exec"), namespace)
    loop = next(node for node in ast.walk(tree.body[1]) if isinstance(node, ast.For))
    names = ("table", "out", "weighted", "weights")
    work = formula(loop, names, module_functions(tree))

    def seconds(table, function=namespace["weighted"]):
        seconds, exact = estimate(work, (table, [], function, [1.0] * 1000))
        return seconds if exact else Lower(seconds)
    assert seconds([[1.0] * 1000] * 40) == pytest.approx(10 * seconds([[1.0] * 100] * 40), rel=0.1)
    assert seconds([[1.0] * 1000] * 40) > 40 * 1000 * 5 * NODE_SECONDS
    assert seconds([[1.0] * 1000] * 40, function=lambda row, weights: 0.0) == Lower(0.0)


def test_what_cannot_be_told_is_a_lower_bound_and_runs_no_user_code():
    """A loop whose trips cannot be told counts one trip: what is told around it still
    counts (a search ``while`` inside ``for i in range(n)`` grows with ``n``)."""
    assert type(estimate_of(searching, a=None, n=10)) is Lower    # a while loop that does not count
    assert 0 < estimate_of(searching, a=None, n=10) < estimate_of(searching, a=None, n=1000) / 50
    assert type(estimate_of(walking, items=[1, 2])) is Lower      # an iterator
    assert type(estimate_of(dot, a=None, b=None, n=2.5)) is Lower  # not an int
    assert estimate_of(dot, a=None, b=None, n=10, range=lambda n: [0]) == Lower(0.0)   # range rebound
    numpy = pytest.importorskip("numpy")
    assert estimate_of(dot, a=None, b=None, n=numpy.int64(100)) == estimate_of(dot, a=None, b=None, n=100)

    class Sized:
        def __len__(self):
            raise AssertionError("a user __len__ must not run")

        @property
        def n(self):
            raise AssertionError("a property must not run")
    assert type(estimate_of(rows, table=Sized())) is Lower
    assert type(estimate_of(over_grid, grid=Sized(), out=None)) is Lower


SCRIPT = """
import sys

def tiny(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s

def energy(velocity):
    return sum(v * v for v in velocity)

for k in range(200):
    t = tiny([0.5, 1.5, 2.5])
    e = energy([1, 2.5, 3, 0.25])
print(t, e, 'megaguards.runtime.backend' in sys.modules)

def doubled(image):
    result = []
    for i in range(len(image)):
        row = [0] * len(image[i])
        for j in range(len(image[i])):
            row[j] = image[i][j] * 2
        result.append(row)
    return result

print(sum(map(sum, doubled([[1] * 1000 for _ in range(1000)]))))

def pairs(a):
    s = 0.0
    for i in range(len(a)):
        for j in range(len(a)):
            s += a[i] * a[j]
    return s

def row_total(row):
    s = 0.0
    for j in range(len(row)):
        s += row[j]
    return s

print(pairs([0.25] * 2000))
print(sum(row_total([0.5] * 1000) for _ in range(2000)))
"""


def test_default_settings_compile_only_what_pays(tmp_path):
    """Tiny loops and a tiny ``sum(genexpr)`` run in CPython without importing the back
    end; a loop worth a tenth of a second compiles at its first entry, as does a loop inside
    a nest worth it that cannot compile as a whole; a loop worth microseconds entered
    thousands of times compiles once its entries add up."""
    script = write(tmp_path, "main.py", SCRIPT)
    report = tmp_path / "report.json"
    result = run_megaguards("run", script, cwd=tmp_path, env={"MEGAGUARDS_COMPILE_AFTER": "",   # the default
                                                              "MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache"),
                                                              "MEGAGUARDS_REPORT": str(report)})
    assert result.returncode == 0, result.stderr
    plain = run_python(script, cwd=tmp_path)
    assert result.stdout == plain.stdout
    assert result.stdout.splitlines()[0].endswith("False")   # the back end was not imported
    loops = {record["line"]: record for record in json.loads(report.read_text())["loops"]}
    lines = SCRIPT.splitlines()
    first_loops = [number for number, line in enumerate(lines, 1)
                   if "for i in range" in line or "sum(v" in line or "for j in range(len(row" in line]
    tiny, energy, rows, pairs, row_total = (loops[number] for number in first_loops)
    # A nest that cannot compile as a whole (its row is a list display) but is worth it: the
    # loop inside it compiles at its first entry.
    inner = loops[first_loops[2] + 2]
    assert rows["compiled_runs"] == 0 and any("list display" in reason for reason in rows["reasons"])
    assert inner["compiled_runs"] == 1000 and inner["fallback_runs"] == 0, inner
    for record in (tiny, energy):
        assert record["compiled_runs"] == 0 and record["entries"] == 200
        assert any(reason.startswith("little work") for reason in record["reasons"]), record["reasons"]
    assert pairs["compiled_runs"] == 1 and pairs["fallback_runs"] == 0
    assert row_total["compiled_runs"] > 0 and row_total["fallback_runs"] > 0
    assert any(reason.startswith("not compiled yet") for reason in row_total["reasons"]), row_total["reasons"]


def test_little_loops_import_nothing_heavy(tmp_path):
    """With the rewrite cached, a script whose loops are worth microseconds estimates them
    from the site records: no ``ast``, no ``pickle``, no lowering, no back end."""
    script = write(tmp_path, "main.py", "def scale(a, k):\n    for i in range(len(a)):\n        a[i] *= k\n"
                                        "    return sum(x * x for x in a)\n\n"
                                        "for n in range(50):\n    total = scale([1.5, 2.0, 3.0], 2)\n"
                                        "print(total)\n" + PRINT_MODULES)
    environment = {"MEGAGUARDS_COMPILE_AFTER": "", "MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")}
    first = run_megaguards("run", script, env=environment, cwd=tmp_path)
    second = run_megaguards("run", script, env=environment, cwd=tmp_path)
    assert first.stdout.splitlines()[0] == second.stdout.splitlines()[0] == run_python(script).stdout.splitlines()[0]
    assert heavy_among(imported(second), HEAVY + REWRITE + ("ast", "megaguards.frontend.work")) == []


def test_a_loop_refused_for_its_syntax_is_refused_at_rewrite_time(tmp_path):
    """A loop whose work cannot be told (a ``try`` in it) would be compiled at its first
    entry: the rewrite already lowered it and found the refusal, so the run neither imports
    the lowering nor says anything else than the lowering would."""
    script = write(tmp_path, "main.py", "def inverses(a, out):\n    for i in range(len(a)):\n        try:\n"
                                        "            out[i] = 1 / a[i]\n        except ZeroDivisionError:\n"
                                        "            out[i] = 0.0\n    return out\n\n"
                                        "print(inverses([1.0, 0.0, 4.0], [0.0] * 3))\n" + PRINT_MODULES)
    report = tmp_path / "report.json"
    environment = {"MEGAGUARDS_COMPILE_AFTER": "", "MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache"),
                   "MEGAGUARDS_REPORT": str(report)}
    run_megaguards("run", script, env=environment, cwd=tmp_path)
    second = run_megaguards("run", script, env=environment, cwd=tmp_path)
    assert second.stdout.splitlines()[0] == "[1.0, 0.0, 0.25]"
    assert heavy_among(imported(second), ("megaguards.frontend.lower", "megaguards.ir")) == []
    (loop,) = json.loads(report.read_text())["loops"]
    assert loop["compiled_runs"] == 0 and loop["reasons"] == ["line 3: 'try' inside the loop"]


@pytest.fixture
def default_threshold():
    saved = config.current().compile_after
    config.configure(compile_after=30)
    yield
    config.configure(compile_after=saved)


def total(a, n):
    s = 0
    for i in range(n):
        s += a[i]
    return s


def test_jit_compiles_little_loops_only_when_strict(default_threshold):
    assert_same_as_cpython(total, [1, 2, 3], 3, compiled="little work")
    strict = megaguards.jit(strict=True)(total)
    assert strict([1, 2, 3], 3) == 6
    assert sites_of(strict)[0]["compiled_runs"] == 1


def test_the_setting_is_read_and_checked():
    assert config.from_environment({}).compile_after == 30
    assert config.from_environment({"MEGAGUARDS_COMPILE_AFTER": "0"}).compile_after == 0
    with process.fresh(), pytest.warns(MegaguardsWarning, match=r"MEGAGUARDS_COMPILE_AFTER='soon' is not a whole "
                                                              r"number >= 0; using 30"):
        assert config.from_environment({"MEGAGUARDS_COMPILE_AFTER": "soon"}).compile_after == 30
