"""``%load_ext megaguards`` in a real IPython shell: cells' loops compiled, magics, unloading."""
import linecache

import pytest

pytest.importorskip("IPython")

import megaguards  # noqa: E402
from megaguards import config  # noqa: E402
from megaguards.runtime.site import REGISTRY  # noqa: E402

PREPARE = "n = 2000\na = [k * 0.37 - 3.0 for k in range(n)]\nb = [0.0] * n\n"
AFFINE_LOOP = "for i in range(n):\n    b[i] = a[i] * 2.0 + 1.0\n"


@pytest.fixture
def shell():
    from IPython.testing import globalipapp

    shell = globalipapp.get_ipython()
    device = config.current().device
    shell.run_line_magic("load_ext", "megaguards")
    yield shell
    if "megaguards" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "megaguards")
    config.configure(device=device)
    shell.reset(new_session=False)


def run(shell, cell):
    """Run a cell as Jupyter would; the records of the loop sites it created."""
    from megaguards.diagnostics.report import loop_record

    first = len(REGISTRY.sites)
    result = shell.run_cell(cell)
    return result, [loop_record(site) for site in REGISTRY.sites[first:] if site.stats.entries]


def expected_affine():
    n = 2000
    a = [k * 0.37 - 3.0 for k in range(n)]
    return [a[i] * 2.0 + 1.0 for i in range(n)]


def test_cell_loop_compiles_with_cpython_values(shell):
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    assert result.success
    assert shell.user_ns["b"] == expected_affine() and shell.user_ns["i"] == 1999
    loop = next(loop for loop in loops if loop["line"] == 4)  # the for loop, at its cell line
    assert loop["file"].startswith("<ipython-input-") and loop["compiled_runs"] == 1, loop
    assert any(entry["file"] == loop["file"] and entry["line"] == 4 and entry["compiled_runs"] > 0
               for entry in megaguards.report()["loops"])
    assert "__megaguards_in__" not in shell.user_ns and "__megaguards_out__" not in shell.user_ns


def test_off_falls_back_and_on_restores_the_device(shell, capsys):
    device = config.current().device
    shell.run_cell("%megaguards off")
    assert config.current().device == "off"
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    assert result.success and shell.user_ns["b"] == expected_affine()
    loop = next(loop for loop in loops if loop["line"] == 4)
    assert loop["compiled_runs"] == 0 and loop["fallback_runs"] == 1
    assert any("megaguards is off" in reason for reason in loop["reasons"]), loop
    capsys.readouterr()
    shell.run_cell("%megaguards on")
    assert config.current().device == device
    assert f"megaguards is on (device {device})" in capsys.readouterr().out
    shell.run_cell("%megaguards")
    assert capsys.readouterr().out.startswith("megaguards is on")


def test_report_magic_lists_the_cell_loop(shell, capsys):
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    capsys.readouterr()
    shell.run_cell("%megaguards report")
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.startswith(f"{loops[-1]['file']}:4"))
    assert row.split()[1:4] == ["1", "1", "0"], table  # entries, compiled, fallback


def test_explain_cell_magic_shows_only_that_cells_loops(shell, capsys):
    run(shell, PREPARE + AFFINE_LOOP)
    first_cell = megaguards.report()["loops"][-1]["file"]
    capsys.readouterr()
    result, loops = run(shell, "%%megaguards --explain\nc = [0.0] * n\nfor j in range(n):\n    c[j] = a[j] - 0.5\n")
    output = capsys.readouterr().out
    assert result.success and shell.user_ns["c"] == [x - 0.5 for x in shell.user_ns["a"]]
    assert "generated C:" in output and "a_c[" in output
    assert ":2: entered 1x, compiled 1x" in output and first_cell not in output
    run(shell, "%%megaguards --explain --no-source\nfor j in range(n):\n    c[j] = a[j] + 0.5\n")
    output = capsys.readouterr().out
    assert "specialization for" in output and "generated C" not in output


def test_unknown_flags_print_usage_and_run_nothing(shell, capsys):
    result = shell.run_cell("%%megaguards --fast\nnever_assigned = 1\n")
    assert capsys.readouterr().out.strip() == "usage: %%megaguards [--explain] [--no-source]"
    assert result.success and "never_assigned" not in shell.user_ns
    shell.run_cell("%megaguards sideways")
    assert capsys.readouterr().out.strip() == "usage: %megaguards [on|off|report]"


