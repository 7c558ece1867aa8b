"""``megaguards explain``: each loop's line as written, what ran (not what could have), a
summary line, a hint of what to change under the frequent reasons, no names megaguards
generated, device details only with ``--verbose``, no generated source with ``--no-source``;
and the report's backend saying what ran."""
import json
import os
import re
import textwrap
from pathlib import Path

import pytest

from conftest import run_megaguards
from megaguards.diagnostics.hints import HINTS, hint_for
from megaguards.diagnostics.names import user_name, user_names
from megaguards.diagnostics.report import NO_SUBSCRIPTS
from megaguards.guards.assumptions import Assumption
from megaguards.runtime import tiering

ROOT = Path(__file__).resolve().parent.parent
CORES = os.cpu_count() or 1

SCRIPT = """\
import functools


def scale(xs, out):
    for i in range(len(xs)):
        out[i] = xs[i] * 2.0


def noisy(xs):
    for i in range(len(xs)):
        if xs[i] < 0:
            print("negative at", i)


def from_dict(d):
    s = 0
    for k in range(3):
        s += d[k]
    return s


def doubled(xs):
    return [x * 2 for x in xs]


def total(xs):
    return functools.reduce(lambda p, q: p + q, xs, 0)


xs = [-1.0, 0.5, 1.5, 2.5]
out = [0.0] * 4
scale(xs, out)
noisy(xs)
print(out[-1], from_dict({0: 1, 1: 2, 2: 3}), doubled(xs)[0], total([1, 2, 3]))
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("explain") / "prog.py"
    path.write_text(SCRIPT)
    return path


def blocks(stderr: str) -> dict:
    """The paragraph of each loop, by its line."""
    found = {}
    for block in stderr.split("\n\n"):
        head = re.search(r"^loop at prog\.py:(\d+)", block, re.MULTILINE)
        if head:
            found[int(head.group(1))] = block[head.start():]
    return found


# -- the display-side names and hints ---------------------------------------------------------

def test_generated_names_become_what_the_user_wrote():
    assert user_names("loop 'mg_tmp0' at line 35: scalar 's' carries a value") == \
        "the loop at line 35: scalar 's' carries a value"
    assert user_names("line 42: range of loop variable 'mg_k0' within int64") == \
        "line 42: range of the loop's counter within int64"
    assert user_names("scalar 'mg_tmp_0_4step_r' carries a value; 'mg_tmp_3_4norm_return' too") == \
        "scalar 'r' (in 'step') carries a value; the value returned by 'norm' too"
    # Names whose function ends in digits or holds underscores, and locals with underscores.
    from megaguards.ir import nodes as ir
    for function, local in (("step2", "r"), ("step_2d", "my_var"), ("f", "x_1"), ("_lambda_", "return")):
        name = ir.inlined_prefix(function, 12) + local
        assert ir.inlined_local(name) == (function, local)
    assert user_names(ir.inlined_prefix("rk4", 7) + "k_2") == "'k_2' (in 'rk4')"
    assert ir.describe_name(ir.inlined_prefix("phase2", 3) + "return") == "the value returned by 'phase2'"
    assert ir.inlined_local("mg_tmp12") is None and ir.inlined_local("mg_tmp_while") is None
    assert user_names("private: mg_value, x; reductions: mg_acc (+)") == \
        "private: the element's value, x; reductions: the running value (+)"
    assert user_names("mg_n0: py_int, mg_out: list[1-D, py_float], mg_q0_0: list[1-D, py_int]") == \
        "the number of elements: py_int, the new list: list[1-D, py_float], the sequence iterated: list[1-D, py_int]"
    assert "mg_" not in user_names("loop 'mg_tmp_while' at line 3; 'mg_returned', mg_tmp_d4, mg_b0, __mg0")
    # the user's own names stay, even one that starts like ours
    assert user_names("loop 'i' at line 3: 'mg_mine' and amg_x0_0") == "loop 'i' at line 3: 'mg_mine' and amg_x0_0"
    assert user_name("total") is None and user_name("mg_tmp7") == "a value megaguards introduced"


def real_reasons() -> list[str]:
    """Reason texts as megaguards gives them: those the docs quote, and the runtime's own."""
    quoted = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        quoted += [part for line in page.read_text().splitlines() for part in line.split("`")[1::2]]
    parallel = (ROOT / "src/megaguards/analysis/parallel.py").read_text()
    assert f'"{NO_SUBSCRIPTS}"' in parallel
    return quoted + [tiering.LITTLE.format(3), tiering.COLD.format(30), NO_SUBSCRIPTS,
                     "guard: " + Assumption.ARRAY_CLASS.value[0].format(cls="dict"),
                     "guard: " + Assumption.PLAIN_ATTRIBUTE_ACCESS.value[0].format(cls="dict")]


