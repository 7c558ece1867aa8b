"""Calls to user-defined functions inside compiled loops are inlined (MegaGuards §3.3.1):
differential tests against CPython, with the report showing the compiled path, and the
reasons for the calls that must stay in CPython."""
from __future__ import annotations

import math

import numpy
import pytest

import megaguards
from conftest import assert_same_as_cpython, site_for
from megaguards import config
from megaguards.frontend import inline


@pytest.fixture(params=["seq", "cpu"])
def device(request):
    """Run a test on the sequential C back end and on OpenMP (``auto`` is OpenMP here)."""
    previous = config.current().device
    config.configure(device=request.param)
    yield request.param
    config.configure(device=previous)

SCALE = 3


def cnd(d):
    """The cumulative normal distribution of Black–Scholes (several statements, math calls)."""
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    w = 1.0 - 1.0 / math.sqrt(2 * math.pi) * math.exp(-d * d / 2.0) * (0.31938153 * k - 0.356563782 * k * k)
    if d < 0:
        return 1.0 - w
    return w


def scaled(x, factor=2.0, *, offset=0):
    return x * factor * SCALE + offset


def escape_count(cr, ci, limit):
    zr, zi = 0.0, 0.0
    for n in range(limit):
        if zr * zr + zi * zi > 4.0:
            return n
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    return limit


def first_above(values, threshold):
    for j in range(len(values)):
        for repeat in range(1):
            if values[j] > threshold:
                return j
    return -1


def row_total(row):
    total = 0.0
    for j in range(len(row)):
        total += row[j]
    return total


def inverse(x):
    return 1.0 / x


def step(src, dst):
    for i in range(1, len(src) - 1):
        dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3.0


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def half_or_count(x):
    if x > 0:
        return x / 2
    return 0


COUNTER = [0]


def writes_global(x):
    COUNTER[0] = x
    return x


# --- compiled ---------------------------------------------------------------------

def apply_cnd(xs, out):
    for i in range(len(xs)):
        out[i] = cnd(xs[i])
    return out


def test_helper_with_math_and_two_returns(device):
    xs = [0.25 * k - 3.0 for k in range(25)]
    assert_same_as_cpython(apply_cnd, xs, [0.0] * 25)


def apply_defaults(xs, out):
    for i in range(len(xs)):
        out[i] = scaled(xs[i]) + scaled(xs[i], 0.5) + scaled(factor=1.5, x=xs[i]) + scaled(xs[i], offset=1)
    return out


def test_defaults_and_keywords():
    assert_same_as_cpython(apply_defaults, [1.0, -2.5, 3.25], [0.0] * 3)


def mandelbrot(width, height, limit, out):
    for y in range(height):
        for x in range(width):
            out[y][x] = escape_count(-2.0 + 3.0 * x / width, -1.0 + 2.0 * y / height, limit)
    return out


def test_return_inside_the_callee_loop_keeps_the_caller_parallel(device):
    fast = assert_same_as_cpython(mandelbrot, 24, 16, 50, [[0] * 24 for _ in range(16)])
    assert site_for(fast)[-1]["backend"] == {"cpu": "c-omp", "seq": "c-seq"}[device]


def search_each(xs, out):
    for i in range(len(xs)):
        out[i] = first_above(xs, xs[i])
    return out


def test_return_from_nested_loops():
    assert_same_as_cpython(search_each, [3, 1, 4, 1, 5, 9, 2, 6], [0] * 8)


def row_sums(grid, out):
    for i in range(len(grid)):
        out[i] = row_total(grid[i])
    return out


def test_row_of_a_list_as_argument():
    assert_same_as_cpython(row_sums, [[1.0, 2.5], [3.0, -0.0], [0.5, 0.25]], [0.0] * 3)


def test_row_of_a_list_as_argument_numpy_elements_keep_their_class():
    # row_total returns numpy.float64 for a NumPy row but float for an empty one: stays in CPython
    assert_same_as_cpython(row_sums, numpy.arange(12.0).reshape(4, 3), [0.0] * 4, compiled=False)


def dot2(row, other):
    return row[0] * other[0] + row[1] * other[1]


def row_dots(grid, vector, out):
    for i in range(grid.shape[0]):
        out[i] = dot2(grid[i], vector)
    return out


def test_row_of_a_numpy_array_as_argument():
    assert_same_as_cpython(row_dots, numpy.arange(8.0).reshape(4, 2), numpy.array([0.5, -1.5]), numpy.zeros(4))


