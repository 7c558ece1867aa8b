"""What a target dialect supplies to the one renderer: a small table, no walker."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    name: str
    suffix: str          # file suffix of generated sources (".c", ".cu")
    prelude: str         # helper definitions with Python semantics
    kernel_prefix: str   # return type and qualifiers of the kernel entry point