@pytest.mark.parametrize("pattern", list(HINTS))
def test_each_hint_matches_a_real_reason(pattern):
    matched = [reason for reason in real_reasons() if re.search(pattern, reason)]
    assert matched, pattern


def test_hints_of_the_issues_reasons():
    assert hint_for("line 20: call to 'print' as a statement (side effects)").startswith("move the print out")
    assert "row = [], row.append(v), table.append(row)" in hint_for("line 12: list display")
    assert "into a list before the loop" in hint_for("guard: dict customises attribute access")
    assert "local variable" in hint_for("guard: Config customises attribute access")
    assert hint_for(tiering.LITTLE.format(3)) == "nothing to change: too little work to gain from compiling"
    assert "instead of a dict" in hint_for("guard: an array live-in is a dict, not a list or NumPy array")
    assert hint_for("something megaguards never says") is None
    over = "line 3: 'for' over something other than range(...)"
    assert hint_for(over).startswith("iterate over range")
    assert hint_for(over, "return [sum(r[1:]) for r in rows]").startswith("index elements one by one")
    assert len(HINTS) >= 20


# -- explain through the command line ---------------------------------------------------------

def test_each_loop_shows_its_line_what_ran_and_a_hint(script):
    result = run_megaguards("explain", "--no-source", script)
    assert result.returncode == 0 and result.stdout == "negative at 0\n5.0 6 -2.0 6\n", result.stderr
    loops = blocks(result.stderr)
    assert sorted(loops) == [5, 10, 17, 23, 27]
    assert loops[5].splitlines()[1] == "    for i in range(len(xs)):"
    assert loops[23].splitlines()[1] == "    return [x * 2 for x in xs]"
    noisy = loops[10]
    assert "stayed in CPython" in noisy and "hint: move the print out of the loop" in noisy
    assert "hint: index a list or NumPy array instead of a dict" in loops[17]
    if CORES > 1:
        assert "compiled, ran in parallel, on up to" in loops[5] and "backend c-omp" in loops[5]
    # no generated names anywhere (the generated code, which has them, is left out)
    assert "mg_" not in result.stderr, result.stderr
    assert "the loop at line 23: parallel (OpenMP)" in loops[23] or "the loop at line 23: can run" in loops[23]


def test_summary_counts_the_loops_entered(script):
    stderr = run_megaguards("explain", "--no-source", script).stderr
    last = stderr.rstrip().splitlines()[-1]
    parallel = f" (3 in parallel, on {CORES} cores)" if CORES > 1 else ""
    assert last == f"megaguards: 3 of 5 loops compiled{parallel}, 2 stayed in CPython", stderr


def test_device_details_only_with_verbose(script):
    plain = run_megaguards("explain", "--no-source", script, env={"MEGAGUARDS_SELECT": "tree"}).stderr
    assert "features:" not in plain and "predicted:" not in plain and "seconds:" not in plain
    verbose = run_megaguards("explain", "--no-source", "--verbose", script,
                             env={"MEGAGUARDS_SELECT": "tree"}).stderr
    assert "seconds: analysis" in verbose and "device: " in verbose
    assert "features: work" in verbose and "predicted:" in verbose


def test_no_source_drops_the_c_and_the_cuda(script, tmp_path):
    full = run_megaguards("explain", "--device", "gpu", script).stderr
    assert "generated C:" in full and "int mg_kernel(" in full
    assert "CUDA kernel:" in full   # rendered (and NVRTC-checked where it is installed), GPU or not
    bare = run_megaguards("explain", "--device", "gpu", "--no-source", script).stderr
    assert "generated C:" not in bare and "CUDA kernel:" not in bare and "__global__" not in bare
    assert "mg_kernel" not in bare


