"""The runtime's per-process state lives in one object (runtime/process.py): a fresh
Process is another process to the runtime, and no runtime module keeps state of its own."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy
import pytest

import megaguards
from conftest import choices_of, scale_rows, write_calibration
from megaguards import config, errors
from megaguards.runtime import decisions, process, select

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "megaguards"
# The runtime and the modules above it (the stages below keep no state by design).
MODULES = sorted(PACKAGE.glob("*.py")) + sorted((PACKAGE / "runtime").glob("*.py"))
# Module-level objects that may change after import, each for its stated reason.
ALLOWED = {
    ("compiler.py", "_loaded"): "a cache of loaded shared objects: the loader keeps one copy per process anyway",
    ("process.py", "PROCESS"): "the state itself",
    ("config.py", "_current"): "the options, with their own configure()",
    ("config.py", "_listeners"): "who configure() tells of a change: the sites' registry, which outlives any Process",
    ("ipython.py", "_EXTENSIONS"): "one per IPython shell, not per process",
}
MUTATING = {"add", "append", "extend", "insert", "pop", "popitem", "remove", "discard", "clear", "update",
            "setdefault", "register", "__setitem__"}


def changed_module_names(path: Path) -> set[str]:
    """Module-level names that a function of the module rebinds (``global``) or changes
    in place (item assignment, ``del``, a mutating method, an attribute assignment), and
    other modules' names it assigns (``select.OBSERVER = ...``) as ``module.NAME``."""
    tree = ast.parse(path.read_text(), str(path))
    module_names = {target.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    if isinstance(target, ast.Name)}
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)   # megaguards modules
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("megaguards"))
                or isinstance(node, ast.Import) and node.names[0].name.startswith("megaguards")
                for alias in node.names}
    changed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            changed |= set(node.names)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name):
            changed.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATING and isinstance(node.func.value, ast.Name):
            changed.add(node.func.value.id)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id in imported:
            changed.add(f"{node.value.id}.{node.attr}")
    return {name for name in changed if name in module_names or "." in name}


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_runtime_module_keeps_state_outside_the_process(path: Path):
    changed = {name for name in changed_module_names(path) if (path.name, name) not in ALLOWED}
    assert not changed, f"{path.name} changes module-level {sorted(changed)}: a field of process.Process?"


def test_the_scan_sees_state(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("from . import select\nA = {}\nB = set()\nC = None\nD = {}\nE = []\n"
                      "def f():\n    global C\n    A['x'] = 1\n    B.add(2)\n    C = 3\n"
                      "    select.OBSERVER = print\n    return D.get(4), E[0]\n")
    assert changed_module_names(source) == {"A", "B", "C", "select.OBSERVER"}


def test_fresh_installs_another_process_and_restores_the_first():
    first = process.current()
    with process.fresh() as other:
        assert process.current() is other and other is not first
        with process.fresh(process.Process(openmp_started=True)) as given:
            assert process.current() is given and given.openmp_started
        assert process.current() is other
    assert process.current() is first
    with pytest.raises(AttributeError):   # slots: a misspelt field is an error
        other.openmp_startd = True


def test_openmp_gpu_rent_and_warnings_belong_to_one_process(auto, fresh_process, recwarn):
    write_calibration(auto, seq_work=1.0, cpu_work=1e-9)   # all cores: the entry starts OpenMP
    function = megaguards.jit(scale_rows)
    function(numpy.ones((8, 8)), numpy.zeros((8, 8)), 8, 8)
    [choice] = choices_of(function)
    assert choice.last_device == "cpu" and fresh_process.openmp_started
    select.rent_gpu(0.001)
    errors.warn_once("megaguards: a test warning")
    with process.fresh() as other:
        assert not other.openmp_started and other.gpu_rent_lost == 0.0
        errors.warn_once("megaguards: a test warning")   # not said in this process yet
    errors.warn_once("megaguards: a test warning")
    assert fresh_process.gpu_rent_lost == pytest.approx(0.001)
    assert [str(w.message) for w in recwarn].count("megaguards: a test warning") == 2


def test_decisions_belong_to_one_process(tmp_path, fresh_process):
    saved = config.current()
    config.configure(cache_dir=tmp_path)
    try:
        store = decisions.DecisionStore("d" * 24)
        store.record("10", "cpu", 0.5)
        assert fresh_process.unsaved_stores == {store}
        assert set(fresh_process.listed_folders) == {store.folder}
        with process.fresh() as other:
            decisions.save_all()   # the other process's exit writes nothing of this one's
            assert not Path(store.path).exists() and not other.unsaved_stores
            other_store = decisions.DecisionStore("e" * 24)   # lists the folder in its own process
            assert set(other.listed_folders) == {store.folder}
            other_store.record("10", "seq", 0.1)   # dropped: this process is "killed"
        decisions.save_all()
        assert Path(store.path).exists() and not Path(other_store.path).exists()
        assert not fresh_process.unsaved_stores
    finally:
        config.configure(cache_dir=saved.cache_dir)
