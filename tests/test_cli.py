"""``megaguards run`` behaves like ``python script.py`` (and ``run -m`` like ``python -m``):
argv, __main__, imports of the script's folder, exit codes, tracebacks, bad input; plus the
report and dump options."""
import json
import os
import subprocess
import sys
import textwrap

from conftest import run_megaguards, run_python


def write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_run_matches_python_with_argv_imports_and_exit_code(tmp_path):
    write(tmp_path, "helper.py", """
        def total(a):
            s = 0
            for i in range(len(a)):
                s += a[i]
            return s
    """)
    script = write(tmp_path, "main.py", """
        import sys
        from helper import total
        print(sys.argv[1:], __name__, total([1, 2, 3]))
        sys.exit(int(sys.argv[1]))
    """)
    report = tmp_path / "report.json"
    expected = run_python(script, "3", "x", cwd=tmp_path)
    actual = run_megaguards("run", "--report-json", report, script, "3", "x", cwd=tmp_path)
    assert (actual.stdout, actual.returncode) == (expected.stdout, expected.returncode) == ("['3', 'x'] __main__ 6\n", 3)
    loops = json.loads(report.read_text())["loops"]
    assert [(loop["function"], loop["compiled_runs"], loop["backend"]) for loop in loops] == [("total", 1, "c-omp")]


def test_uncaught_exception_traceback_points_at_user_lines(tmp_path):
    script = write(tmp_path, "boom.py", """
        def bad(a):
            for i in range(5):
                a[i] = a[i] + 1
        bad([1, 2])
    """)
    expected = run_python(script, cwd=tmp_path)
    actual = run_megaguards(script, cwd=tmp_path)
    assert actual.returncode == expected.returncode == 1
    assert actual.stderr == expected.stderr
    assert 'boom.py", line 4, in bad' in actual.stderr


def test_missing_script_and_syntax_error(tmp_path):
    missing = run_megaguards("run", tmp_path / "nope.py")
    assert missing.returncode == 2 and "can't open file" in missing.stderr
    broken = write(tmp_path, "broken.py", "def (\n")
    expected = run_python(broken)
    actual = run_megaguards(broken)
    assert actual.returncode == expected.returncode == 1
    assert actual.stderr.strip().splitlines()[-1] == "SyntaxError: invalid syntax"
    assert "megaguards" not in actual.stderr


def test_device_off_runs_plain_cpython(tmp_path):
    script = write(tmp_path, "loop.py", """
        s = 0
        for i in range(10):
            s += i
        print(s)
    """)
    report = tmp_path / "r.json"
    result = run_megaguards("run", "--device", "off", "--report-json", report, script)
    assert result.stdout == "45\n"
    loop = json.loads(report.read_text())["loops"][0]
    assert loop["compiled_runs"] == 0 and loop["fallback_runs"] == 1
    via_env = run_megaguards("run", "--report-json", report, script, env={"MEGAGUARDS_DEVICE": "off"})
    assert via_env.stdout == "45\n" and json.loads(report.read_text())["loops"][0]["compiled_runs"] == 0


def test_report_table_and_dump(tmp_path):
    script = write(tmp_path, "mod.py", """
        a = [1.0, 2.0, 3.0]
        for i in range(3):
            a[i] = a[i] * 2
        for i in range(2):
            print(a[i])
    """)
    dump = tmp_path / "kernels"
    result = run_megaguards("run", "--report", "--dump", dump, script)
    assert result.stdout == "2.0\n4.0\n"
    assert "megaguards loop report" in result.stderr and "call to 'print'" in result.stderr
    # Under auto the loop is compiled without OpenMP first, then (tests choose all cores)
    # its parallel twin: both sources are dumped.
    sources = sorted(path.read_text() for path in dump.glob("mod_line3_*.c"))
    assert len(sources) == 2 and all("mg_kernel" in source for source in sources)
    assert sum("#pragma omp parallel" in source for source in sources) == 1
    # Beside the one-core kernel, the loop's IR after each stage, under the kernel's name.
    (stages,) = dump.glob("mod_line3_*.ir")
    assert stages.with_suffix(".c").exists()
    text = stages.read_text()
    headers = [line for line in text.splitlines() if line.startswith("## ")]
    assert [header.split(" (")[0] for header in headers] == [
        "## lowered", "## typed", "## checks hoisted before the loop", "## parallel plan"]
    assert "    a[i] = a[i] * 2                             # line 4: py_float" in text
    assert "# loop 'i' at line 3: parallel; private: none; reductions: none" in text


def test_help_and_version():
    assert run_megaguards("--version").stdout.startswith("megaguards ")
    assert "run" in run_megaguards("--help").stdout


