"""multiprocessing's worker processes under ``megaguards run``: their loops compile as the
parent's do, and appear in the parent's report.

* Fork (Linux's default start): a child is a copy of the parent, megaguards and its import
  hook included; its loops compile as they would in the parent.
* Spawn and forkserver: the child is a fresh interpreter started with ``-c "from
  multiprocessing.spawn import spawn_main; ..."`` (or forkserver's ``main``), through
  ``multiprocessing.util.spawnv_passfds``.  Once the program imports multiprocessing, that
  function is wrapped so that the child's command first calls ``start`` here with the
  parent's settings: the import hook over the same folders, the same device, and the main
  script (which the child runs again as ``__mp_main__``) rewritten as the parent's was.
* The report: where the parent writes one (``--report``, ``--report-json``), every child
  writes its loops' records into a private folder of the parent's (``<pid>.json``) when it
  ends: at exit, at the end of a multiprocessing process (its finalizers: a forked child
  leaves by ``os._exit``), or, in a multiprocessing child, at SIGTERM (``Pool.terminate()``,
  as ``with Pool()`` ends: the record is written, then the signal's default action ends the
  child as before; see ``_watch_sigterm``).  A forked child writes what it added since the
  fork.  The parent adds the records to its own when
  it writes its report (``diagnostics/report.py``), then removes the files it read.

Nothing is imported or patched until the program imports multiprocessing (an import hook
of ours watches for ``multiprocessing.util``); a run without a report installs no signal
handler and creates no folder.
"""
from __future__ import annotations

import importlib.machinery
import os
import sys

from . import config
from .runtime.process import current as current_process

WATCHED, SPAWN = "multiprocessing.util", "multiprocessing.spawn"
# What the child's ``-c`` program runs first: megaguards set up, or nothing if it cannot be
# imported there (the child then runs as under python).
BOOTSTRAP = ("try:\n    import megaguards.workers\n    megaguards.workers.start({settings!r})\n"
             "except Exception:\n    pass\n")


def prepare(roots: list[str]) -> None:
    """In ``megaguards run``'s process, before the script: children set up like this
    process (``roots``: the folders whose modules are rewritten)."""
    options = config.current()
    folder = None
    if options.report_json or options.report_table:
        import tempfile

        folder = tempfile.mkdtemp(prefix="megaguards-workers-")
    _set_up({"roots": list(roots), "device": options.device, "dump_dir": options.dump_dir, "folder": folder},
            parent=True)


def start(settings: dict) -> None:
    """In a spawned child (its ``-c`` program's first statement): the parent's settings."""
    from .importhook import install
    from .runtime.site import install_site_names

    config.configure(device=settings["device"], dump_dir=settings["dump_dir"], report_json=None,
                     report_table=None)
    install(settings["roots"])
    install_site_names()
    _set_up(settings, parent=False)
    if settings["folder"]:
        _write_at_end(settings["folder"])
        if settings.get("watch"):   # a spawned child runs no after-fork functions
            _watch_sigterm(settings["folder"])


def _set_up(settings: dict, parent: bool) -> None:
    current_process().workers = settings
    waiting = set()
    for name, wrap in ((WATCHED, _wrap_spawning), (SPAWN, None if parent else _rewrite_main)):
        if wrap is None:
            continue
        if name in sys.modules:
            wrap(sys.modules[name])
        else:
            waiting.add(name)
    if waiting:
        sys.meta_path.insert(0, _Watcher(waiting))
    if settings["folder"] and hasattr(os, "register_at_fork"):   # once per process: a forked child inherits it
        os.register_at_fork(after_in_child=_forked_child)


def _forked_child() -> None:
    """A child made by fork: what it adds to the parent's records at the fork, written into
    the parent's folder at its end (the parent's report files are the parent's)."""
    _unwatch_sigterm()   # the parent's watch: its thread did not come along
    process = current_process()
    settings = process.workers
    if settings is None or not settings["folder"]:
        return
    from .diagnostics.report import build_report

    process.workers = dict(settings, baseline=build_report()["loops"])
    config.configure(report_json=None, report_table=None)
    _write_at_end(settings["folder"])


def _write_at_end(folder: str) -> None:
    import atexit
    import json  # noqa: F401 - imported now: the SIGTERM paths must not import (the import lock may be held)

    from .diagnostics import report  # noqa: F401

    atexit.register(write_records, folder)