def test_row_argument_out_of_range_raises_index_error_at_the_call():
    def sums_past_the_end(grid, out):
        for i in range(len(out)):
            out[i] = row_total(grid[i])
        return out
    assert_same_as_cpython(sums_past_the_end, [[1.0], [2.0]], [0.0] * 3, compiled=None)


def closure_scale(xs, factor):
    def times(x):
        return x * factor

    out = [0.0] * len(xs)
    for i in range(len(xs)):
        out[i] = times(xs[i]) + (lambda v: v + factor)(0.0) * 0 + times(1.0)
    return out


def test_closures_read_their_cells():
    assert_same_as_cpython(closure_scale, [1.0, 2.0, 3.5], 1.25, compiled=None)


def with_lambda(xs, out):
    square = lambda v: v * v  # noqa: E731
    for i in range(len(xs)):
        out[i] = square(xs[i]) + 1
    return out


def test_lambda_bound_to_a_name():
    assert_same_as_cpython(with_lambda, [1, 2, 3], [0, 0, 0])


class Particles:
    def __init__(self, n):
        self.mass = 2.0
        self.x = [0.5 * k for k in range(n)]

    def energy_of(self, k):
        return 0.5 * self.mass * self.x[k] * self.x[k]

    def total(self):
        total = 0.0
        for k in range(len(self.x)):
            total += self.energy_of(k)
        return total


def test_methods_on_self():
    import megaguards

    fast = megaguards.jit(Particles.total)
    assert fast(Particles(10)) == Particles.total(Particles(10))
    assert sum(site["compiled_runs"] for site in site_for(fast)) == 1


def guarded(xs, out):
    for i in range(len(xs)):
        out[i] = inverse(xs[i]) if xs[i] != 0 else -1.0
        if xs[i] == 0 or inverse(xs[i]) > 0.3:
            out[i] += 1.0
    return out


def test_calls_in_conditional_expressions_run_only_when_python_runs_them(device):
    # inverse(0.0) would raise ZeroDivisionError: it must not run when Python skips it
    fast = assert_same_as_cpython(guarded, [0.0, 2.0, 0.0, 4.0], [0.0] * 4)
    assert all(site["compiled_runs"] for site in site_for(fast))


def relax(a, b, steps):
    for t in range(steps):
        step(a, b)
        step(b, a)
    return a


def test_time_step_loop_calling_a_function_with_loops_is_one_compiled_loop(device):
    fast = assert_same_as_cpython(relax, [float(k % 7) for k in range(40)], [0.0] * 40, 5)
    newest = site_for(fast)[-1]  # the time-step loop: step()'s loops are inlined into it
    assert newest["line"] == relax.__code__.co_firstlineno + 1
    assert newest["compiled_runs"] == 1 and newest["fallback_runs"] == 0


def reads_global(xs, out):
    for i in range(len(xs)):
        out[i] = scaled(xs[i])
    return out


def test_a_changed_global_is_read_at_the_next_entry():
    global SCALE
    fast = assert_same_as_cpython(reads_global, [1.0, 2.0], [0.0, 0.0])
    try:
        SCALE = 5
        assert fast([1.0, 2.0], [0.0, 0.0]) == [10.0, 20.0]
        SCALE = 2.5  # another type: another specialization, still exact
        assert fast([1.0, 2.0], [0.0, 0.0]) == [5.0, 10.0]
    finally:
        SCALE = 3


def inverses(xs, out):
    for i in range(len(xs)):
        out[i] = inverse(xs[i])
    return out


def test_exception_inside_a_callee_is_cpythons():
    assert_same_as_cpython(inverses, [1.0, 0.0, 2.0], [0.0] * 3, compiled=False)


# --- stays in CPython, with the reason --------------------------------------------

def fibs(out):
    for i in range(len(out)):
        out[i] = fib(i)
    return out


def true_or_count(x):
    if x > 2:
        return x > 3
    return 1


def mixed(xs, out):
    for i in range(len(xs)):
        out[i] = true_or_count(xs[i])   # a bool or an int: True prints as True, no joined type
    return out


def global_writer(xs):
    total = 0
    for i in range(len(xs)):
        total += writes_global(xs[i])
    return total


def test_a_function_writing_its_module_s_list_compiles():
    COUNTER[0] = 0
    expected = global_writer([1, 2, 3]), COUNTER[:]
    COUNTER[0] = 0
    assert_same_as_cpython(global_writer, [1, 2, 3])   # runs it once plainly, once compiled
    assert (global_writer([1, 2, 3]), COUNTER[:]) == expected


