"""``megaguards run`` behaves like ``python script.py``: argv, __main__, imports of the
script's folder, exit codes, tracebacks, bad input; plus the report and dump options."""
import json
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
    assert "RuntimeWarning" in result.stderr


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
