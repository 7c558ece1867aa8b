"""How the generated code spells Python's names and the values of unbound variables:
shared by the renderer and the targets' hooks, which must not import the renderer."""
from __future__ import annotations

import functools
import re

from ..ir.types import Scalar

ERR = "&mg_err"   # the flag a helper sets instead of raising


@functools.lru_cache(maxsize=4096)   # called for every name the renderer writes
def mangle(name: str) -> str:
    """A C identifier for a Python name or attribute path, one-to-one (θ, self.grid)."""
    return _NOT_ALPHANUMERIC.sub(lambda m: f"_{ord(m.group()):x}_", name)


_NOT_ALPHANUMERIC = re.compile(r"[^0-9A-Za-z]")


def c_name(name: str) -> str:
    return "v_" + mangle(name)


def array_name(name: str) -> str:
    return "a_" + mangle(name)


def growing_name(name: str) -> str:
    """The kernel's buffer of the values appended to list ``name`` (prelude's mg_growing)."""
    return "g_" + mangle(name)


def zero_of(scalar: Scalar) -> str:
    """The initial value of a variable not bound before the loop."""
    if scalar.is_int_or_float:
        return "mg_num_make(0.0, 0.0)"
    return "mg_cmake(0.0, 0.0)" if scalar.is_complex else "0"
