"""megaguards.jit and megaguards.install in a running program."""
import textwrap

import megaguards

from conftest import assert_same_as_cpython, run_python, site_for


def test_jit_keeps_closures_defaults_and_metadata():
    scale = 3

    def scaled(a, offset=1):
        """Docstring kept."""
        for i in range(len(a)):
            a[i] = a[i] * scale + offset
        return a
    fast = megaguards.jit(scaled)
    assert fast.__name__ == "scaled" and fast.__doc__ == "Docstring kept." and fast.__wrapped__ is scaled
    assert fast([1, 2]) == [4, 7]
    assert site_for(fast)[-1]["compiled_runs"] == 1
    assert_same_as_cpython(scaled, [5, 6, 7], 2)


def test_jit_rejects_non_functions():
    import pytest

    with pytest.raises(TypeError, match="expects a Python function"):
        megaguards.jit(len)


def test_install_rewrites_modules_imported_afterwards(tmp_path):
    (tmp_path / "user_kernels.py").write_text(textwrap.dedent("""
        def dot(a, b):
            s = 0.0
            for i in range(len(a)):
                s += a[i] * b[i]
            return s
    """))
    script = tmp_path / "main.py"
    script.write_text(textwrap.dedent(f"""
        import sys, megaguards
        sys.path.insert(0, {str(tmp_path)!r})
        megaguards.install([{str(tmp_path)!r}])
        import user_kernels, json
        print(user_kernels.dot([1.0, 2.0], [3.0, 4.0]))
        print(json.dumps([(l["function"], l["compiled_runs"]) for l in megaguards.report()["loops"]]))
    """))
    result = run_python(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["11.0", '[["dot", 1]]']


def test_megaguards_report_is_written_at_exit_under_plain_python(tmp_path):
    """MEGAGUARDS_REPORT set before megaguards is imported: a program using @jit under plain
    python writes the report when it ends, as ``megaguards run`` does (once)."""
    import json
    import os
    import subprocess
    import sys

    script = tmp_path / "jitted.py"
    script.write_text(textwrap.dedent("""
        import megaguards

        @megaguards.jit
        def total(a):
            s = 0.0
            for i in range(len(a)):
                s += a[i]
            return s

        print(total([0.5] * 10))
    """))
    report = tmp_path / "out" / "report.json"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, MEGAGUARDS_REPORT=str(report)))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "5.0\n" and result.stderr == ""
    loops = json.loads(report.read_text())["loops"]
    assert [(loop["function"], loop["entries"], loop["compiled_runs"]) for loop in loops] == [("total", 1, 1)]


def test_standard_library_is_never_rewritten():
    from megaguards.importhook import is_user_file
    import json

    assert not is_user_file(json.__file__, None)
    assert not is_user_file(megaguards.__file__, None)
    assert is_user_file(__file__, None)


def test_submodules_of_installed_packages_are_not_searched_twice_and_a_users_package_still_is(tmp_path, monkeypatch):
    import email
    import importlib.machinery

    from megaguards.importhook import RewritingFinder, _installation_roots

    finder = RewritingFinder(None)
    _installation_roots()   # sysconfig's first answer imports a module of its own
    searched = []
    search = importlib.machinery.PathFinder.find_spec
    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec",
                        lambda *arguments: searched.append(arguments[0]) or search(*arguments))
    assert finder.find_spec("email.mime", email.__path__) is None and searched == []   # answered without a search
    package = tmp_path / "userpackage"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "inner.py").write_text("def f(a):\n    for i in range(len(a)):\n        a[i] += 1\n")
    spec = finder.find_spec("userpackage.inner", [str(package)])
    assert spec is not None and type(spec.loader).__name__ == "RewritingLoader" and searched == ["userpackage.inner"]