def test_no_compiler_warns_once_and_runs_in_cpython(tmp_path):
    import sys

    script = write(tmp_path, "two.py", """
        a = [1.0, 2.0]
        for i in range(2):
            a[i] = a[i] * 2
        for i in range(2):
            a[i] = a[i] + 1
        print(a)
    """)
    env = {"PATH": str(tmp_path / "no-such-bin"), "CC": "", "MEGAGUARDS_CACHE_DIR": str(tmp_path / "c")}
    import subprocess, os
    result = subprocess.run([sys.executable, "-m", "megaguards", "run", "--report", script],
                            env=dict(os.environ, **env), capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == "[3.0, 5.0]\n"
    assert result.stderr.count("no C compiler found") == 3  # one warning, two report rows
    assert "MegaguardsWarning" in result.stderr


def test_explain_shows_decisions_checks_and_code(tmp_path):
    script = write(tmp_path, "prog.py", """
        def smooth(a, b):
            for i in range(1, len(a) - 1):
                b[i] = (a[i - 1] + a[i + 1]) * 0.5

        def prefix(a):
            for i in range(1, len(a)):
                a[i] += a[i - 1]

        a = [float(k) for k in range(10)]
        b = [0.0] * 10
        smooth(a, b)
        prefix(a)
        print(b[5], a[-1])
    """)
    result = run_megaguards("explain", script)
    assert result.stdout == "5.0 45.0\n"
    text = result.stderr
    assert "loop 'i' at line 3: parallel (OpenMP)" in text
    assert "carries a flow/anti dependence on 'a'" in text
    assert "checks left inside the loop: 0" in text and "int mg_kernel(" in text
    assert "int mg_kernel(" not in run_megaguards("explain", "--no-source", script).stderr


def test_info_names_compiler_devices_and_cache():
    result = run_megaguards("info")
    assert result.returncode == 0
    assert "C compiler:" in result.stdout and "CUDA devices:" in result.stdout and "cache:" in result.stdout


def test_run_m_runs_a_module_like_python_m(tmp_path):
    """``megaguards run -m`` (and ``megaguards -m``): python -m's sys.argv, __name__,
    __package__, __spec__ and sys.path[0], for a module, a package's __main__ and a
    submodule found on sys.path; the module's loops and its package's are loop sites."""
    library, work = tmp_path / "lib", tmp_path / "work"
    (library / "tools").mkdir(parents=True)
    work.mkdir()
    write(library, "summing.py", """
        import sys

        def total(a):
            s = 0
            for i in range(len(a)):
                s += a[i]
            return s

        print(sys.argv, __name__, __spec__.name, repr(__package__), sys.path[0], total([1, 2, 3]))
        sys.exit(int(sys.argv[1]))
    """)
    write(library, "tools/__init__.py", "")
    write(library, "tools/__main__.py", "import sys\nprint('main of', __package__, sys.argv)\n")
    write(library, "tools/scale.py", """
        import sys
        from .helper import twice

        print(__name__, __spec__.name, __package__, twice([1.0, 2.0]), sys.argv[1:])
    """)
    write(library, "tools/helper.py", """
        def twice(a):
            out = [0.0] * len(a)
            for i in range(len(a)):
                out[i] = 2 * a[i]
            return out
    """)
    # Beside any PYTHONPATH megaguards itself is found through (a source checkout).
    environment = {"PYTHONPATH": os.pathsep.join(filter(None, [str(library), os.environ.get("PYTHONPATH")]))}
    for module, arguments in (("summing", ["3", "-x", "--"]), ("tools", ["a"]), ("tools.scale", ["--report"])):
        expected = subprocess.run([sys.executable, "-m", module, *arguments], cwd=work, capture_output=True,
                                  text=True, env=dict(os.environ, **environment))
        report = tmp_path / f"{module}.json"
        actual = run_megaguards("run", "--report-json", report, "-m", module, *arguments, cwd=work, env=environment)
        assert (actual.stdout, actual.returncode, actual.stderr) == (expected.stdout, expected.returncode, ""), \
            actual.stderr
        loops = json.loads(report.read_text())["loops"]
        if module != "tools":
            assert [(loop["function"], loop["compiled_runs"]) for loop in loops] == [
                ("total" if module == "summing" else "twice", 1)]
    assert expected.stdout == "__main__ tools.scale tools [2.0, 4.0] ['--report']\n"
    assert run_megaguards("run", "-m", "summing", "0", cwd=work, env=environment).stdout == \
        f"[{str(library / 'summing.py')!r}, '0'] __main__ summing '' {work} 6\n"
    short = run_megaguards("-mtools", "b", cwd=work, env=environment)
    assert short.stdout == f"main of tools [{str(library / 'tools' / '__main__.py')!r}, 'b']\n"


def test_run_m_of_a_missing_module_says_one_line(tmp_path):
    for name, message in (("no_such_module_here", "No module named no_such_module_here"),
                          ("json.no_such", "No module named json.no_such"),
                          ("email", "No module named email.__main__; 'email' is a package and cannot be "
                                    "directly executed")):
        expected = subprocess.run([sys.executable, "-m", name], cwd=tmp_path, capture_output=True, text=True)
        actual = run_megaguards("run", "-m", name, cwd=tmp_path)
        assert expected.returncode == actual.returncode == 1
        assert expected.stderr.endswith(f": {message}\n")
        assert actual.stderr == f"megaguards: {message}\n"
    missing = run_megaguards("run", "-m")
    assert missing.returncode == 2 and "argument -m: expected one argument" in missing.stderr


def test_explain_m_explains_the_module(tmp_path):
    write(tmp_path, "smooth.py", """
        a = [float(k) for k in range(10)]
        b = [0.0] * 10
        for i in range(1, len(a) - 1):
            b[i] = (a[i - 1] + a[i + 1]) * 0.5
        print(b[5])
    """)
    result = run_megaguards("explain", "--no-source", "-m", "smooth", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "5.0\n"
    assert "loop 'i' at line 4: parallel (OpenMP)" in result.stderr


def test_m_takes_everything_after_the_module_name():
    from megaguards import cli

    for argv, module, arguments in ((["run", "-m", "mod", "--", "x"], "mod", ["--", "x"]),
                                    (["run", "--dev", "seq", "-m", "mod", "-h"], "mod", ["-h"]),
                                    (["explain", "--no-source", "-mpkg.mod", "a", "-m", "z"], "pkg.mod", ["a", "-m", "z"]),
                                    (["run", "s.py", "-m", "x"], None, ["-m", "x"])):
        options = cli._parse(argv)
        assert (options.module, options.arguments) == (module, arguments), argv
