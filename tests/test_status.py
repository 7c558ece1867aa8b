"""The terminal status line of slow compiles (runtime/status.py, issue 30): shown only on a
terminal and only past its delay, appended after the current line and erased from there."""
from __future__ import annotations

import io
import time

from megaguards.runtime.status import RESTORE_AND_CLEAR, SAVE, status


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_slow_block_on_a_terminal_shows_one_line_then_erases_it():
    stream = Terminal()
    stream.write("half a line of the program's output")
    with status("compiling the loop at x.py:3, once", after=0.01, stream=stream):
        time.sleep(0.2)
    written = stream.getvalue()
    assert written == ("half a line of the program's output" + SAVE + " [megaguards: compiling the loop at x.py:3, once...]"
                       + RESTORE_AND_CLEAR)


def test_a_quick_block_or_no_terminal_shows_nothing():
    stream = Terminal()
    with status("compiling", after=5.0, stream=stream):
        pass
    assert stream.getvalue() == ""
    piped = io.StringIO()
    with status("compiling", after=0.0, stream=piped):
        time.sleep(0.05)
    assert piped.getvalue() == ""


def test_an_error_inside_still_erases_the_line():
    stream = Terminal()
    try:
        with status("compiling", after=0.0, stream=stream):
            time.sleep(0.05)
            raise KeyError("x")
    except KeyError:
        pass
    assert stream.getvalue().endswith(RESTORE_AND_CLEAR)