def _watch_sigterm(folder: str) -> None:
    """At SIGTERM, this child's records, then the signal's default action (exit code -15).

    A Python handler alone is not enough: it runs only in the main thread, between
    bytecodes, and a SIGTERM that lands just before the main thread blocks in C (a pool
    worker going back to wait for its next task while ``Pool.terminate()`` holds the
    queue's lock) is flagged but never handled: the child never ends and the parent waits
    for it forever.  CPython's C handler also writes the signal's number to the wakeup fd,
    from whatever thread it runs in; a daemon thread reading it ends the child whatever the
    main thread is doing.  Only where SIGTERM has its default action and no wakeup fd is
    set (the program's own are left alone); a program that sets a handler later keeps it."""
    import ctypes  # noqa: F401 - imported now, for _default_action
    import signal
    import threading

    process = current_process()
    if process.sigterm_watch is not None or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        return
    read, write = os.pipe()
    try:
        os.set_blocking(write, False)
        previous = signal.set_wakeup_fd(write)
        if previous != -1:   # the program's: put back, nothing watched
            signal.set_wakeup_fd(previous)
            raise ValueError("a wakeup fd is set")
        signal.signal(signal.SIGTERM, _terminated)
    except (ValueError, OSError):   # not the main thread, or the program's wakeup fd
        os.close(read)
        os.close(write)
        return
    process.sigterm_watch = (read, write, threading.Lock(), folder)
    threading.Thread(target=_wait_for_sigterm, args=(read,), name="megaguards-sigterm", daemon=True).start()


def _unwatch_sigterm() -> None:
    """In a forked child: the parent's watch undone (SIGTERM's default action, no wakeup fd)."""
    process = current_process()
    if process.sigterm_watch is None:
        return
    import signal

    read, write = process.sigterm_watch[:2]
    process.sigterm_watch = None
    try:
        if signal.getsignal(signal.SIGTERM) is _terminated:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        previous = signal.set_wakeup_fd(-1)
        if previous != write:   # the program's since: left as it was
            signal.set_wakeup_fd(previous)
    except (ValueError, OSError):
        pass
    for fd in (read, write):
        try:
            os.close(fd)
        except OSError:
            pass


def _wait_for_sigterm(read: int) -> None:
    import signal

    while True:
        try:
            numbers = os.read(read, 256)
        except OSError:
            return
        if not numbers:
            return
        # The wakeup fd hears every signal with a Python handler; a handler the program set
        # for SIGTERM since decides what SIGTERM does.
        if signal.SIGTERM in numbers and signal.getsignal(signal.SIGTERM) is _terminated:
            _end_by_sigterm(main_thread=False)


def _terminated(number, frame) -> None:
    """SIGTERM's Python handler (the main thread, when it gets there first)."""
    _end_by_sigterm(main_thread=True)


def _end_by_sigterm(main_thread: bool) -> None:
    """The records, then the default action of SIGTERM; whichever path comes first does it,
    the other waits for the end."""
    import signal

    watch = current_process().sigterm_watch
    if watch is None:
        return
    watch[2].acquire()
    try:   # whatever the signal interrupted: the record is lost, never the program's end
        write_records(watch[3])
    except BaseException:  # noqa: BLE001
        pass
    _default_action(main_thread)
    os.kill(os.getpid(), signal.SIGTERM)


def _default_action(main_thread: bool) -> None:
    """SIGTERM's default action again (Python's signal.signal works only in the main thread)."""
    import signal

    if main_thread:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.argtypes, libc.signal.restype = (ctypes.c_int, ctypes.c_void_p), ctypes.c_void_p
    libc.signal(signal.SIGTERM, signal.SIG_DFL.value)


def write_records(folder: str) -> None:
    """This child's loops (those it entered) as ``<folder>/<pid>.json``; nothing if the
    folder is gone (the parent ended first)."""
    import json

    from .diagnostics.report import build_report, since

    records = since(build_report()["loops"], (current_process().workers or {}).get("baseline", ()))
    if not records or not os.path.isdir(folder):
        return
    path = os.path.join(folder, f"{os.getpid()}.json")
    try:
        with open(path + ".part", "w") as handle:
            json.dump(records, handle)
        os.replace(path + ".part", path)
    except OSError:
        pass