def shifted_through_a_global(n):
    for i in range(n - 1):
        SHIFTED[i] = read_next(i) * 0.5 + SHIFTED[i]   # the function reads what the loop writes next
    return SHIFTED[0]


SHIFTED = [float(i % 5) for i in range(64)]


def read_next(i):
    return SHIFTED[i + 1]


def test_a_global_list_under_two_names_keeps_its_dependences():
    start = SHIFTED[:]
    plain = shifted_through_a_global(64), SHIFTED[:]
    SHIFTED[:] = start
    fast = megaguards.jit(shifted_through_a_global)
    assert (fast(64), SHIFTED[:]) == plain
    [record] = [site for site in site_for(fast) if site["compiled_runs"]]
    assert record["parallel_depth"] == 0 and any("dependence on 'SHIFTED'" in r for r in record["reasons"])


@pytest.mark.parametrize("function, arguments, reason", [
    (fibs, ([0] * 8,), "recursive call to 'fib'"),
    (mixed, ([1, 2], [0, 0]), "the value returned by 'true_or_count'"),
])
def test_calls_that_stay_in_cpython_say_why(function, arguments, reason):
    fast = assert_same_as_cpython(function, *arguments, compiled=False)
    reasons = " ".join(r for site in site_for(fast) for r in site["reasons"])
    assert reason in reasons


def test_rebinding_the_called_name_falls_back():
    def run(helper, xs):
        total = 0.0
        for i in range(len(xs)):
            total += helper(xs[i])
        return total

    fast = assert_same_as_cpython(run, inverse, [1.0, 2.0])
    assert fast(lambda v: v * 3.0, [1.0, 2.0]) == 9.0
    assert any("another function than the one inlined" in r for site in site_for(fast) for r in site["reasons"])


# --- the pure parts -----------------------------------------------------------------

def test_bind_arguments_follows_python_rules():
    import ast

    definition = ast.parse("def f(a, b=1, *, c=2): pass").body[0]
    assert inline.bind_arguments(definition, "f", ["x"], {"c": "z"}) == {"a": "x", "b": None, "c": "z"}
    for positional, keywords in ((["x", "y", "z"], {}), ([], {"b": "y"}), (["x"], {"a": "y"})):
        with pytest.raises(inline.Unsupported):
            inline.bind_arguments(definition, "f", positional, keywords)


def test_structured_returns_leave_no_return_statement():
    import ast

    body = ast.parse("for i in range(3):\n    if i > 1:\n        return i\nreturn -1").body
    rewritten = inline.structure_returns(body, "r", "done", True, "f")
    assert not any(isinstance(n, ast.Return) for s in rewritten for n in ast.walk(s))
    # A path without 'return' whose value is used ends in the stop CPython takes over from.
    ended = inline.structure_returns(ast.parse("if x:\n    return 1").body, "r", "done", True, "f")
    stops = [n for s in ended for n in ast.walk(s) if isinstance(n, ast.Raise)]
    assert len(stops) == 1 and stops[0].returns_none
    assert not inline.structure_returns(ast.parse("if x:\n    return 1").body, "r", "done", False, "f")[0].orelse


# --- tuples of scalars: one variable per component ---------------------------------

def polar(x, y):
    return math.sqrt(x * x + y * y), math.atan2(y, x)


def ordered(a, b):
    if a < b:
        return a, b
    return b, a


def spread(pair):
    return pair[1] - pair[-2]


def tuple_values(xs, ys, out):
    for i in range(len(xs)):
        r, theta = polar(xs[i], ys[i])
        low, high = ordered(xs[i], ys[i])
        out[i] = r + theta + (high - low) + spread(ordered(ys[i], xs[i]))
    return out


def test_functions_returning_tuples(device):
    xs = [0.5 * k - 2 for k in range(10)]
    ys = [1.5 - 0.25 * k for k in range(10)]
    assert_same_as_cpython(tuple_values, xs, ys, [0.0] * 10)


def tuple_in_the_loop(xs):
    for i in range(len(xs)):
        pair = (xs[i], 2 * xs[i])
    return pair


def test_a_tuple_visible_after_the_loop_stays_in_cpython():
    fast = assert_same_as_cpython(tuple_in_the_loop, [1, 2, 3], compiled=False)
    assert any("a tuple assigned to 'pair'" in r for site in site_for(fast) for r in site["reasons"])


def blend(src, dst, weight, shift=0):
    for i in range(1, len(src) - 1):
        dst[i] = weight * (src[i - 1] + src[i + 1]) + (1 - 2 * weight) * src[i] + shift


