"""multiprocessing's workers under ``megaguards run`` (workers.py): spawned and forkserver
children compile their loops too, and every child's loops appear in the parent's report,
whether it ends normally, by ``os._exit`` after multiprocessing's finalizers, or by
``Pool.terminate()``'s SIGTERM; the program's output and exit codes are python's."""
from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest
from conftest import run_megaguards, run_python

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and forkserver are POSIX start methods")

POOL = textwrap.dedent("""
    import multiprocessing
    import sys


    def work(n):
        s = 0.0
        for i in range(n):
            s += (i % 7) * 0.5
        return s


    if __name__ == "__main__":
        context = multiprocessing.get_context(sys.argv[1])
        with context.Pool(2) as pool:   # its end terminates the workers (SIGTERM)
            print(pool.map(work, [20000, 30000, 40000]))
        print(work(1000))
""")


# The loop the scripts below enter (its ``for`` on line 8 of each script).
WORK = """def work(n):
    s = 0.0
    for i in range(n):
        s += i * 0.5
    return s
"""


def loops(path) -> dict:
    return {(record["line"], record["function"]): record for record in json.loads(path.read_text())["loops"]}


def run_reported(tmp_path, script, *arguments, env=None) -> tuple[str, dict]:
    """``megaguards run --report-json`` of the script: its output and its loops' records."""
    report = tmp_path / "report.json"
    ran = run_megaguards("run", "--report-json", report, script, *arguments, env=env, timeout=180)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout, loops(report)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_the_workers_loops_compile_and_appear_in_the_parents_report(tmp_path, method):
    script = tmp_path / "pool.py"
    script.write_text(POOL)
    output, records = run_reported(tmp_path, script, method, env={"TMPDIR": str(tmp_path)})
    assert output == run_python(script, method).stdout
    record = records[(8, "work")]
    # Three tasks in the workers, one call in the parent: every entry compiled.
    assert record["entries"] == record["compiled_runs"] == 4, record
    assert record["workers"] >= 1 and record["backend"] in ("c-seq", "c-omp")   # c-omp: its ordered fold on many cores
    assert not [name for name in os.listdir(tmp_path) if name.startswith("megaguards-workers-")]   # removed


def test_a_child_killed_by_sigterm_reports_its_loops_and_keeps_its_exit_code(tmp_path):
    script = tmp_path / "terminated.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing
        import time


        def work(n):
            s = 0
            for i in range(n):
                s += i % 5
            return s


        def stays():
            work(5000)
            time.sleep(60)


        if __name__ == "__main__":
            context = multiprocessing.get_context("fork")
            child = context.Process(target=stays)
            child.start()
            time.sleep(2)
            child.terminate()
            child.join()
            print("exit code", child.exitcode)
    """))
    output, records = run_reported(tmp_path, script)
    assert output == "exit code -15\n"
    assert records[(8, "work")]["compiled_runs"] == 1


# A child whose main thread blocks in C while SIGTERM's handler runs in another thread: the
# main thread never handles it (CPython only flags it), as when SIGTERM lands just before a
# pool worker blocks waiting for its next task.  python ends it (the default action).
BLOCKED = textwrap.dedent("""
    import multiprocessing
    import os
    import signal
    import sys
    import threading
    import time


""") + WORK + textwrap.dedent("""


    def blocked(ready):
        work(100)
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})   # only that thread takes it
        ready.set()
        os.read(os.pipe()[0], 1)   # forever


    def handled(ready):
        def handler(number, frame):
            print("handled", number, flush=True)
            sys.exit(3)
        signal.signal(signal.SIGTERM, handler)
        work(100)
        ready.set()
        time.sleep(60)


    if __name__ == "__main__":
        context = multiprocessing.get_context(sys.argv[1])
        for target in (blocked, handled):
            ready = context.Event()
            child = context.Process(target=target, args=(ready,))
            child.start()
            ready.wait(60)
            child.terminate()
            child.join(60)
            print(target.__name__, "exit code", child.exitcode, flush=True)
