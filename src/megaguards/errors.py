"""Error types that carry the stage and the source location that decided, and how a
location is shown (the caret under the offending expression of a ``CompilationError``,
as triton and CPython's SyntaxError show it)."""
from __future__ import annotations

import os


class MegaguardsError(Exception):
    """Base class of every error megaguards raises on purpose."""


class MegaguardsWarning(RuntimeWarning):
    """The category of every warning megaguards gives (a setting with an invalid value, no
    C compiler, a GPU asked for but absent ...): filter them with
    ``-W ignore::megaguards.MegaguardsWarning`` or
    ``warnings.filterwarnings("ignore", category=megaguards.MegaguardsWarning)``."""


def warn_once(message: str, key=None) -> None:
    """Show ``message`` as a ``MegaguardsWarning``, once per process for ``key`` (the
    message itself by default): one line naming megaguards, not a megaguards source line."""
    import warnings

    from .runtime.process import current   # light: the per-process state alone

    process = current()
    key = message if key is None else key
    if key not in process.warned:
        process.warned.add(key)
        # One line naming megaguards (Python's format for a file and line would add a second,
        # the source line); it names the user's loop whose preparation found the condition
        # (a missing compiler, no GPU), if any: a setting read at import has none.
        if process.preparing is not None:
            message += f" (met first at the loop at {short_location(process.preparing)})"
        warnings.warn_explicit(message, MegaguardsWarning, "megaguards", 0)


class Unsupported(MegaguardsError):
    """A construct the compiled path cannot run; the loop stays in CPython.

    ``reason`` is a one-line human-readable explanation; ``line``/``col`` locate
    the offending expression in the user's file (0 when not tied to one).
    """

    def __init__(self, reason: str, line: int = 0, col: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.col = col

    def describe(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


class GuardFailure(MegaguardsError):
    """A live-in does not match what the compiled code assumes: the loop runs in CPython.

    Raised from guards/assumptions.py's table (``Assumption.<name>.failure()``), which holds every
    reason; ``assumption`` names the one that failed."""

    def __init__(self, reason: str, assumption=None) -> None:
        super().__init__(reason)
        self.assumption = assumption
        self.array_position = None   # the array live-in found to mix ints and floats (Assumption.LIST_ONE_CLASS)


class CompilerError(MegaguardsError):
    """The C compiler failed on generated code (a megaguards bug, reported once)."""


class CompilerUnusable(CompilerError):
    """The C compiler did not run, or ran past its time limit: the machine's problem, not
    the code's (one warning naming the compiler; loops run in CPython)."""


class CompilationError(MegaguardsError):
    """A loop of a ``@megaguards.jit(strict=True)`` function cannot be compiled.

    Raised at the first call that reaches the loop (sites are analysed lazily, for
    the types they meet).  ``reason`` says why; ``filename``/``line``/``col`` locate
    the offending expression (col 0-based, as in ``ast``); the message shows the
    source line with a caret under it."""

    def __init__(self, message: str, reason: str, filename: str = "", line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.filename = filename
        self.line = line
        self.col = col


def _characters(text: str, byte_offset: int) -> int:
    """``ast`` columns count UTF-8 bytes; the caret is placed in characters."""
    return len(text.encode()[:byte_offset].decode(errors="ignore"))


def underline_span(loop, line: int, col: int, text: str) -> tuple[int, int, int]:
    """(line, first byte column, end byte column) to underline in ``text`` (the source line).

    A known column underlines the widest expression starting there; a line without a
    column (0: statements in a loop body are never at column 0) underlines the
    statement's text; no line at all underlines the loop's ``for``."""
    import ast

    if not line:
        return loop.lineno, loop.col_offset, loop.col_offset + len("for")
    if col:
        for node in ast.walk(loop):  # outermost first: the widest expression at (line, col)
            if getattr(node, "lineno", None) == line and getattr(node, "col_offset", None) == col:
                end = node.end_col_offset if node.end_lineno == line else len(text.rstrip().encode())
                return line, col, max(end, col + 1)
        return line, col, col + 1
    stripped = text.rstrip()
    start = len(stripped.encode()) - len(stripped.lstrip().encode())
    return line, start, max(len(stripped.encode()), start + 1)


def compilation_error(info, reason: str, line: int = 0, col: int = 0) -> CompilationError:
    """The error of a strict site (``info``: its ``SiteInfo``) that cannot compile."""
    import linecache

    prefix = f"line {line}: "
    reason = reason[len(prefix):] if line and reason.startswith(prefix) else reason  # shown below
    text = linecache.getline(info.filename, line or info.line)
    line, start, end = underline_span(info.loop, line, col, text)
    text = linecache.getline(info.filename, line)
    where = f"{info.filename}:{line}:{_characters(text, start) + 1}"
    loop = f"the loop at line {info.line}" + (f" in {info.function}()" if info.function else "")
    message = [f"{where}: {loop} cannot be compiled: {reason}"]
    if text.strip():
        first, last = _characters(text, start), _characters(text, end)
        indent = len(text) - len(text.lstrip())
        message.append("    " + text.strip())
        message.append("    " + " " * (first - indent) + "^" * max(1, last - first))
    return CompilationError("\n".join(message), reason, info.filename, line, col)


def short_location(info) -> str:
    """``file.py:7 in f()``: how log lines and explanations name a site."""
    where = f"{os.path.basename(info.filename)}:{info.line}"
    return where + (f" in {info.function}()" if info.function else "")