def test_exception_in_compiled_loop_is_cpythons(shell, capsys):
    cell = "a = [k * 0.5 for k in range(20)]\nb = [0.0] * 10\nfor i in range(20):\n    b[i] = a[i] + 1.0\n"
    result, loops = run(shell, cell)
    error = result.error_in_exec
    assert isinstance(error, IndexError) and str(error) == "list assignment index out of range"
    assert shell.user_ns["b"] == [k * 0.5 + 1.0 for k in range(10)] and shell.user_ns["i"] == 10
    loop = next(loop for loop in loops if loop["line"] == 3)
    assert loop["compiled_runs"] == 0 and loop["fallback_runs"] == 1  # tried, then deoptimized
    frames = []
    traceback = error.__traceback__
    while traceback:
        frames.append((traceback.tb_frame.f_code.co_filename, traceback.tb_lineno))
        traceback = traceback.tb_next
    assert frames[-1] == (loop["file"], 4)
    assert "----> 4     b[i] = a[i] + 1.0" in capsys.readouterr().out


def test_explained_cell_that_raises_fails_like_the_plain_cell(shell, capsys):
    cell = "%%megaguards --explain\nxs = [0.5] * 8\nfor i in range(9):\n    xs[i] = xs[i] + 1.0\n"
    result = shell.run_cell(cell)
    assert isinstance(result.error_in_exec, IndexError) and shell.user_ns["xs"] == [1.5] * 8
    output = capsys.readouterr().out
    assert "----> 3     xs[i] = xs[i] + 1.0" in output
    assert ":2: entered 1x, compiled 0x, in CPython 1x" in output and "runtime flag: index out of range" in output


def test_syntax_error_cell_behaves_as_plain_ipython(shell, capsys):
    first = len(REGISTRY.sites)
    result = shell.run_cell("for i in range(3)\n    x = i\n")
    assert isinstance(result.error_before_exec, SyntaxError) and result.error_before_exec.lineno == 1
    assert "SyntaxError" in capsys.readouterr().out and len(REGISTRY.sites) == first
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    assert result.success and loops[-1]["compiled_runs"] == 1


def test_functions_defined_in_cells_are_inlined_from_their_source(shell):
    shell.run_cell("def scale(x):\n    return x * 2.0 + 1.0\n")
    result, loops = run(shell, PREPARE + "for i in range(n):\n    b[i] = scale(a[i])\n")
    assert result.success and shell.user_ns["b"] == expected_affine()
    assert loops[-1]["compiled_runs"] == 1, loops[-1]["reasons"]


def test_function_whose_cell_source_is_gone_falls_back_with_the_reason(shell):
    shell.run_cell("def shifted(x):\n    return x + 1.0\n")
    del linecache.cache[shell.user_ns["shifted"].__code__.co_filename]
    result, loops = run(shell, PREPARE + "for i in range(n):\n    b[i] = shifted(a[i])\n")
    assert result.success and shell.user_ns["b"] == [x + 1.0 for x in shell.user_ns["a"]]
    loop = loops[-1]
    assert loop["compiled_runs"] == 0
    assert any("the source of function 'shifted' is not available" in r for r in loop["reasons"]), loop


def test_failed_rewrite_leaves_the_statement_as_written(shell, monkeypatch, caplog):
    import ast

    from megaguards import ipython
    from megaguards.frontend.rewrite import rewrite_module

    def uncompilable(tree, filename, register):  # a rewrite bug: its output does not compile
        tree, count = rewrite_module(tree, filename, register)
        tree.body.append(ast.Return(value=None, lineno=1, col_offset=0))
        return tree, count
    monkeypatch.setattr(ipython, "rewrite_module", uncompilable)
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    assert result.success and shell.user_ns["b"] == expected_affine() and loops == []
    assert "left unchanged" in caplog.text

    def broken(tree, filename, register):
        raise RuntimeError("rewrite bug")
    monkeypatch.setattr(ipython, "rewrite_module", broken)
    result, loops = run(shell, PREPARE + AFFINE_LOOP)
    assert result.success and shell.user_ns["b"] == expected_affine() and loops == []
    assert any(isinstance(t, ipython.CellRewriter) for t in shell.ast_transformers)  # IPython kept it


def test_unload_removes_the_transformer_and_magics(shell):
    from megaguards import ipython

    shell.run_cell("def doubled(xs):\n    out = [0.0] * len(xs)\n    for i in range(len(xs)):\n"
                   "        out[i] = xs[i] * 2.0\n    return out\n")
    shell.run_line_magic("unload_ext", "megaguards")
    assert not any(isinstance(t, ipython.CellRewriter) for t in shell.ast_transformers)
    assert "megaguards" not in shell.magics_manager.magics["line"]
    assert "megaguards" not in shell.magics_manager.magics["cell"]
    first = len(REGISTRY.sites)
    result = shell.run_cell(PREPARE + AFFINE_LOOP + "twice = doubled(a)\n")
    assert result.success and shell.user_ns["b"] == expected_affine()
    assert len(REGISTRY.sites) == first  # the new cell was not rewritten
    assert shell.user_ns["twice"] == [x * 2.0 for x in shell.user_ns["a"]]  # earlier sites still work
    shell.run_line_magic("load_ext", "megaguards")
    assert sum(isinstance(t, ipython.CellRewriter) for t in shell.ast_transformers) == 1