""")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_sigterm_ends_a_child_whose_main_thread_never_handles_it_and_a_programs_handler_is_kept(tmp_path, method):
    script = tmp_path / "blocked.py"
    script.write_text(BLOCKED)
    output, records = run_reported(tmp_path, script, method)
    assert output == run_python(script, method).stdout == \
        "blocked exit code -15\nhandled 15\nhandled exit code 3\n"
    assert records[(12, "work")]["entries"] == 2, records   # both children's records


def test_a_forked_child_that_exits_normally_adds_its_loops_without_its_parents(tmp_path):
    """A child of os.fork() that leaves by sys.exit runs the atexit handlers it inherited:
    it writes its own entries to the parent's folder, not the parent's report file."""
    script = tmp_path / "forked.py"
    script.write_text(textwrap.dedent("""
        import os
        import sys


    """) + WORK + textwrap.dedent("""


        work(100)
        pid = os.fork()
        if pid == 0:
            work(200)
            work(300)
            sys.exit(0)
        os.waitpid(pid, 0)
        print(work(400))
    """))
    report = tmp_path / "report.json"
    ran = run_megaguards("run", "--report", "--report-json", report, script, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == run_python(script).stdout
    record = loops(report)[(8, "work")]
    assert record["entries"] == 4 and record["workers"] == 1   # the parent's 2, the child's 2 since the fork
    assert ran.stderr.count("megaguards loop report") == 1   # the child printed no table of its own


def test_without_a_report_no_folder_and_no_signal_handler(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing
        import signal
        import sys


        def handler(_):
            return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


        if __name__ == "__main__":
            with multiprocessing.get_context(sys.argv[1]).Pool(1) as pool:
                print(pool.map(handler, [0]))
    """))
    for method in ("fork", "spawn"):
        ran = run_megaguards("run", script, method, env={"TMPDIR": str(tmp_path)}, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == "[True]\n"
    assert sorted(os.listdir(tmp_path)) == ["plain.py"]


def test_merged_records_add_counts_and_seconds_and_keep_the_backend_that_ran():
    from megaguards.diagnostics.report import merged, since

    own = [{"file": "a.py", "line": 3, "function": "f", "entries": 2, "compiled_runs": 1, "fallback_runs": 1,
            "backend": "c-seq", "reasons": ["r1"], "seconds": {"execute": 1.0}}]
    child = [{"file": "a.py", "line": 3, "function": "f", "entries": 5, "compiled_runs": 5, "fallback_runs": 0,
              "backend": "c-omp", "reasons": ["r1", "r2"], "seconds": {"execute": 2.0, "unbox": 0.5}},
             {"file": "a.py", "line": 9, "function": "g", "entries": 1, "compiled_runs": 0, "fallback_runs": 1,
              "backend": None, "reasons": ["r3"], "seconds": {}}]
    result = {record["line"]: record for record in merged(own, [child])}
    assert result[3]["entries"] == 7 and result[3]["compiled_runs"] == 6 and result[3]["fallback_runs"] == 1
    assert result[3]["seconds"] == {"execute": 3.0, "unbox": 0.5} and result[3]["backend"] == "c-omp"
    assert result[3]["reasons"] == ["r1", "r2"] and result[3]["workers"] == 1
    assert result[9]["entries"] == 1 and result[9]["workers"] == 1 and result[9]["backend"] is None
    # A forked child's records less the parent's at the fork: only what the child added.
    later = since(child, [dict(child[0], entries=4, compiled_runs=4, seconds={"execute": 1.5})])
    assert [(r["line"], r["entries"], r["compiled_runs"], r["seconds"]) for r in later] == \
        [(3, 1, 1, {"execute": 0.5, "unbox": 0.5}), (9, 1, 0, {})]


def test_a_spawned_childs_own_fork_adds_only_its_own_entries(tmp_path):
    script = tmp_path / "nested.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing
        import os


    """) + WORK + textwrap.dedent("""


        def task():
            work(100)
            pid = os.fork()
            if pid == 0:
                work(200)
                raise SystemExit(0)
            os.waitpid(pid, 0)


        if __name__ == "__main__":
            child = multiprocessing.get_context("spawn").Process(target=task)
            child.start()
            child.join()
            print("exit code", child.exitcode)
    """))
    output, records = run_reported(tmp_path, script)
    assert output == "exit code 0\n"
    record = records[(8, "work")]
    assert record["entries"] == record["compiled_runs"] == 2 and record["workers"] == 2, record
