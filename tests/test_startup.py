"""Start-up costs nothing until a loop site is entered (issue 25): a script that enters no
loop imports none of the heavy stages, and rewritten modules come from the rewrite cache
(runtime/rewrites.py), as ``.pyc`` files do.  No timings here: benchmarks/startup.py
measures them."""
from __future__ import annotations

import ast
import functools
import json
import os
import sys
import textwrap
import types

import pytest

import conftest
from conftest import run_python
from megaguards import config
from megaguards.frontend.siteinfo import ExpressionInfo, SiteInfo, restored_info, site_record, skip_name
from megaguards.runtime import process, rewrites
from megaguards.runtime.site import REGISTRY, install_site_names

# What a process that enters no loop must not import: NumPy, islpy, CuPy, the analyses, the
# code generators, the IR, the guards, the lowering, and the runtime's back end.
HEAVY = ("numpy", "islpy", "cupy", "megaguards.analysis", "megaguards.codegen", "megaguards.ir",
         "megaguards.guards", "megaguards.frontend.lower", "megaguards.frontend.lower_calls",
         "megaguards.runtime.backend", "megaguards.runtime.pipeline", "megaguards.runtime.kernel",
         "megaguards.runtime.select", "megaguards.runtime.selector", "megaguards.runtime.costmodel",
         "megaguards.runtime.cuda", "megaguards.runtime.compiler", "megaguards.runtime.marshal",
         "megaguards.runtime.expression_forms", "megaguards.runtime.data", "megaguards.diagnostics")
# ... and, once the script's rewrite is cached, not the rewrite either (nor what it imports).
REWRITE = ("megaguards.frontend.rewrite", "megaguards.frontend.comprehension", "megaguards.frontend.scope",
           "megaguards.frontend.desugar",
           "dataclasses", "inspect", "hashlib", "pickle")
PRINT_MODULES = "import sys\nprint(sorted(sys.modules))\n"
# The subprocesses import this megaguards, whatever the folder they run in.
SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(config.__file__)))


def run_megaguards(*arguments, env=None, cwd=None):
    path = os.pathsep.join(filter(None, (SOURCE, os.environ.get("PYTHONPATH"))))
    return conftest.run_megaguards(*arguments, env={"PYTHONPATH": path, **(env or {})}, cwd=cwd)


def write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def imported(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


@functools.lru_cache(maxsize=None)
def python_own_modules() -> frozenset:
    """What plain ``python`` imports before any code of ours on this machine (a site hook of
    some images imports ``inspect``): not megaguards' cost."""
    return frozenset(imported(run_python_code(PRINT_MODULES)))


def heavy_among(modules, prefixes) -> list[str]:
    own = python_own_modules()
    return [name for name in modules
            if name not in own and any(name == p or name.startswith(p + ".") for p in prefixes)]


@pytest.mark.parametrize("device", ["auto", "off", "seq"])
def test_a_script_that_enters_no_loop_imports_nothing_heavy(tmp_path, device):
    """Not even with loops defined in it and in a module it imports, never called; the
    second process, its rewrites cached, imports no part of the rewrite either."""
    write(tmp_path, "helper.py", """
        def total(a):
            s = 0
            for i in range(len(a)):
                s += a[i]
            return s + sum(x * x for x in a) + sum([x for x in a])
    """)
    script = write(tmp_path, "main.py", "import helper\n\ndef unused(n):\n    for i in range(n):\n"
                                        "        print(i)\n\nprint('hello')\n" + PRINT_MODULES)
    environment = {"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")}
    first = run_megaguards("run", "--device", device, script, env=environment, cwd=tmp_path)
    assert first.stdout.startswith("hello\n")
    assert heavy_among(imported(first), HEAVY) == []
    second = run_megaguards("run", "--device", device, script, env=environment, cwd=tmp_path)
    assert heavy_among(imported(second), HEAVY + REWRITE) == []
    assert "megaguards.runtime.rewrites" in imported(second)   # it did go through megaguards


# Standard modules a bare interpreter has not imported, each several ms (pathlib pulls re,
# fnmatch and urllib.parse in): a loop-free run must not pay them.  This machine's start-up
# imports most of them already (site hooks), so the run below is ``python -S``.
BARE_HEAVY = ("pathlib", "typing", "tempfile", "shutil", "importlib.abc", "ast", "dataclasses", "inspect",
              "urllib", "fnmatch")


