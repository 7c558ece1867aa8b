"""Where the ``megaguards`` logger's records go.

A library must not configure logging on import, so a handler is attached only by
the command line, or when the user asked with ``MEGAGUARDS_LOG``; it is attached to
the ``megaguards`` logger alone (never ``basicConfig``: the user's script keeps the
root logger as plain ``python`` leaves it).

``logging`` itself (with ``traceback``, ``string``, ``re`` and ``enum`` under it: about 5 ms on
an interpreter that has not imported them) is imported only when a record could be shown:
megaguards' modules log through ``LAZY``, and the command line's own handler (warnings and
above) is attached when ``logging`` first comes in (``configure_logging_later``): at
megaguards' first record that could be shown, or at once where the program has imported
``logging`` already (the first record after that attaches it where the program imports it
later).
A program that configured the ``megaguards`` logger itself before then keeps its setup."""
from __future__ import annotations

import functools
import sys

from .config import LOG_LEVELS as LEVELS

LOGGER_NAME = "megaguards"
WARNING = 30   # logging.WARNING: records below it are dropped unless logging was set up


def configure_logging(level: str):
    """Show the ``megaguards`` records of ``level`` and above on stderr (idempotent)."""
    import logging

    logger = logging.getLogger(LOGGER_NAME)
    name = level.strip().lower()
    if name not in LEVELS:
        from .errors import warn_once

        warn_once(f"megaguards: MEGAGUARDS_LOG={level!r} is not one of {', '.join(LEVELS)}; using 'warning'")
        name = "warning"
    handler_class = _standard_error_handler()
    for handler in [h for h in logger.handlers if isinstance(h, handler_class)]:
        logger.removeHandler(handler)
    handler = handler_class()
    handler.setFormatter(logging.Formatter("megaguards %(levelname)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(name.upper())
    logger.propagate = False  # else a root handler the user set up prints every record twice
    return logger


def configure_logging_later(level: str) -> None:
    """``configure_logging(level)`` once ``logging`` is imported (now, if it is already)."""
    from .runtime.process import current

    current().log_pending = level
    if "logging" in sys.modules:
        apply_pending()


def apply_pending() -> None:
    """Attach the handler the command line asked for, unless the program has configured the
    ``megaguards`` logger itself meanwhile (a level or a handler of its own)."""
    from .runtime.process import current

    process = current()
    level, process.log_pending = process.log_pending, None
    if level is None:
        return
    import logging

    logger = logging.getLogger(LOGGER_NAME)
    if logger.level == logging.NOTSET and not logger.handlers:
        configure_logging(level)


class LazyLogger:
    """The ``megaguards`` logger of megaguards' own modules: a record below WARNING
    is dropped while nobody has imported ``logging`` (nobody can have set a lower level:
    ``MEGAGUARDS_LOG`` imports it at start-up), any other imports it and goes through it."""

    __slots__ = ()

    def debug(self, message, *args, **keywords) -> None:
        self._log(10, message, args, keywords)

    def info(self, message, *args, **keywords) -> None:
        self._log(20, message, args, keywords)

    def warning(self, message, *args, **keywords) -> None:
        self._log(WARNING, message, args, keywords)

    def error(self, message, *args, **keywords) -> None:
        self._log(40, message, args, keywords)

    @staticmethod
    def _log(level: int, message, args: tuple, keywords: dict) -> None:
        if level < WARNING and "logging" not in sys.modules:
            return
        import logging

        apply_pending()
        logging.getLogger(LOGGER_NAME).log(level, message, *args, stacklevel=3, **keywords)


LAZY = LazyLogger()


@functools.lru_cache(maxsize=1)
def _standard_error_handler():
    """The handler class writing to the ``sys.stderr`` of the moment (tests and notebooks
    replace it); made once ``logging`` is imported."""
    import logging

    class StandardErrorHandler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                sys.stderr.write(self.format(record) + "\n")
            except Exception:  # as logging's own handlers do: report, never raise
                self.handleError(record)

    return StandardErrorHandler