def blended(a, b, steps):
    for t in range(steps):
        blend(a, b, 0.25)
        blend(b, a, -0.5, shift=1)
    return a


def test_number_literals_as_arguments_are_substituted():
    fast = assert_same_as_cpython(blended, [float(k % 5) for k in range(30)], [0.0] * 30, 4)
    assert site_for(fast)[0]["compiled_runs"] == 1


def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x


def clamped(xs, out):
    for i in range(len(xs)):
        out[i] = clamp(xs[i], -1.5, 2.0)
    return out


def test_returning_a_parameter_bound_to_a_literal():
    assert_same_as_cpython(clamped, [-3.0, 0.5, 2.5], [0.0] * 3)


def plus_one(x):
    return x + 1.0


def minus_one(x):
    return x - 1.0


def test_swapping_a_function_code_is_seen():
    def run(xs, out):
        for i in range(len(xs)):
            out[i] = plus_one(xs[i])
        return out

    import megaguards

    fast = megaguards.jit(run)
    saved = plus_one.__code__
    try:
        assert fast([1.0, 2.0], [0.0, 0.0]) == [2.0, 3.0]
        plus_one.__code__ = minus_one.__code__
        assert fast([1.0, 2.0], [0.0, 0.0]) == [0.0, 1.0]
    finally:
        plus_one.__code__ = saved


def test_a_closure_reading_a_variable_the_loop_assigns_stays_in_cpython():
    def accumulate(xs):
        total = 0.0

        def plus_total(x):
            return x + total
        for i in range(len(xs)):
            total += plus_total(xs[i])  # Python's calls see each new total
        return total

    fast = assert_same_as_cpython(accumulate, [1.0, 2.0, 3.0], compiled=False)
    assert any("this loop assigns" in r for site in site_for(fast) for r in site["reasons"])


