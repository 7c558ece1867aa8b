"""The loop reports the settings ask for (MEGAGUARDS_REPORT, ``--report-json``,
``--report``), written when the process ends: under ``megaguards run``, and under plain
python for ``@jit``, ``install()`` and IPython when MEGAGUARDS_REPORT is set before megaguards
is imported.  Light on purpose: the report itself is built at exit, and only if asked for."""
from __future__ import annotations

import atexit

from . import config
from .runtime.process import current as current_process


def write_at_exit() -> None:
    """Write the configured reports when the process ends (registered once per process)."""
    process = current_process()
    if not process.reports_at_exit:
        process.reports_at_exit = True
        atexit.register(write)


def write() -> None:
    configuration = config.current()
    if configuration.report_json or configuration.report_table:
        from .diagnostics.report import write_configured

        write_configured()