def test_a_loop_free_run_on_a_bare_interpreter_imports_no_heavy_standard_module(tmp_path):
    import subprocess

    script = write(tmp_path, "main.py", "print('hello')\n" + PRINT_MODULES)
    code = (f"import sys; sys.path.insert(0, {SOURCE!r}); sys.argv = ['megaguards', 'run', {str(script)!r}]; "
            "from megaguards.cli import main; sys.exit(main())")
    environment = dict(os.environ, MEGAGUARDS_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):   # the second run reads the rewrite cache
        result = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120,
                                env=environment, cwd=tmp_path)
    modules = imported(result)
    assert result.stdout.startswith("hello\n") and "megaguards.runtime.rewrites" in modules
    assert [name for name in modules if name.split(".")[0] in BARE_HEAVY or name in BARE_HEAVY] == []


def test_importing_megaguards_imports_nothing_heavy():
    result = run_python_code("import megaguards\n" + PRINT_MODULES)
    assert heavy_among(imported(result), HEAVY + REWRITE + ("megaguards.runtime", "megaguards.frontend")) == []
    result = run_python_code("import megaguards\nmegaguards.install()\n" + PRINT_MODULES)
    assert heavy_among(imported(result), HEAVY + REWRITE) == []


def run_python_code(code: str):
    import subprocess

    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (SOURCE, os.environ.get("PYTHONPATH")))))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=environment)


def modules_after(tmp_path, source: str, output: str) -> list[str]:
    """The modules a ``megaguards run`` of ``source`` imported (its output checked)."""
    result = run_megaguards("run", write(tmp_path, "main.py", source + PRINT_MODULES),
                            env={"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")})
    assert result.stdout.startswith(output)
    return imported(result)


def test_the_first_loop_entry_imports_what_it_needs(tmp_path):
    modules = modules_after(tmp_path, "a = [1.0, 2.0, 3.0]\nfor i in range(3):\n    a[i] = a[i] * 2\nprint(a)\n",
                            "[2.0, 4.0, 6.0]\n")
    assert {"megaguards.runtime.backend", "megaguards.frontend.lower"} <= set(modules)
    assert "numpy" not in modules   # no NumPy value anywhere: NumPy's import (40-60 ms) is not paid


# What a process whose kernels are all cached needs not import: the compiler's process
# handling, OpenSSL's hashes, the Python part of pickle, dataclasses and inspect (issue 25:
# about 20 ms of every compiling run).
COMPILING = ("subprocess", "hashlib", "_hashlib", "pickle", "dataclasses", "inspect", "platform")


def test_a_run_whose_kernels_are_cached_imports_no_compiler_machinery(tmp_path):
    source = "a = [1.0, 2.0, 3.0]\nfor i in range(3):\n    a[i] = a[i] * 2\nprint(sum(x * x for x in a), a)\n"
    first = modules_after(tmp_path, source, "56.0 [2.0, 4.0, 6.0]\n")
    assert "megaguards.runtime.compiler" in first
    second = modules_after(tmp_path, source, "56.0 [2.0, 4.0, 6.0]\n")
    assert "megaguards.runtime.kernel" in second and heavy_among(second, COMPILING) == []


def test_a_loop_that_cannot_compile_imports_no_back_end(tmp_path):
    modules = modules_after(tmp_path, "words = ['a', 'b']\nn = 0\nfor i in range(2):\n    n += len(words[i])\n"
                                      "print(n)\n", "2\n")
    assert "megaguards.frontend.lower" in modules
    assert heavy_among(modules, ("megaguards.runtime.backend", "megaguards.analysis.parallel", "numpy")) == []


def test_numpy_values_compile_with_numpy_imported_by_the_program(tmp_path):
    script = write(tmp_path, "main.py", "import numpy\na = numpy.ones(3)\nfor i in range(3):\n    a[i] = a[i] * 2\n"
                                        "print(a.tolist())\n")
    result = run_megaguards("run", script, env={"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache"),
                                                "MEGAGUARDS_REPORT": str(tmp_path / "report.json")})
    assert result.stdout == "[2.0, 2.0, 2.0]\n"
    assert json.loads((tmp_path / "report.json").read_text())["loops"][0]["compiled_runs"] == 1


