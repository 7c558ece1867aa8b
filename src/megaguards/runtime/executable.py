"""One protocol for "run this loop somewhere": the one-core kernel, the all-cores kernel,
the GPU kernel, the GPU region and the device choice between them all answer
``run(binding)`` with one of three outcomes, and the site reads nothing else.

* ``Ran``: the loop ran; its live-out values (``UNSET`` for names it did not assign).
* ``Raised``: the kernel raised a flag (an index out of range, an overflow, ...): CPython
  runs the loop again from the unchanged data and raises what it raises.
* ``Declined``: this executable did not run the loop (a GPU kernel facing empty ranges or
  failed hoisted checks); the device choice runs it on the CPU instead.

Each also names the hoisted check that failed, if one did (the copy of the loop that checks
inside then ran).  Outcomes are tuples: one is made at every entry, a few hundred
nanoseconds cheaper than a dataclass.  A guard that fails at run time (a list that turns
out ragged) raises ``errors.GuardFailure`` instead: the site falls back to CPython.

A signature the loop cannot be compiled for is a ``Rejected`` instead of an executable.
This module imports nothing heavy (not even ``dataclasses``): the sites (``site.py``)
read it at every entry, and import it with every rewritten module."""
from __future__ import annotations

from collections import namedtuple

from ..errors import Unsupported


class Unset:
    """Marker for a live-out the compiled loop did not assign."""

    def __repr__(self) -> str:
        return "<megaguards unset>"


UNSET = Unset()


class Rejected:
    """A signature the loop cannot be compiled for (remembered: not re-analysed): the
    reason, the (line, col) of the construct if known, the stage that decided."""

    __slots__ = ("reason", "location", "stage")

    def __init__(self, reason: str, *, location: tuple = (0, 0), stage: str = "") -> None:
        self.reason = reason
        self.location = location
        self.stage = stage

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r}, location={self.location!r}, stage={self.stage!r})"

    @classmethod
    def of(cls, unsupported: Unsupported, stage: str) -> Rejected:
        return cls(unsupported.describe(), location=(unsupported.line, unsupported.col), stage=stage)

# The flags the kernels raise (codegen/prelude.h's MG_ERR_*), as the report says them.
FLAG_REASONS = {1: "index out of range", 2: "integer overflow beyond int64 (or the NumPy type's range)",
                3: "division or modulo by zero", 4: "a value CPython rejects (math domain, NaN to int, "
                "range step 0, inexact int/float conversion)", 5: "a result whose Python type differs "
                "(e.g. int ** negative int)", 6: "interrupted (Ctrl-C)",
                7: "out of memory for the operands of an ordered float fold",
                8: "a NumPy float operation raised an IEEE flag that NumPy's error state (numpy.seterr) acts on: "
                "CPython ran the loop, and NumPy warned or raised",
                9: "a value the items of an array.array or memoryview cannot hold (CPython raises OverflowError "
                "or ValueError, or keeps a float32 infinity)",
                10: "the loop reached a 'raise' (CPython ran it and raised the exception)",
                11: "a called function returned None where its value is used (CPython ran the loop)",
                12: "'table[key].append' with a key the table has no row for (CPython raised KeyError or "
                "IndexError)"}
INTERRUPTED = 6   # prelude.h's MG_ERR_INTERRUPT: a SIGINT stopped the kernel
FLOAT_STATUS = 8  # prelude.h's MG_ERR_FLOAT_STATUS: NumPy would warn or raise (analysis/floatstatus.py)


# The outcomes of a run: named tuples of ``collections`` (``typing`` is not imported: about 2 ms
# at every start-up on an interpreter that has not imported it).  ``failed_check``: the hoisted
# check that failed (the checking copy of the loop ran), or None.
Ran = namedtuple("Ran", ("values", "failed_check"), defaults=(None,))   # values: the live-outs, in site order


class Raised(namedtuple("Raised", ("flag", "failed_check"), defaults=(None,))):   # flag: prelude's MG_ERR_*
    __slots__ = ()

    @property
    def reason(self) -> str:
        return FLAG_REASONS.get(self.flag, str(self.flag))


Declined = namedtuple("Declined", ("why", "failed_check"), defaults=(None,))
Outcome = "Ran | Raised | Declined"   # what ``Executable.run`` returns (an annotation)


class Executable:
    """What a site holds for one signature and what its report reads of it (a protocol:
    the specializations have these, without deriving from it)."""

    checks_in_loop: int              # checks left inside the loop (not hoisted)
    parallel_depth: int              # loop levels run on all cores (0: one core)
    last_device: str | None          # the device of the last run (None: always the same)
    gpu_runs: int                    # entries the GPU ran

    def run(self, binding) -> Outcome: ...

    @property
    def timings(self) -> dict: ...