# -- what ran: the report's backend -----------------------------------------------------------

def test_backend_says_what_ran(script, tmp_path):
    report = tmp_path / "r.json"
    run_megaguards("run", "--report-json", report, script, env={"MEGAGUARDS_THREADS": "1"})
    loops = {loop["line"]: loop for loop in json.loads(report.read_text())["loops"]}
    assert loops[5]["backend"] == "c-seq" and loops[5]["parallel_depth"] == 1   # one thread: no c-omp
    assert loops[5]["source"] == "for i in range(len(xs)):" and loops[10]["backend"] is None
    text = run_megaguards("explain", "--no-source", script, env={"MEGAGUARDS_THREADS": "1"}).stderr
    assert "loop 'i' at line 5: can run in parallel (OpenMP), ran on one core" in text


def test_backend_counts_the_threads_the_kernel_ran_with(script, tmp_path):
    """Two threads allowed, but each entry's work below MEGAGUARDS_PARALLEL_WORK: the all-cores
    kernel runs the loop on one thread, and the report says so (it said c-omp)."""
    if CORES < 2:
        pytest.skip("one usable core")
    report = tmp_path / "r.json"
    for work, backend in (("1000000000", "c-seq"), ("0", "c-omp")):
        run_megaguards("run", "--report-json", report, "--device", "cpu", script,
                       env={"MEGAGUARDS_THREADS": "2", "MEGAGUARDS_PARALLEL_WORK": work})
        loops = {loop["line"]: loop for loop in json.loads(report.read_text())["loops"]}
        assert (loops[5]["backend"], loops[5]["parallel_depth"]) == (backend, 1), work


REDUCE = """\
def total(xs):
    s = 0.0
    for i in range(len(xs)):
        s += xs[i] * xs[i] + 1.0
    return s


print(total([0.5] * 64))
"""


def test_reassociated_only_where_it_ran_in_parallel(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(REDUCE))
    environment = {"MEGAGUARDS_REASSOCIATE": "1", "MEGAGUARDS_THREADS": "1"}
    one = run_megaguards("explain", "--no-source", script, env=environment)
    assert one.stdout == "80.0\n" and "backend c-seq" in one.stderr
    assert "reassociated" not in one.stderr, one.stderr
    if CORES > 1:
        several = run_megaguards("explain", "--no-source", script, env={**environment, "MEGAGUARDS_THREADS": "2"})
        assert "backend c-omp" in several.stderr and "(float, reassociated)" in several.stderr, several.stderr


def test_report_table_shows_names_as_written(script):
    stderr = run_megaguards("run", "--report", script).stderr
    assert "megaguards loop report" in stderr and "mg_" not in stderr
    assert "call to 'print' as a statement" in stderr


NO_SUBSCRIPTS_SCRIPT = """\
def constant_steps(n):
    s = 0.0
    for i in range(n):
        s += 0.5
    return s


def counting(n):
    s = 0
    i = 0
    while i < n:
        s += 3
        i += 1
    return s


print(constant_steps(10), counting(10))
"""


def test_no_subscripts_proven_only_where_it_explains_checks_left(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(NO_SUBSCRIPTS_SCRIPT)
    report = tmp_path / "r.json"
    result = run_megaguards("explain", "--no-source", "--report-json", report, script)
    assert result.stdout == "5.0 30\n", result.stderr
    records = {loop["line"]: loop for loop in json.loads(report.read_text())["loops"]}
    assert all(NO_SUBSCRIPTS in records[line]["reasons"] for line in (3, 11))   # the JSON keeps every reason
    loops = blocks(result.stderr)
    assert "proven in range" not in loops[3] and records[3]["checks_in_loop"] == 0
    checks = records[11]["checks_in_loop"]
    assert checks and f"reason: {checks} check(s) left inside the loop (bounds, overflow, zero): nothing in it " \
                      "could be proven in range before the loop" in loops[11]
    assert NO_SUBSCRIPTS not in result.stderr
