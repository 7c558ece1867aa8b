"""Where the ``megaguards`` logger's records go.

A library must not configure logging on import, so a handler is attached only by
the command line, or when the user asked with ``MEGAGUARDS_LOG``; it is attached to
the ``megaguards`` logger alone (never ``basicConfig``: the user's script keeps the
root logger as plain ``python`` leaves it)."""
from __future__ import annotations

import logging
import sys

from .config import LOG_LEVELS as LEVELS

LOGGER_NAME = "megaguards"


class _StandardErrorHandler(logging.Handler):
    """Writes to the ``sys.stderr`` of the moment (tests and notebooks replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # as logging's own handlers do: report, never raise
            self.handleError(record)


def configure_logging(level: str) -> logging.Logger:
    """Show the ``megaguards`` records of ``level`` and above on stderr (idempotent)."""
    logger = logging.getLogger(LOGGER_NAME)
    name = level.strip().lower()
    if name not in LEVELS:
        from .errors import warn_once

        warn_once(f"megaguards: MEGAGUARDS_LOG={level!r} is not one of {', '.join(LEVELS)}; using 'warning'")
        name = "warning"
    for handler in [h for h in logger.handlers if isinstance(h, _StandardErrorHandler)]:
        logger.removeHandler(handler)
    handler = _StandardErrorHandler()
    handler.setFormatter(logging.Formatter("megaguards %(levelname)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(name.upper())
    logger.propagate = False  # else a root handler the user set up prints every record twice
    return logger
