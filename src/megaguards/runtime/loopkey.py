"""A typed loop's identity across processes, for the caches that skip analysis steps
(``plans.py``: the parallel plan; ``renders.py``: the rendered kernel).

The caches name nodes by their nid (a position in the typed loop's walk), and the key hashes everything those steps read: the typed IR (every node with its type and
source line), the scalar and array types, the functions, the live-ins, and megaguards'
own code (each module's size and modification time: an edited analysis or renderer in a
development checkout must not meet results of the old one)."""
from __future__ import annotations

import functools

from ..record import record
from ..ir import nodes as ir
from .cachefile import code_stamp, sha256


def digest(*parts) -> str:
    return sha256(repr(parts).encode()).hexdigest()[:32]


@record
class LoopKey:
    typed_digest: str          # the typed loop and megaguards' code
    body: ir.For

    @classmethod
    def of(cls, typed) -> LoopKey:
        text = (code_stamp(), typed.body, sorted(typed.variables.items()),
                sorted((name, sorted(map(repr, types))) for name, types in typed.assigned_types.items()),
                sorted(typed.arrays.items()), sorted(typed.functions.items()), sorted(typed.live_ins),
                sorted(typed.references.items()))   # (from the signature's alias groups: not in the body)
        return cls(digest(*text), typed.body)

    @functools.cached_property
    def every_loop(self) -> tuple:
        """The ir.For and ir.While nodes in walk order: position -> loop."""
        return tuple(ir.loops_in(self.body))

    @functools.cached_property
    def loops(self) -> tuple:
        """The ir.For nodes in walk order: position -> loop (the parallel plan's)."""
        return tuple(node for node in self.every_loop if isinstance(node, ir.For))
