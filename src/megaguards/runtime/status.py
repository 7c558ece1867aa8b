"""One status line on a terminal while something slow runs (issue 30: "a compile that takes
over 1 s shows one status line that disappears").

Only when stderr is a terminal, and only once the work has run for ``after`` seconds: a
cached kernel (milliseconds) never shows it.  The line is written after whatever the
terminal's current line holds (the cursor saved, ``ESC 7``) and erased from there when the
work ends (``ESC 8``, then clear to the end of the line), so a program's half-written line
of output stays as it was; the bytes the program writes are never touched.
"""
from __future__ import annotations

import contextlib
import sys
import threading

SAVE, RESTORE_AND_CLEAR = "\x1b7", "\x1b8\x1b[K"


def interactive(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # replaced by the program, or closed
        return False


@contextlib.contextmanager
def status(text: str, after: float = 1.0, stream=None):
    """Show ``megaguards: <text>...`` on stderr while the block runs, from ``after`` seconds on."""
    stream = sys.stderr if stream is None else stream
    if not interactive(stream):
        yield
        return
    lock = threading.Lock()
    state = {"done": False, "shown": False}

    def show() -> None:
        with lock:
            if state["done"]:
                return
            try:
                stream.write(f"{SAVE} [megaguards: {text}...]")
                stream.flush()
                state["shown"] = True
            except (OSError, ValueError):
                pass

    timer = threading.Timer(after, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
            if state["shown"]:
                try:
                    stream.write(RESTORE_AND_CLEAR)
                    stream.flush()
                except (OSError, ValueError):
                    pass
