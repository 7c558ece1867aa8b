"""The kernel ABI: where each array and scalar lives in the kernel's arguments.

``int mg_kernel(char **arrays, int64_t *ints, double *floats)``

* ``arrays[k]``: base pointer of array k;
* ``ints``: for array k, its dimensions then its strides (in elements); then one
  slot per integer/bool scalar variable; then one "was assigned" flag per live-out;
* ``floats``: one slot per float scalar variable.

Scalar slots carry live-in values in and live-out values back.  Pure function of
the typed loop, shared by the renderer and the runtime's marshalling.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.typeinfer import TypedLoop
from ..ir.types import Scalar

# The kind code of an unboxed list in the marshalling plan, by element class (marshal.c's
# KIND_BOOL, KIND_INT, KIND_FLOAT); the guard accepts lists of these classes only.
LIST_KIND = {bool: 1, int: 2, float: 3}


@dataclass(frozen=True)
class Layout:
    arrays: tuple[str, ...]
    dims: dict        # array -> first ints slot of its dims (strides follow, rank slots later)
    scalars: dict     # variable -> ("ints" | "floats", slot)
    assigned_flags: dict  # live-out variable -> ints slot of its "was assigned" flag
    box_tags: dict        # live-out assigned several classes -> ints slot of the last one's tag
    precondition_slot: int  # ints slot: number of the first hoisted check that failed, or -1
    shadows: dict         # NumPy array -> mg_arrays index of its shadow (NULL: never written)
    in_place_slot: int    # ints slot: 1 if NumPy arrays were written in place, 0 if into shadows
    mode_slot: int        # ints slot: 1 asks the kernel to run its hoisted checks only (GPU host)
    intervals_slot: int   # ints slots: mg_fast, mg_negative, then lo/hi of each hoisted loop's range
    int_slots: int
    float_slots: int


def plan_layout(typed: TypedLoop, live_ins: tuple[str, ...], live_outs: tuple[str, ...],
                hoisted_loops: int = 0) -> Layout:
    arrays = tuple(typed.arrays)  # the order of loop.arrays, as the runtime binds them
    numpy_arrays = [name for name in arrays if not typed.arrays[name].is_list]
    shadows = {name: len(arrays) + k for k, name in enumerate(numpy_arrays)}
    dims, next_int = {}, 0
    for name in arrays + tuple(f"{name}#shadow" for name in numpy_arrays):
        dims[name] = next_int
        next_int += 2 * typed.arrays[name.split("#")[0]].rank
    scalars, next_float = {}, 0
    for name in dict.fromkeys(list(live_ins) + list(live_outs)):
        scalar = typed.variables.get(name)
        if scalar is None:
            continue
        if scalar.is_float or scalar.is_complex:  # a complex takes two: real, imaginary
            scalars[name] = ("floats", next_float)
            next_float += 2 if scalar.is_complex else 1
        else:
            scalars[name] = ("ints", next_int)
            next_int += 1
    flags, tags = {}, {}
    for name in live_outs:
        if name in typed.variables:
            flags[name] = next_int
            next_int += 1
            if len(typed.assigned_types.get(name, ())) > 1:
                tags[name] = next_int
                next_int += 1
    precondition, in_place, mode, intervals = next_int, next_int + 1, next_int + 2, next_int + 3
    int_slots = intervals + 2 + 2 * hoisted_loops
    return Layout(arrays, dims, scalars, flags, tags, precondition, shadows, in_place, mode, intervals,
                  int_slots, next_float)


BOX_TAGS = {scalar: tag for tag, scalar in enumerate(Scalar)}
