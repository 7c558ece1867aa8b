"""Valid programs that once failed only under megaguards (issue 26): a loop nest deeper
than CPython's block limit allows after rewriting, recursion close to the limit, and
``megaguards run DIR`` for a folder with a ``__main__.py``.  Each runs under python and
under ``megaguards run``: the same output and exit status."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def both(target: Path, cwd: Path) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    plain = subprocess.run([sys.executable, str(target)], cwd=cwd, capture_output=True, text=True, timeout=120)
    guarded = subprocess.run([sys.executable, "-m", "megaguards", "run", str(target)], cwd=cwd,
                             capture_output=True, text=True, timeout=120)
    return plain, guarded


def nest(depth: int, middle: str = "") -> str:
    lines, indent = ["def f():", "    s = 0"], 1
    for level in range(depth):
        lines.append("    " * indent + (middle if level == depth // 2 and middle else f"for i{level} in range(2):"))
        indent += 1
    lines.append("    " * indent + "s += 1")
    if middle:
        lines.append("    " * (depth // 2 + 1) + "except ValueError:")
        lines.append("    " * (depth // 2 + 2) + "pass")
    lines += ["    return s", "print(f())"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("source", [nest(20), nest(19, "try:"), nest(8)], ids=["20 fors", "a try among 19", "8 fors"])
def test_deep_nests_run_as_under_python(tmp_path, source):
    script = tmp_path / "deep.py"
    script.write_text(source)
    plain, guarded = both(script, tmp_path)
    assert plain.returncode == 0 and plain.stdout.strip().isdigit(), plain.stderr
    assert (guarded.stdout, guarded.returncode) == (plain.stdout, plain.returncode), guarded.stderr


RECURSION = textwrap.dedent("""
    import sys

    def depth(n):
        if n == 0:
            return 0
        total = 0
        for k in range(3):        # a loop site at every level, the deepest included
            total += k
        return 1 + depth(n - 1) + total - 3

    def deepest(n):
        try:
            return deepest(n + 1)
        except RecursionError:
            return n

    print(depth(int(sys.argv[1])) if len(sys.argv) > 1 else deepest(0))
""")


def test_recursion_goes_as_deep_as_under_python(tmp_path):
    script = tmp_path / "recursion.py"
    script.write_text(RECURSION)
    plain, guarded = both(script, tmp_path)
    assert plain.stdout == guarded.stdout and int(plain.stdout) > 900   # the same deepest level
    limit = int(plain.stdout) - 3
    for runner in ([sys.executable], [sys.executable, "-m", "megaguards", "run"]):
        result = subprocess.run([*runner, str(script), str(limit)], cwd=tmp_path, capture_output=True, text=True,
                                timeout=120)
        assert (result.returncode, result.stdout) == (0, f"{limit}\n"), result.stderr[-500:]


def test_the_script_reads_and_sets_the_recursion_limit_as_under_python(tmp_path):
    """megaguards' frames below the script are not the script's: it reads python's limit,
    and a limit it sets lets it recurse exactly as deep as under python."""
    script = tmp_path / "limit.py"
    script.write_text(RECURSION.replace("print(depth", "print(sys.getrecursionlimit())\n"
                                                     "sys.setrecursionlimit(120)\nprint(sys.getrecursionlimit())\n"
                                                     "print(depth")
                      + "try:\n    sys.setrecursionlimit(0)\nexcept ValueError as error:\n    print(error)\n")
    plain, guarded = both(script, tmp_path)
    assert plain.stdout.splitlines()[:2] == ["1000", "120"], plain.stderr   # python's default, then its own
    assert int(plain.stdout.splitlines()[2]) < 120 and "greater" in plain.stdout.splitlines()[3]
    assert (guarded.stdout, guarded.returncode) == (plain.stdout, plain.returncode), guarded.stderr


def test_a_folder_runs_its_main(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "__main__.py").write_text("import sys\nfrom helper import twice\n"
                                        "print(sys.argv[0], twice([1, 2, 3]))\n")
    (folder / "helper.py").write_text("def twice(values):\n    out = [0] * len(values)\n"
                                      "    for i in range(len(values)):\n        out[i] = 2 * values[i]\n"
                                      "    return out\n")
    plain, guarded = both(Path("app"), tmp_path)
    assert plain.stdout == "app [2, 4, 6]\n" and guarded.stdout == plain.stdout, guarded.stderr
    (tmp_path / "empty").mkdir()
    plain, guarded = both(Path("empty"), tmp_path)
    assert plain.returncode == guarded.returncode == 1
    assert "can't find '__main__' module in" in plain.stderr and "can't find '__main__' module in" in guarded.stderr