def test_callee_source_comes_from_linecache_with_inspects_answer(tmp_path):
    import importlib.util
    import inspect

    from megaguards.errors import Unsupported
    from megaguards.frontend.inline import source_lines

    path = tmp_path / "helpers_for_source.py"
    path.write_text("X = 1\n\n\ndef twice(v):\n    return 2 * v\n\n\nhalf = lambda v: v / 2\n")
    spec = importlib.util.spec_from_file_location("helpers_for_source", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for function in (module.twice, module.half):
        assert source_lines(function.__code__) == inspect.getsourcelines(function.__code__)
    namespace: dict = {}
    exec(compile("def hidden(v):\n    return v\n", "<no file>", "exec"), namespace)
    with pytest.raises(Unsupported, match="source of function 'hidden' is not available"):
        source_lines(namespace["hidden"].__code__)


def test_callee_blocks_by_indentation_and_inspects_block_when_cut_short(tmp_path):
    """A def is delimited by indentation (no tokenizer); a column-0 line inside a string
    or brackets cuts it short, and the definition is then read with inspect's block."""
    import importlib.util
    import inspect

    from megaguards.frontend.inline import definition, source_lines

    path = tmp_path / "helpers_for_blocks.py"
    path.write_text(
        "import functools\n\n\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def decorated(v,\n"
        "):\n"
        "    # a comment\n"
        "    return v + 1\n"
        "    # trailing comment\n\n\n"
        "def documented(v):\n"
        '    """A docstring with a line at column 0:\n'
        "that line.\"\"\"\n"
        "    total = (v +\n"
        "1)\n"
        "    return total\n\n\n"
        "def one_liner(v): return v * 3\n"
        "AFTER = 1\n")
    spec = importlib.util.spec_from_file_location("helpers_for_blocks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    decorated = module.decorated.__wrapped__
    assert source_lines(decorated.__code__) == inspect.getsourcelines(decorated.__code__)
    cut, _ = source_lines(module.documented.__code__)
    exact, _ = source_lines(module.documented.__code__, exact=True)
    assert len(cut) < len(exact) and exact == inspect.getsourcelines(module.documented.__code__)[0]
    for function in (decorated, module.documented, module.one_liner):
        node = definition(function.__code__)
        assert node.name == function.__name__ and node.lineno == function.__code__.co_firstlineno + (
            1 if function is decorated else 0)
    assert [type(s).__name__ for s in definition(module.documented.__code__).body] == ["Expr", "Assign", "Return"]


def test_a_callee_with_a_column_0_string_line_is_inlined_and_matches_cpython(tmp_path):
    script = tmp_path / "column0.py"
    script.write_text(
        "def scaled(v):\n"
        '    """Scale:\n'
        'by three."""\n'
        "    return 3.0 * v\n\n\n"
        "values = [float(k) for k in range(50)]\n"
        "out = [0.0] * 50\n"
        "for i in range(50):\n"
        "    out[i] = scaled(values[i])\n"
        "print(sum(out))\n")
    from conftest import run_megaguards, run_python

    expected = run_python(script)
    report = tmp_path / "report.json"
    result = run_megaguards("run", "--report-json", report, script)
    assert result.returncode == 0 and result.stdout == expected.stdout
    import json
    loops = json.loads(report.read_text())["loops"]
    assert any(loop["compiled_runs"] > 0 for loop in loops), loops


def _defined(source: str):
    import ast
    import textwrap

    return ast.parse(textwrap.dedent(source)).body[0]


@pytest.mark.parametrize("source, expected", [
    ("def f(self):\n    I, m = self.i, self.m\n    return m[I] + len(m)\n", (("m", "self.m"),)),
    ("def f(self):\n    m = self.m\n    return m[0]\n", (("m", "self.m"),)),
    ("def f(self):\n    m = self.m\n    self.m = [1.0]\n    return m[0]\n", ()),        # the path rebound
    ("def f(self):\n    m = self.m\n    self.reset()\n    return m[0]\n", ()),         # a method of its head
    ("def f(self):\n    m = self.m\n    return m\n", ()),                              # used as a value
    ("def f(self):\n    if self.k:\n        m = self.m\n    return m[0]\n", ()),       # not at the function's level
    ("def f(self):\n    m = self.m\n    m = self.n\n    return m[0]\n", ()),           # assigned twice
    ("def f(self):\n    x = m[0]\n    m = self.m\n    return x\n", ()),                # used before
    ("def f(a):\n    a = a.b\n    m = a.c\n    return m[0]\n", ()),                    # the head is a local
    ("def f(self):\n    m, n = self.m, m\n    return m[0]\n", ()),                     # used in its own statement
])
def test_locals_naming_an_array_held_at_a_path(source, expected):
    """``m = self.m`` then ``m[i]`` (scimark's generator) reads ``self.m[i]``; anything that
    could make ``m`` another array than the path holds keeps the local as it is."""
    aliases, statements = inline.array_locals(_defined(source))
    assert aliases == expected
    assert len(statements) == len(_defined(source).body) - (source.count("\n    m = ") if expected else 0)


class Generator:
    def __init__(self):
        self.state, self.table, self.drawn = 3, [0.5, 1.5, 2.5, 3.5], 0

    def draw(self):
        k, table = self.state, self.table
        self.state = (k * 5 + 1) % 4
        self.drawn += 1
        return table[k]


def draw_sum(make, n):
    generator = make()
    total = 0.0
    for _ in range(n):
        total += generator.draw()
    return total, generator.state, generator.drawn


def test_a_method_keeping_state_in_its_object_compiles():
    """``self.state = ...`` in a method the loop calls: a variable of the loop named
    ``generator.state``, set on the object after the run (Site.set_after)."""
    fast = assert_same_as_cpython(draw_sum, Generator, 1000)
    assert fast(Generator, 5) == draw_sum(Generator, 5) == (11.5, 0, 5)


def energy_of(velocity, mass):
    return 0.5 * mass * sum(v * v for v in velocity)


def peak_of(values):
    best = values[0]
    for v in values:
        if v > best:
            best = v
    return best


def energies(velocities, masses, n):
    total = 0.0
    peaks = 0
    for p in range(n):
        total += energy_of(velocities[p], masses[p])
        peaks += peak_of(velocities[p])
    return total, peaks


def test_a_row_passed_to_a_function_that_iterates_it_is_read_in_place():
    """``sum(v * v for v in velocity)`` and ``for v in values`` over a parameter: the argument
    ``velocities[p]`` is a row of the list (inline.array_parameters), not an element."""
    velocities = [[p % 7 + 0.5, (p % 5) / 2.0, 3.0, (p % 3) * 0.25] for p in range(50)]
    masses = [1 + p % 4 for p in range(50)]
    assert_same_as_cpython(energies, velocities, masses, 50)
    assert_same_as_cpython(energies, velocities, masses, 51, compiled=None)   # IndexError, as in CPython
    mixed = [[p % 7, (p % 5) / 2.0, 3, (p % 3) * 0.25] for p in range(50)]   # ints and floats
    # sum() of ints and floats: on 3.12+ each step tests the classes (compensation.BY_CLASS)
    assert_same_as_cpython(energies, mixed, masses, 50)