def read_records(folder: str | None) -> list[list[dict]]:
    """The children's records (a list per child), their files removed, then the folder
    (only what a child of this run wrote there: ``<pid>.json``)."""
    if not folder or not os.path.isdir(folder):
        return []
    import json

    found = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith(".json") or not name[:-5].isdigit():
            continue
        try:
            with open(path) as handle:
                records = json.load(handle)
            os.unlink(path)
        except (OSError, ValueError):
            continue
        if isinstance(records, list):
            found.append([r for r in records if isinstance(r, dict)])
    try:
        os.rmdir(folder)
    except OSError:   # something else is in it: left as it is
        pass
    return found


class _Watcher:
    """Wraps ``multiprocessing.util.spawnv_passfds`` (every process) and
    ``multiprocessing.spawn._fixup_main_from_path`` (a child) once the program imports them."""

    def __init__(self, names: set) -> None:
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        self.names.discard(fullname)
        if not self.names:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original = spec.loader.exec_module
        wrap = _wrap_spawning if fullname == WATCHED else _rewrite_main

        def exec_module(module):
            original(module)
            wrap(module)
        spec.loader.exec_module = exec_module
        return spec


def _wrap_spawning(util) -> None:
    """Spawned and forkserver children run the bootstrap first (their ``-c`` program)."""
    original = util.spawnv_passfds
    if getattr(original, "__megaguards__", False):
        return

    def spawnv_passfds(path, args, passfds):
        settings = current_process().workers
        args = list(args)
        if settings is not None and "-c" in args[:-1]:
            at = args.index("-c") + 1
            if "spawn_main" in args[at] or "forkserver import main" in args[at]:
                passed = {name: settings[name] for name in ("roots", "device", "dump_dir", "folder")}
                # A spawned child is a worker; the fork server is not (its children are forks).
                passed["watch"] = "spawn_main" in args[at]
                args[at] = BOOTSTRAP.format(settings=passed) + args[at]
        return original(path, args, passfds)
    spawnv_passfds.__megaguards__ = True
    util.spawnv_passfds = spawnv_passfds
    settings = current_process().workers
    if settings is not None and settings["folder"]:
        util.register_after_fork(write_records, _finalize_forked)


def _finalize_forked(_) -> None:
    """In a child multiprocessing forked (fork and forkserver: ``Process._bootstrap`` runs
    the after-fork functions after the method's own set-up), once it has dropped the
    parent's finalizers: its records at its end (it leaves by ``os._exit``, after its
    finalizers, no atexit) and at SIGTERM."""
    settings = current_process().workers
    if settings is not None and settings["folder"]:
        sys.modules[WATCHED].Finalize(None, write_records, args=(settings["folder"],), exitpriority=0)
        _watch_sigterm(settings["folder"])


def _rewrite_main(spawn) -> None:
    """A spawned child runs the parent's main script again as ``__mp_main__``
    (``multiprocessing.spawn._fixup_main_from_path``, which calls ``runpy.run_path``): the
    same steps, the script's code compiled by megaguards."""
    original = spawn._fixup_main_from_path
    if getattr(original, "__megaguards__", False):
        return

    def fixup_main_from_path(main_path):
        import types

        current_main = sys.modules["__main__"]
        if os.path.splitext(os.path.basename(main_path))[0] == "ipython" or \
                getattr(current_main, "__file__", None) == main_path:
            return original(main_path)
        spawn.old_main_modules.append(current_main)
        main_module = types.ModuleType("__mp_main__")
        main_module.__dict__.update(_run_rewritten(main_path))
        sys.modules["__main__"] = sys.modules["__mp_main__"] = main_module
    fixup_main_from_path.__megaguards__ = True
    spawn._fixup_main_from_path = fixup_main_from_path


def _run_rewritten(path: str) -> dict:
    """``runpy.run_path(path, run_name="__mp_main__")``, the code compiled by megaguards: a
    module of that name in ``sys.modules`` and ``sys.argv[0]`` the path while it runs, a
    copy of its globals returned."""
    import types

    from .importhook import compile_script

    code = compile_script(path)
    module = types.ModuleType("__mp_main__")
    module.__dict__.update(__file__=path, __cached__=None, __doc__=None, __loader__=None, __package__="",
                           __spec__=None)
    saved_module, saved_argv = sys.modules.get("__mp_main__"), sys.argv[0] if sys.argv else None
    sys.modules["__mp_main__"] = module
    if sys.argv:
        sys.argv[0] = path
    try:
        exec(code, module.__dict__)
    finally:
        if saved_module is None:
            sys.modules.pop("__mp_main__", None)
        else:
            sys.modules["__mp_main__"] = saved_module
        if sys.argv:
            sys.argv[0] = saved_argv
    return module.__dict__.copy()
