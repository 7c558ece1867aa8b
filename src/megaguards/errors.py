"""Error types that carry the stage and the source location that decided."""
from __future__ import annotations


class MegaguardsError(Exception):
    """Base class of every error megaguards raises on purpose."""


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


class CompilerError(MegaguardsError):
    """The C compiler failed on generated code (a megaguards bug, reported once)."""


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
