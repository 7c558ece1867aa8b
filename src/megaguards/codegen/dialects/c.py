"""C dialect for the CPU: plain C99 plus the GNU builtins the prelude uses."""
from __future__ import annotations

from pathlib import Path

from .base import Dialect

C = Dialect(
    name="c",
    suffix=".c",
    prelude=(Path(__file__).resolve().parent.parent / "prelude.h").read_text(),
    kernel_prefix="int",
)
