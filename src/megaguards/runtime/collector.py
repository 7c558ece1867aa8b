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
which objects were frozen by whom).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def user_objects_set_aside():
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