PROGRAM = {
    "helper.py": """
        import functools

        def total(a):
            s = 0.0
            for i in range(len(a)):
                s += a[i] * 2
            return s

        def squares(a):
            return [x * x for x in a]

        def odd(a):
            n = 0
            for x in a:
                if x % 2:
                    n += 1
            return n + functools.reduce(lambda p, q: p + q, a)

        def keyed(d, n):
            t = 0
            for i in range(n):
                t += d[i]   # a dict: the guard fails, CPython runs it
            return t
    """,
    "main.py": """
        import helper

        data = [float(k) for k in range(100)]
        for rep in range(3):
            print(helper.total(data), sum(helper.squares(data)), helper.odd(list(range(50))))
        print(helper.keyed({0: 1, 1: 2}, 2))
        grid = [[0] * 4 for _ in range(3)]
        for i in range(3):
            for j in range(4):
                grid[i][j] = i * j
        print(grid)
    """,
}


def run_program(folder, *extra, env=None):
    report = folder / "report.json"
    environment = {"MEGAGUARDS_CACHE_DIR": str(folder / "cache"), "MEGAGUARDS_LOG": "debug", **(env or {})}
    result = run_megaguards("run", "--report-json", report, *extra, folder / "main.py", env=environment,
                            cwd=folder)
    assert result.returncode == 0, result.stderr
    loops = json.loads(report.read_text())["loops"]
    for loop in loops:   # what differs between two runs of the same program: times
        loop.pop("seconds")
    return result, loops


def cached_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "from the rewrite cache" in line]


def entries(folder) -> dict:
    return {path.name: path.read_bytes() for path in sorted((folder / "cache" / "rewrites").iterdir())}


def test_a_second_run_uses_the_rewrite_cache_with_the_same_output_and_report(tmp_path):
    for name, text in PROGRAM.items():
        write(tmp_path, name, text)
    expected = run_python(tmp_path / "main.py", cwd=tmp_path)
    first, first_report = run_program(tmp_path)
    assert first.stdout == expected.stdout and cached_lines(first) == []
    assert len(entries(tmp_path)) == 2
    second, second_report = run_program(tmp_path)
    assert second.stdout == expected.stdout
    assert sorted(line.split("rewrite ")[1].split(":")[0] for line in cached_lines(second)) == ["helper.py", "main.py"]
    assert second_report == first_report
    assert any(loop["compiled_runs"] for loop in first_report)
    assert any("dict" in " ".join(loop["reasons"]) for loop in first_report)   # the same fallbacks
    assert {loop["function"] for loop in first_report} >= {"total", "squares", "odd", "keyed", None}
    # --device off: the same cache (the rewrite does not depend on the device), nothing compiled
    off, off_report = run_program(tmp_path, "--device", "off")
    assert off.stdout == expected.stdout and len(cached_lines(off)) == 2
    assert all(loop["compiled_runs"] == 0 for loop in off_report)


def test_an_edited_module_is_rewritten_and_replaces_its_entry(tmp_path):
    for name, text in PROGRAM.items():
        write(tmp_path, name, text)
    run_program(tmp_path)
    before = entries(tmp_path)
    helper = tmp_path / "helper.py"
    helper.write_text(helper.read_text().replace("s += a[i] * 2", "s += a[i] * 3"))
    expected = run_python(tmp_path / "main.py", cwd=tmp_path)
    edited, _ = run_program(tmp_path)
    assert edited.stdout == expected.stdout and "14850.0" in edited.stdout
    assert [line for line in cached_lines(edited) if "helper.py" in line] == []
    after = entries(tmp_path)
    assert after.keys() == before.keys()   # replaced in place, as a .pyc is
    changed = [name for name in after if after[name] != before[name]]
    assert len(changed) == 1
    again, _ = run_program(tmp_path)
    assert len(cached_lines(again)) == 2 and again.stdout == expected.stdout


