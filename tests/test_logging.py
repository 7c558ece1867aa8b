"""The ``megaguards`` logger: one debug line per stage of each loop site (with timings),
no handler unless asked (MEGAGUARDS_LOG or the CLI), and environment warnings once."""
import logging
import os
import re
import subprocess
import sys
import textwrap

import pytest

import megaguards

from conftest import run_megaguards


def messages(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "megaguards"]


def test_debug_lines_name_each_stage_once_with_timings(caplog):
    caplog.set_level(logging.DEBUG, logger="megaguards")

    def scaled_sum(a, b, factor):
        total = 0
        for i in range(len(a)):
            b[i] = a[i] * factor
            total += a[i]
        for j in range(len(a)):
            print(j) if j < 0 else None
        return total

    fast = megaguards.jit(scaled_sum)
    for _ in range(20):
        assert fast([1, 2, 3], [0, 0, 0], 7) == 6
    lines = messages(caplog)
    text = "\n".join(lines)
    assert re.search(r"rewrite test_logging\.py: 2 loop site\(s\) in [\d.]+ ms", text)
    where = "test_logging.py:{} in scaled_sum()"
    first = fast.__code__.co_firstlineno  # the def line: the loops are 2 and 5 lines below
    loop, other = where.format(first + 2), where.format(first + 5)
    assert re.search(rf"loop {re.escape(loop)}: lowered in [\d.]+ ms", text)
    assert re.search(rf"loop {re.escape(loop)}: specialized for .*a: list\[1-D, py_int\].*type inference [\d.]+ ms"
                     r".*cache key [\d.]+ ms, parallel plan and render [\d.]+ ms", text)
    assert re.search(rf"loop {re.escape(loop)}: compile (fresh|cached) in [\d.]+ ms \(mg_\w+\.so\)", text)
    assert re.search(rf"loop {re.escape(loop)}: device ", text)
    assert f"loop {other}: line {first + 6}: expression statement" in text  # the fallback reason
    for stage in ("lowered", "specialized", "compile", "device"):  # once, not per entry
        assert sum(line.startswith(f"loop {loop}: {stage}") for line in lines) == 1, stage
    assert sum(line.startswith(f"loop {other}:") for line in lines) == 1


def test_no_handler_unless_asked(tmp_path):
    probe = ("import logging, megaguards; "
             "print(len(logging.getLogger().handlers), len(logging.getLogger('megaguards').handlers), "
             "logging.getLogger('megaguards').level)")
    environment = {k: v for k, v in os.environ.items() if k != "MEGAGUARDS_LOG"}
    plain = subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True)
    assert plain.stdout.split() == ["0", "0", "0"]
    asked = subprocess.run([sys.executable, "-c", probe], env=dict(environment, MEGAGUARDS_LOG="debug"),
                           capture_output=True, text=True)
    assert asked.stdout.split() == ["0", "1", str(logging.DEBUG)]


def test_cli_debug_log_and_user_logging_untouched(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import logging
        logging.basicConfig(format="user %(message)s")  # a no-op if megaguards had configured root
        logging.warning("hello")
        a = [1.0, 2.0, 3.0]
        for i in range(3):
            a[i] = a[i] * 2
        print(a)
    """))
    result = run_megaguards("run", script, env={"MEGAGUARDS_LOG": "debug"})
    assert result.returncode == 0 and result.stdout == "[2.0, 4.0, 6.0]\n"
    assert "user hello" in result.stderr
    assert re.search(r"megaguards DEBUG: rewrite prog\.py: 1 loop site\(s\) in", result.stderr)
    assert re.search(r"megaguards DEBUG: loop prog\.py:6: compile (fresh|cached) in", result.stderr)
    quiet = run_megaguards("run", script)
    assert "megaguards DEBUG" not in quiet.stderr and "user hello" in quiet.stderr


def _has_usable_gpu() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(_has_usable_gpu(), reason="a GPU is present: nothing to warn about")
def test_gpu_requested_but_absent_warns_once(tmp_path):
    script = tmp_path / "two.py"
    script.write_text(textwrap.dedent("""
        a = [1.0] * 100
        for i in range(100):
            a[i] = a[i] * 2
        for i in range(100):
            a[i] = a[i] + 1
        print(a[0])
    """))
    result = run_megaguards("run", "--device", "gpu", script)
    assert result.returncode == 0 and result.stdout == "3.0\n"
    assert result.stderr.count("device 'gpu' requested but no CUDA device is usable") == 1
    assert "MegaguardsWarning" in result.stderr


def test_missing_islpy_warns_once(tmp_path):
    script = tmp_path / "noisl.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.modules["islpy"] = None  # makes `import islpy` fail, as if not installed
        import megaguards

        @megaguards.jit
        def first(a):
            for i in range(len(a)):
                a[i] = a[i] + 1
            return a

        @megaguards.jit
        def second(a):
            for i in range(len(a)):
                a[i] = a[i] * 3
            return a

        print(first([1, 2]), second([1, 2]))
    """))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == "[2, 3] [3, 6]\n"
    assert result.stderr.count("islpy is not installed") == 1


PROBE = ("import sys\nlogger = sys.modules['logging'].getLogger('megaguards') if 'logging' in sys.modules else None\n"
         "print('logging' in sys.modules, None if logger is None else "
         "[(type(h).__name__, logger.level, logger.propagate) for h in logger.handlers])\n")


def test_cli_handler_waits_for_logging(tmp_path):
    """The command line's warning handler costs no ``logging`` import in a run that never
    needs it, loops compiled or not; it is attached at megaguards' first record once the
    program has imported ``logging``, and a program that set up the ``megaguards`` logger
    itself keeps its setup."""
    environment = {"MEGAGUARDS_COMPILE_AFTER": "0", "MEGAGUARDS_CACHE_DIR": str(tmp_path / "cache")}
    # python -S: this machine's site hooks import logging themselves.
    source = os.path.dirname(os.path.dirname(os.path.abspath(megaguards.__file__)))
    bootstrap = (f"import sys; sys.path.insert(0, {source!r}); sys.argv[0] = 'megaguards'; "
                 "from megaguards.cli import main; sys.exit(main())")
    loop = "a = [1.0, 2.0]\nfor i in range(2):\n    a[i] = a[i] * 3\nprint(a)\n"
    for name, text, printed in (("loop_free", "print('hello')\n", "hello"), ("bare_loop", loop, "[3.0, 6.0]")):
        script = tmp_path / f"{name}.py"
        script.write_text(text + PROBE)
        result = subprocess.run([sys.executable, "-S", "-c", bootstrap, "run", "--report", str(script)],
                                capture_output=True, text=True, timeout=120, env=dict(os.environ, **environment))
        assert result.stdout.splitlines() == [printed, "False None"], result.stderr
        if name == "bare_loop":   # the loop compiled, logging or not
            assert any(line.startswith("bare_loop.py:2 ") and " c-" in line for line in result.stderr.splitlines()), \
                result.stderr
    looping = tmp_path / "looping.py"
    looping.write_text("import logging\n" + loop + PROBE)
    result = run_megaguards("run", looping, env=environment)
    assert result.stdout.splitlines() == ["[3.0, 6.0]", "True [('StandardErrorHandler', 30, False)]"], result.stderr
    own = tmp_path / "own.py"
    own.write_text("import logging\nlogging.getLogger('megaguards').setLevel(logging.INFO)\n" + loop + PROBE)
    result = run_megaguards("run", own, env=environment)
    assert result.stdout.splitlines() == ["[3.0, 6.0]", "True []"], result.stderr
