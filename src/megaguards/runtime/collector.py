"""The user's objects kept out of the collections megaguards' own work causes.

Preparing a loop (importing the back end, lowering, analysing, compiling, loading) allocates
tens of thousands of objects, enough to trigger several passes of CPython's cyclic garbage
collector; each pass traverses the young generation, the user's containers included.  A list
of 10**7 flags built just before the first loop is then walked twice (70 ms) in a program
that, under CPython, never collects at all (the everyday sieve).  While megaguards prepares a
loop the user's objects are set aside (``gc.freeze``: passes skip them) and put back after,
into the oldest generation (``gc.unfreeze``): collected as before, only by full collections.
A program that froze objects itself is left alone: unfreezing would undo its freeze (so is
a Python whose start-up froze some, as the H100 machine's 3.12 does: there is no telling
which objects were frozen by whom).  Objects put back that way do not count towards the next
full collection, so a set-aside happens a bounded number of times: a site's first entry (its
estimate imports), its decision to compile (reads its tree), its lowering, each specialization.

The counts towards the next collections restart at zero at both ends (``gc.freeze`` resets
them; the exit freezes again, megaguards' young objects with the rest): the objects
megaguards kept (its modules, its kernels) would otherwise leave a full collection due, and
the program's next few allocations would run it over the user's objects just put back (a
young cycle CPython never collects here was freed: tests/test_collector.py).
"""
from __future__ import annotations

import gc


class SetAside:
    """``with user_objects_set_aside():`` (a class, not a generator: about 0.15 us against
    0.9 us, as the first entry of every site pays it).  Nested uses do nothing: the outer
    one's freeze is the only one, so its exit is the only unfreeze."""

    __slots__ = ("frozen",)

    def __enter__(self) -> None:
        self.frozen = gc.isenabled() and not gc.get_freeze_count()
        if self.frozen:
            gc.freeze()

    def __exit__(self, *exception) -> None:
        if self.frozen:
            gc.freeze()     # again: the counts restart at zero (see the module's docstring)
            gc.unfreeze()


user_objects_set_aside = SetAside
