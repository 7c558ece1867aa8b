"""Command line: ``megaguards run script.py [args...]`` and friends."""
from __future__ import annotations

import atexit
import os
import sys
from types import SimpleNamespace

from . import __version__, config
from .log_setup import configure_logging, configure_logging_later

_PACKAGE = os.path.dirname(os.path.realpath(__file__))
SUBCOMMANDS = ("run", "explain", "info", "cache", "calibrate")
RUN_OPTIONS = {"--device": "device", "--report-json": "report_json", "--dump": "dump"}   # flag -> option


def _parser():
    import argparse

    parser = argparse.ArgumentParser(
        prog="megaguards",
        description="Run Python scripts with their loops compiled transparently "
                    "(results identical to CPython's).")
    parser.add_argument("--version", action="version", version=f"megaguards {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="command")
    run = commands.add_parser("run", help="run a script like `python script.py`, loops accelerated")
    explain = commands.add_parser("explain", help="run a script, then print per loop what was compiled, "
                                                  "parallel or not and why, and the generated code")
    explain.add_argument("--no-source", action="store_true", help="leave the generated code (C and CUDA) out")
    explain.add_argument("--verbose", action="store_true",
                         help="also show each loop's device choice (features, predicted times) "
                              "and its time in each stage")
    commands.add_parser("info", help="show Python, the C compiler and OpenMP, CUDA devices, CuPy/NVRTC, "
                                     "the cache and the calibration")
    cache = commands.add_parser("cache", help="show or clear the compiled-kernel cache")
    cache_actions = cache.add_subparsers(dest="cache_action", metavar="action", required=True)
    cache_actions.add_parser("show", help="location, number of kernels, size by kind, newest entry")
    cache_actions.add_parser("clear", help="remove everything in the cache folder (says what it removes)")
    calibrate = commands.add_parser("calibrate", help="time microbenchmark loops on every device and fit the "
                                                      "cost model that auto uses to choose (about a minute)")
    calibrate.add_argument("--quiet", action="store_true", help="print nothing")
    parser.commands = {"run": run, "explain": explain}   # for _parse's errors, with their usage
    for command in (run, explain):
        command.add_argument("--device", choices=config.DEVICES,
                             help="auto (default), cpu (all cores), seq (one core), off (plain CPython)")
        command.add_argument("--report", action="store_true", help="print the per-loop report on stderr at exit")
        command.add_argument("--report-json", metavar="PATH", help="write the per-loop JSON report to PATH at exit")
        command.add_argument("--dump", metavar="DIR", help="write every generated kernel source into DIR")
        command.add_argument("-m", dest="module", metavar="MODULE",
                             help="run a module like `python -m MODULE [args...]` instead of a script: "
                                  "everything after MODULE is its arguments")
        command.add_argument("script", nargs="?", help="the Python script to run")
        command.add_argument("arguments", nargs=argparse.REMAINDER, help="arguments passed to the script")
    return parser


def _parse(argv: list[str]):
    """argparse's reading, ``-m MODULE [args...]`` taken out first: as with python, all
    that follows the module's name is its own (argparse would read ``-mNAME args`` or a
    ``--`` among them otherwise)."""
    parser = _parser()
    head, module, arguments = _split_module(argv)
    options = parser.parse_args(head)
    if options.command not in ("run", "explain"):
        return options
    if module is not None:
        if not module:
            parser.commands[options.command].error("argument -m: expected one argument")
        options.module, options.arguments = module, arguments
    elif options.script is None:
        parser.commands[options.command].error("the following arguments are required: script (or -m MODULE)")
    return options


def _split_module(argv: list[str]) -> tuple[list[str], str | None, list[str]]:
    """(argv up to a ``-m`` among run's or explain's flags, the module's name ("" if none
    follows), the module's arguments); (argv, None, []) without such a ``-m``."""
    position = 1
    while argv[:1] in (["run"], ["explain"]) and position < len(argv) and argv[position].startswith("-") \
            and argv[position] != "--":
        token = argv[position]
        if token.startswith("-m"):
            module = token[2:] or (argv[position + 1] if position + 1 < len(argv) else "")
            return argv[:position], module, argv[position + (1 if token[2:] else 2):]
        # the flags that take a value (argparse accepts their abbreviations): skip it too
        takes_value = "=" not in token and token != "--report" and any(
            name.startswith(token) for name in RUN_OPTIONS) and len(token) > 2
        position += 2 if takes_value else 1
    return argv, None, []


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (not argv[0].startswith("-") and argv[0] not in SUBCOMMANDS or argv[0].startswith("-m")):
        argv.insert(0, "run")  # `megaguards script.py` is `megaguards run script.py`; -m MODULE too
    options = quick_run_options(argv) or _parse(argv)
    if options.command is None:
        _parser().print_help()
        return 2
    if options.command == "info":
        from .diagnostics.info import describe

        print(describe())
        return 0
    if options.command == "cache":
        return cache_command(options.cache_action)
    if options.command == "calibrate":
        from .calibrate import main as calibrate

        return calibrate(options.quiet)
    return run(options)


def quick_run_options(argv: list[str]) -> SimpleNamespace | None:
    """``run [--device D] [--report] [--report-json PATH] [--dump DIR] script [args...]``
    (or ``-m MODULE [args...]`` for the script), the flags spelt out, read without argparse:
    importing and setting it up (its messages looked up by gettext) costs about 4 ms of every start.  None for anything else (help,
    abbreviations, a value that looks like a flag, an invalid device ...): argparse then
    reads it, and says what is wrong.  The same options as argparse's for what it reads."""
    if not argv or argv[0] != "run" or "--" in argv:   # argparse drops a "--" even after the script
        return None
    options = {"device": None, "report": False, "report_json": None, "dump": None, "module": None}
    position = 1
    while position < len(argv) and argv[position].startswith("-"):
        if argv[position].startswith("-m"):   # -m MODULE or -mMODULE: the rest is the module's
            _, module, arguments = _split_module(argv[:1] + argv[position:])
            if not module:
                return None
            return SimpleNamespace(command="run", **{**options, "module": module}, script=None, arguments=arguments)
        flag, equals, value = argv[position].partition("=")
        if flag == "--report" and not equals:
            options["report"] = True
            position += 1
            continue
        if flag not in RUN_OPTIONS:
            return None
        if not equals:
            if position + 1 == len(argv):
                return None
            value = argv[position + 1]
        position += 1 if equals else 2
        if value.startswith("-") or (flag == "--device" and value not in config.DEVICES):
            return None
        options[RUN_OPTIONS[flag]] = value
    if position == len(argv):
        return None
    return SimpleNamespace(command="run", **options, script=argv[position], arguments=argv[position + 1:])


def cache_command(action: str) -> int:
    from .diagnostics import cache

    from pathlib import Path

    folder = Path(config.current().cache_dir)
    if action == "show":
        print(cache.describe(folder))
        return 0
    return 0 if cache.clear(folder, print) else 1


def run(options) -> int:
    try:
        configuration = config.configure(**{key: value for key, value in (
            ("device", options.device), ("report_json", options.report_json),
            ("dump_dir", options.dump), ("report_table", options.report or None)) if value is not None})
    except ValueError as error:
        print(f"megaguards: {error}", file=sys.stderr)
        return 2
    if configuration.log_level:   # asked for: now (MEGAGUARDS_LOG, --log)
        configure_logging(configuration.log_level)
    else:   # warnings, once logging is imported (log_setup.py)
        configure_logging_later("warning")
    if options.module is not None:
        return _run_module(options)
    script, shown = options.script, options.script
    if os.path.isdir(script):   # as ``python DIR``: its __main__.py, DIR first on sys.path and as argv[0]
        script = os.path.join(script, "__main__.py")
        if not os.path.isfile(script):
            print(f"megaguards: can't find '__main__' module in {os.path.abspath(shown)!r}", file=sys.stderr)
            return 1
    elif not os.path.isfile(script):
        print(f"megaguards: can't open file {os.path.abspath(script)!r}: "
              f"[Errno 2] No such file or directory", file=sys.stderr)
        return 2
    _prepare(options, script)
    from .importhook import compile_script

    try:
        code = compile_script(script)
    except (SyntaxError, ValueError) as error:  # as python prints it: no frames, just the error
        sys.__excepthook__(type(error), error.with_traceback(None), None)
        return 1
    return _run_user_code(code, script, options.arguments, shown)


def _prepare(options, script: str) -> None:
    from .reports import write_at_exit

    write_at_exit()
    from .runtime import warmup

    warmup.start_for_script(script)   # CUDA starts while the script does, when it will be used
    # Nothing else is loaded before the script: the lowering comes at the first loop's entry,
    # the analyses and the device choice's data at its first specialization (site.back_end),
    # NumPy only with NumPy values, so a script that enters no loop starts as fast as under
    # python, and one whose loops cannot compile nearly so.
    if options.command == "explain":
        atexit.register(_print_explanation, not options.no_source, options.verbose)


def _run_module(options) -> int:
    """``-m MODULE``: as ``python -m MODULE`` (the current folder first on sys.path, the
    module's file as sys.argv[0]), the loops of its folder's modules rewritten."""
    from .importhook import NotRunnable, module_code

    sys.path[0] = os.getcwd()
    try:
        spec, code = module_code(options.module)   # imports its parent packages, as python does
    except NotRunnable as error:   # python's own line: "No module named ..."
        print(f"megaguards: {error}", file=sys.stderr)
        return 1
    except SyntaxError as error:
        sys.__excepthook__(type(error), error.with_traceback(None), None)
        return 1
    except SystemExit:
        raise
    except BaseException:   # a parent package raised
        return _user_failed()
    _prepare(options, spec.origin)
    return _run_user_code(code, spec.origin, options.arguments, spec=spec)


def _run_user_code(code, path: str, arguments: list[str], shown: str | None = None, spec=None) -> int:
    from .importhook import run_code

    try:
        run_code(code, path, arguments, shown, spec)
    except SystemExit:
        raise
    except BaseException:
        return _user_failed()
    return 0


def _user_failed() -> int:
    """The exception being handled, raised by the user's code, shown as python shows it."""
    _print_user_traceback(*sys.exc_info())
    if isinstance(sys.exc_info()[1], KeyboardInterrupt):
        _die_of_sigint()
        return 130
    return 1


def _die_of_sigint() -> None:
    """End as python does after an uncaught KeyboardInterrupt: killed by SIGINT."""
    import signal

    from .reports import write

    write()
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def _print_user_traceback(kind, error, trace) -> None:
    """Print like the interpreter does, without megaguards' own frames on top, nor below the
    program's last frame (a Ctrl-C that stopped a compiled loop: it ends at the loop's line)."""
    while trace is not None and trace.tb_frame.f_code.co_filename.startswith(_PACKAGE):
        trace = trace.tb_next
    user = [frame for frame in _frames(trace) if not frame.tb_frame.f_code.co_filename.startswith(_PACKAGE)]
    if user:
        user[-1].tb_next = None
    sys.stderr.flush()
    # The interpreter's own display (no traceback module to import), which shows the
    # exception's own traceback: the one without megaguards' frames.
    sys.__excepthook__(kind, error.with_traceback(trace), trace)


def _frames(trace):
    while trace is not None:
        yield trace
        trace = trace.tb_next


def _print_explanation(show_source: bool, verbose: bool = False) -> None:
    from .diagnostics.explain import explain_all

    print(explain_all(show_source, verbose), file=sys.stderr)