@pytest.mark.parametrize("damage", ["flipped", "truncated", "empty", "garbage"])
def test_a_damaged_entry_is_ignored_and_written_again(tmp_path, damage):
    for name, text in PROGRAM.items():
        write(tmp_path, name, text)
    expected = run_python(tmp_path / "main.py", cwd=tmp_path)
    run_program(tmp_path)
    folder = tmp_path / "cache" / "rewrites"
    for path in folder.iterdir():
        data = path.read_bytes()
        path.write_bytes({"flipped": data[:-200] + bytes([data[-200] ^ 0xFF]) + data[-199:],
                          "truncated": data[:len(data) // 2], "empty": b"",
                          "garbage": os.urandom(len(data))}[damage])
    damaged, _ = run_program(tmp_path)
    assert damaged.stdout == expected.stdout and cached_lines(damaged) == []
    assert damaged.stderr.count("ignored") == 2
    repaired, _ = run_program(tmp_path)
    assert repaired.stdout == expected.stdout and len(cached_lines(repaired)) == 2


# -- in this process: the cache's rules, the site keys, the restored infos ------------------


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder, the rewrite cache on, a fresh process (its counters)."""
    monkeypatch.setattr(config, "_current", config.current()._replace(cache_dir=tmp_path / "cache",
                                                                         rewrite_cache=True))
    install_site_names()
    with process.fresh() as fresh:
        yield fresh


MODULE = """
def scale(a, n):
    for i in range(n):
        a[i] = a[i] * 2
    return a

def total(a):
    return sum([x + 1 for x in a])

if False:
    for k in range(3):   # dropped by the compiler: its site is registered, never entered
        pass
"""


def load(source: str, filename: str):
    code = rewrites.compile_module(source, filename, REGISTRY)
    module = types.ModuleType("cached_module")
    exec(code, module.__dict__)
    return module


def test_a_cached_module_registers_the_same_sites_and_runs_the_same(cache, tmp_path):
    filename = str(tmp_path / "module.py")
    first_id = len(REGISTRY.sites)
    fresh = load(MODULE, filename)
    assert cache.rewrites == {"hits": 0, "misses": 1, "stored": 1, "damaged": 0}
    second_id = len(REGISTRY.sites)
    cached = load(MODULE, filename)   # keys already taken in this process: plain site numbers
    assert cache.rewrites["hits"] == 1
    assert len(REGISTRY.sites) - second_id == second_id - first_id == 3
    for old, new in zip(REGISTRY.sites[first_id:second_id], REGISTRY.sites[second_id:]):
        assert type(old) is type(new) and type(old.info) is not type(new.info)   # the second is restored
        assert isinstance(new.info, (SiteInfo, ExpressionInfo))
        assert "_pending" in new.info.__dict__   # nothing unpickled yet
        assert (new.info.filename, new.info.line, new.info.function) == (old.info.filename, old.info.line,
                                                                         old.info.function)
    # Each copy draws its skips from its own site's iterator: the second copy's key names are renamed too.
    assert skip_name(second_id) in cached.scale.__code__.co_names
    assert skip_name(first_id) not in cached.scale.__code__.co_names
    assert not any(name.startswith("__megaguards_skip__") for name in cached.scale.__code__.co_names)
    assert fresh.scale([1.0, 2.0], 2) == cached.scale([1.0, 2.0], 2) == [2.0, 4.0]
    assert fresh.total([1, 2]) == cached.total([1, 2]) == 5
    for old, new in zip(REGISTRY.sites[first_id:second_id], REGISTRY.sites[second_id:]):
        assert old.stats.entries == new.stats.entries
        assert old.info.live_ins == new.info.live_ins
        assert ast.dump(getattr(old.info, "loop", None) or old.info.expression) == \
               ast.dump(getattr(new.info, "loop", None) or new.info.expression)
    assert REGISTRY.sites[second_id].stats.compiled_runs == 1
    assert ast.dump(REGISTRY.sites[second_id].info.loop) == ast.dump(REGISTRY.sites[first_id].info.loop)
    assert REGISTRY.sites[-1].stats.entries == 0   # the dead one


def test_another_process_names_the_sites_by_their_keys(cache, tmp_path):
    filename = str(tmp_path / "module.py")
    load(MODULE, filename)
    with process.fresh():   # the registry is the same object: take the keys away as another process would
        taken = dict(REGISTRY.table)
        for key in [k for k in REGISTRY.table if isinstance(k, str)]:
            del REGISTRY.table[key]
        try:
            start = len(REGISTRY.sites)
            module = load(MODULE, filename)
            assert process.current().rewrites["hits"] == 1
            assert module.scale([1, 2, 3], 3) == [2, 4, 6]
            assert REGISTRY.sites[start].stats.compiled_runs == 1
            keys = [key for key, site in REGISTRY.table.items() if isinstance(key, str) and site.id >= start]
            assert len(keys) == 3
        finally:
            REGISTRY.table.update(taken)


def test_a_site_record_round_trips_lazily():
    tree = ast.parse(MODULE)
    infos = []
    from megaguards.frontend.rewrite import rewrite_module

    rewrite_module(tree, "module.py", lambda info: infos.append(info) or len(infos) - 1)
    for info in infos:
        back = restored_info(site_record(info))
        assert isinstance(back, type(info)) and type(back) is not type(info)
        assert back.__dict__["_pending"]
        assert back.line == info.line and back.filename == "module.py"
        assert back.live_ins == info.live_ins and "_pending" not in back.__dict__
        with pytest.raises(AttributeError):
            back.line = 3
    with pytest.raises(ValueError):
        restored_info(("not", "a", "record"))


def test_a_folder_others_may_write_is_not_used_and_nothing_is_deleted(cache, tmp_path):
    folder = tmp_path / "cache" / rewrites.FOLDER
    folder.mkdir(parents=True)
    (folder / "mine.txt").write_text("not megaguards'")
    folder.chmod(0o777)
    try:
        load(MODULE, str(tmp_path / "module.py"))
        load(MODULE, str(tmp_path / "module.py"))
        assert cache.rewrites == {"hits": 0, "misses": 2, "stored": 0, "damaged": 0}
        assert [path.name for path in folder.iterdir()] == ["mine.txt"]
    finally:
        folder.chmod(0o700)
    load(MODULE, str(tmp_path / "module.py"))
    assert cache.rewrites["stored"] == 1 and (folder / "mine.txt").read_text() == "not megaguards'"


def test_an_entry_that_is_a_link_or_someone_elses_is_ignored(cache, tmp_path):
    filename = str(tmp_path / "module.py")
    load(MODULE, filename)
    (entry,) = (tmp_path / "cache" / rewrites.FOLDER).iterdir()
    target = tmp_path / "elsewhere.marshal"
    entry.rename(target)
    entry.symlink_to(target)
    load(MODULE, filename)
    assert cache.rewrites["damaged"] == 1 and cache.rewrites["hits"] == 0
    assert target.exists() and not entry.is_symlink()   # replaced by a file of its own, the target kept
    entry.chmod(0o666)
    load(MODULE, filename)
    assert cache.rewrites["damaged"] == 2


def test_the_rewrite_cache_can_be_turned_off(tmp_path):
    write(tmp_path, "main.py", "for i in range(3):\n    pass\nprint(i)\n")
    environment = {"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache"), "MEGAGUARDS_REWRITE_CACHE": "0"}
    assert run_megaguards("run", tmp_path / "main.py", env=environment).stdout == "2\n"
    assert not (tmp_path / "cache" / "rewrites").exists()


def test_cache_show_counts_the_rewritten_modules(tmp_path):
    write(tmp_path, "main.py", "for i in range(3):\n    pass\nprint(i)\n")
    environment = {"MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")}
    run_megaguards("run", tmp_path / "main.py", env=environment)
    shown = run_megaguards("cache", "show", env=environment).stdout
    assert "rewritten modules: 1 files" in shown


# -- the command line reads `run` without argparse ------------------------------------------


@pytest.mark.parametrize("argv", [
    ["run", "s.py"], ["run", "s.py", "a", "--device", "x", "-h"], ["run", "--device", "seq", "s.py"],
    ["run", "--device=off", "--report", "s.py", "1"], ["run", "--report-json", "r.json", "--dump", "d", "s.py"],
    ["run", "--report-json=", "s.py"], ["run", "--device", "gpu", "--device", "cpu", "s.py"],
    ["run", "--dump=a=b", "--report", "--report", "s.py", "-", "--x"], ["run", "s.py", "-m", "x"],
    ["run", "-m", "mod", "a", "--x", "-m", "y"], ["run", "--device", "seq", "-mpkg.mod", "-h"],
    ["run", "--report", "-m", "mod", "--report"]])
def test_the_quick_reading_of_run_agrees_with_argparse(argv):
    from megaguards import cli

    quick = cli.quick_run_options(argv)
    assert quick is not None and vars(quick) == vars(cli._parse(argv))


@pytest.mark.parametrize("argv", [
    [], ["run"], ["run", "--help"], ["run", "-h", "s.py"], ["run", "--dev", "seq", "s.py"],
    ["run", "--device", "fast", "s.py"], ["run", "--dump"], ["run", "--dump", "-x", "s.py"],
    ["run", "--report=1", "s.py"], ["run", "--", "s.py"], ["run", "s.py", "--", "x"], ["run", "-", "x"],
    ["explain", "s.py"], ["run", "-m"], ["run", "-m", "mod", "--", "x"], ["run", "--dev", "seq", "-m", "mod"],
    ["--version"], ["cache", "show"]])
def test_anything_else_is_left_to_argparse(argv):
    from megaguards import cli

    assert cli.quick_run_options(argv) is None
