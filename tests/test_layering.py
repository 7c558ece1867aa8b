"""The stages are imported in one direction (DESIGN's layout): frontend, ir, analysis,
guards and codegen never import runtime, diagnostics or the modules above them; runtime
never imports diagnostics or the public API; no two packages import each other, however
indirectly; and no source file grows past the size a reader can hold (600 lines).

Imports are read from the source with ``ast``, those inside functions included."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "megaguards"
STAGES = ("frontend", "ir", "analysis", "guards", "codegen")
# The modules above the runtime: the public API, the commands, the import hook and the
# calibration command (which runs loops through jit). The package itself (its __version__)
# is imported before any of its modules anyway.
TOP = ("api", "cli", "__main__", "importhook", "calibrate", "calibration_loops", "ipython")
FORBIDDEN = {**{stage: ("runtime", "diagnostics", *TOP) for stage in STAGES},
             "runtime": ("diagnostics", *TOP)}


def unit(module: str) -> str:
    """The package (frontend, runtime, ...) or top-level module a dotted name belongs to."""
    return module.split(".")[1] if module.count(".") else "__init__"


def imported_modules(path: Path) -> set[str]:
    """Every megaguards module ``path`` imports, as dotted names."""
    package = ".".join(("megaguards", *path.relative_to(PACKAGE).parent.parts))
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("megaguards")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("megaguards"):
                module = node.module
            else:
                continue
            # ``from . import api`` names a module, ``from .api import jit`` a name in one.
            found |= {f"{module}.{alias.name}" if (PACKAGE.parent / f"{module}.{alias.name}".replace(".", "/")
                                                  ).with_suffix(".py").exists() else module for alias in node.names}
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))
EDGES = {(unit("megaguards." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)), unit(imported))
         for path in SOURCES for imported in imported_modules(path)}


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_lower_stages_never_import_higher_ones(path: Path):
    own = path.relative_to(PACKAGE).parts[0]
    forbidden = FORBIDDEN.get(own, ())
    wrong = sorted(module for module in imported_modules(path) if unit(module) in forbidden)
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {wrong}"


def test_packages_form_no_cycle():
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    graph = {package: {b for a, b in EDGES if a == package and b in packages and b != package} for package in packages}
    state: dict[str, str] = {}

    def visit(package: str, trail: tuple) -> None:
        state[package] = "open"
        for following in sorted(graph[package]):
            assert state.get(following) != "open", f"package cycle: {' -> '.join(trail + (package, following))}"
            if following not in state:
                visit(following, trail + (package,))
        state[package] = "done"
    for package in sorted(graph):
        if package not in state:
            visit(package, ())


def test_the_checker_sees_relative_and_local_imports(tmp_path):
    assert {"megaguards.analysis.bounds", "megaguards.runtime.loopkey", "megaguards.errors"} <= \
        imported_modules(PACKAGE / "runtime" / "pipeline.py")
    # backend.py imports the GPU mapping inside a function, and `from . import pipeline`.
    assert {"megaguards.analysis.mapping", "megaguards.runtime.pipeline", "megaguards.config"} <= \
        imported_modules(PACKAGE / "runtime" / "backend.py")
    assert ("runtime", "analysis") in EDGES and ("diagnostics", "runtime") in EDGES


def test_no_codegen_module_imports_the_renderer():
    """The renderer asks the targets (codegen/targets/) and imports them; their hooks
    receive the renderer instead of importing it, so that imports go one way."""
    importers = [path.relative_to(PACKAGE) for path in sorted((PACKAGE / "codegen").rglob("*.py"))
                 if "megaguards.codegen.renderer" in imported_modules(path)]
    assert not importers, importers


@pytest.mark.parametrize("path", sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c"), *PACKAGE.rglob("*.h")]),
                         ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_source_file_is_over_600_lines(path: Path):
    assert len(path.read_text().splitlines()) <= 600
