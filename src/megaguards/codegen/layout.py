"""The kernel ABI: where each array and scalar lives in the kernel's arguments.

``int mg_kernel(char **arrays, int64_t *ints, double *floats)``

* ``arrays[k]``: base pointer of array k;
* ``ints``: for array k, its dimensions then its strides (in elements); then one
  slot per integer/bool scalar variable; then one "was assigned" flag per live-out;
  then the prologue's answers (``Layout``'s last slots), the boxes of the lists the loop
  touches in part among them;
* ``floats``: one slot per float scalar variable.

Scalar slots carry live-in values in and live-out values back.  Pure function of
the typed loop, shared by the renderer and the runtime's marshalling.
"""
from __future__ import annotations

import enum

from ..record import record
from .. import record as records
from ..analysis.typeinfer import TypedLoop
from ..ir import nodes as ir
from ..ir.types import Scalar, numpy_itemsize


class ArrayKind(enum.IntEnum):
    """How the marshalling helper passes one array argument (the plan's kind field)."""

    NDARRAY = 0      # a NumPy array, read in place
    LIST_BOOL = 1    # lists, unboxed into a buffer of their element class
    LIST_INT = 2
    LIST_FLOAT = 3
    SHADOW = 4       # a NumPy copy of a written array, or None (NULL: no shadow)
    LIST_INT_OR_FLOAT = 5  # a list of ints and floats: (value, class) pairs (prelude's mg_num)
    GROWING = 6      # a list the loop appends to: the kernel fills a growing buffer (prelude's mg_growing)
                     # of the element kind in the plan's itemsize field, appended after a clean run; rank 1:
                     # a list given rows the loop builds (ir.AppendRow): the buffer holds where each row ends
                     # among the values of the buffer whose index the written field holds; rank 2: a table
                     # of ``table[k].append(v)``: the buffer holds the keys, that one the values, the dims
                     # field the slots of Layout.keyed.  Rank 0 with a box field (>= 0): the values are
                     # elements of that array (TypedLoop.references), as the written field's count of
                     # indices each (an element, or a row)


class ScalarBank(enum.IntEnum):
    """Where one live-in scalar goes (the plan's bank field)."""

    INTS = 0
    FLOATS = 1
    TRUTH = 2        # into the ints bank as its truth value (bool, numpy.bool_)
    COMPLEX = 3      # two float slots: real, imaginary
    INT_OR_FLOAT = 4  # two float slots: the value, its class (0.0 int, 1.0 float)


# The kind of an unboxed list by element class; the guard accepts lists of these only.
LIST_KIND = {bool: ArrayKind.LIST_BOOL, int: ArrayKind.LIST_INT, float: ArrayKind.LIST_FLOAT}


def list_kind(element: Scalar) -> ArrayKind:
    """How a list of ``element`` values is unboxed."""
    if element.is_char:   # a str's code points, read as ints (signature.READ_ONLY)
        return ArrayKind.LIST_INT
    return ArrayKind.LIST_INT_OR_FLOAT if element.is_int_or_float else LIST_KIND[element.pyclass]
ARRAY_FIELDS = 6     # per array in the plan: kind, rank, itemsize, written, dims slot, box slot (-1: none)
PLAN_HEADER = 3      # the plan's first fields: number of arrays, the mode slot (-1: no list boxed), the
                     # interrupt slot (the address of marshal.c's SIGINT flag goes there)
# mg_enter's and mg_prologue's answers besides the kernel's flags (guards/assumptions.py's
# MARSHAL_CODES says which assumption each one means, and its reason).
GUARD_FAILED = -1    # a list not rectangular or homogeneous, an int beyond int64
PYTHON_ERROR = -2    # unboxing or boxing raised (memory)
NDARRAY_GUARD = -3   # a NumPy array of another rank, or strides that are not whole elements
SCALAR_GUARD = -4    # a scalar int beyond int64
APPENDED_GUARD = -5  # a list the loop appends to is a row of a list it reads
KEYED_GUARD = -6     # a table of ``table[k].append(v)`` has a row that is not a list, or keys other than 0 .. m-1
MAX_ARRAYS = 64      # arrays one kernel takes (marshal.c's MAX_ARRAYS)
WRITTEN_WHOLE = 2    # the plan's written field: every element written before any is read (not unboxed)
NOT_BOXED_BACK = 4   # a bit of it: a scratch list (frontend/scratch.py), written but never boxed back
MIXED_GUARD = -16    # minus the array's position: a list of ints holds a float, or of floats an int


def boxed_back(written: int) -> bool:
    """A plan's written field says: the loop's writes go back into the list."""
    return bool(written & ~NOT_BOXED_BACK) and not written & NOT_BOXED_BACK


def abi_defines() -> tuple[str, ...]:
    """The codes above as compiler flags for marshal.c, which has no copy of its own."""
    codes = {f"MG_KIND_{kind.name}": int(kind) for kind in ArrayKind}
    codes |= {f"MG_BANK_{bank.name}": int(bank) for bank in ScalarBank}
    codes |= {"MG_ARRAY_FIELDS": ARRAY_FIELDS, "MG_PLAN_HEADER": PLAN_HEADER, "MG_GUARD": GUARD_FAILED, "MG_PYERROR": PYTHON_ERROR,
              "MG_GUARD_NDARRAY": NDARRAY_GUARD, "MG_GUARD_SCALAR": SCALAR_GUARD,
              "MG_GUARD_MIXED": MIXED_GUARD, "MG_GUARD_APPENDED": APPENDED_GUARD,
              "MG_GUARD_KEYED": KEYED_GUARD,
              "MG_MAX_ARRAYS": MAX_ARRAYS, "MG_WRITTEN_WHOLE": WRITTEN_WHOLE,
              "MG_NOT_BOXED_BACK": NOT_BOXED_BACK}
    return tuple(f"-D{name}={value}" for name, value in sorted(codes.items()))


@record
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
    interrupt_slot: int   # ints slot: the address of the flag SIGINT sets (0: none), read by range loops
    boxes: dict           # list -> ints slots of the box it touches (mode 1): lo per dim, hi per dim, then
                          # the gap between the elements touched in the last dim (1: each one)
    float_status_slot: int  # ints slot: in, the IEEE flags NumPy would act on (analysis/floatstatus.py's bits)
    rebound: dict = records.field(default_factory=dict)  # array a swap exchanges -> ints slot: out, the position (in
                                                 # ``arrays``) of the array it names at the end
    growing: dict = records.field(default_factory=dict)  # list appended to -> its mg_arrays index (after the shadows)
    team_slot: int = -1   # ints slot: out, the most threads a parallel loop of the entry ran with (0: none forked)
    keyed: dict = records.field(default_factory=dict)  # table of ``table[k].append(v)`` -> ints slots: in, its
                                                       # rows' count, then 1 for a dict (keys 0 .. m-1), 0 for a list


def plan_layout(typed: TypedLoop, live_ins: tuple[str, ...], live_outs: tuple[str, ...],
                hoisted_loops: int = 0, boxed: frozenset = frozenset()) -> Layout:
    """``boxed``: the lists unboxed only where the loop touches them (analysis.bounds.touched_box)."""
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
        if scalar.is_float or scalar.is_complex or scalar.is_int_or_float:
            scalars[name] = ("floats", next_float)   # a complex takes two: real, imaginary;
            next_float += 1 if scalar.is_float else 2  # an int-or-float two: value, class
        else:
            scalars[name] = ("ints", next_int)
            next_int += 1
    flags, tags = {}, {}
    for name in live_outs:
        if name in typed.variables:
            flags[name] = next_int
            next_int += 1
            if len(typed.assigned_types.get(name, ())) > 1 and not typed.variables[name].is_int_or_float:
                tags[name] = next_int
                next_int += 1
    precondition, in_place, mode, intervals = next_int, next_int + 1, next_int + 2, next_int + 3
    interrupt, float_status = intervals + 2 + 2 * hoisted_loops, intervals + 3 + 2 * hoisted_loops
    team = float_status + 1
    next_int = team + 1
    boxes = {}
    for name in arrays:
        if name in boxed:
            boxes[name] = next_int
            next_int += 2 * typed.arrays[name].rank + 1
    rebound = {}
    for name in sorted(ir.rebound_names(typed.body)):
        rebound[name] = next_int
        next_int += 1
    keyed = {}
    for name in typed.keyed:
        keyed[name] = next_int
        next_int += 2
    growing = {name: len(arrays) + len(shadows) + k for k, name in enumerate(typed.appended)}
    for name in sorted(ir.swapped_tables(typed.body)):   # a table's row map (ir.RowSwap), after the lists
        growing[row_map_name(name)] = len(arrays) + len(shadows) + len(growing)
    return Layout(arrays, dims, scalars, flags, tags, precondition, shadows, in_place, mode, intervals,
                  next_int, next_float, interrupt, boxes, float_status, rebound, growing, team_slot=team, keyed=keyed)


def row_map_name(table: str) -> str:
    """The growing buffer (``Layout.growing``) holding the order of a table's rows (ir.RowSwap)."""
    return f"{table}#rows"


BOX_TAGS = {scalar: tag for tag, scalar in enumerate(Scalar)}


def marshalling_plan(layout: Layout, typed: TypedLoop, written: tuple, is_list: tuple,
                     scalar_paths: tuple) -> list[int]:
    """The plan marshal.c follows at each entry (its header comment reads the same):
    [n_arrays, mode slot or -1, then ARRAY_FIELDS per array, n_scalars, then (bank, slot)
    per scalar]."""
    boxes = layout.boxes or {}
    plan = [len(layout.arrays) + len(layout.shadows) + len(layout.growing), layout.mode_slot if boxes else -1,
            layout.interrupt_slot]
    for name, writes, listed in zip(layout.arrays, written, is_list):
        info = typed.arrays[name]
        kind = list_kind(info.element) if listed else ArrayKind.NDARRAY
        itemsize = 0 if listed else numpy_itemsize(info.element)
        plan += [kind, info.rank, itemsize, int(writes), layout.dims[name], boxes.get(name, -1)]   # 0, 1, WRITTEN_WHOLE
    for name in layout.shadows:
        info = typed.arrays[name]
        plan += [ArrayKind.SHADOW, info.rank, numpy_itemsize(info.element), 0,
                 layout.dims[f"{name}#shadow"], -1]
    for name in layout.growing:
        row = typed.row_lists.get(name)
        if name.endswith("#rows"):   # rank 3: the order of the rows of the table at field 3 (ir.RowSwap)
            plan += [ArrayKind.GROWING, 3, ArrayKind.LIST_INT, layout.arrays.index(name[:-len("#rows")]), 0, -1]
        elif name in typed.keyed:   # rank 2: the buffer holds keys, the values buffer (its entry) their values
            values, _ = typed.keyed[name]
            plan += [ArrayKind.GROWING, 2, list_kind(typed.appended[values]), layout.growing[values],
                     layout.keyed[name], -1]
        elif name in typed.references:   # the values are elements of an array: their indices, so many each
            source, indices = typed.references[name]
            plan += [ArrayKind.GROWING, 0, ArrayKind.LIST_INT, indices, 0, layout.arrays.index(source)]
        elif row is None:   # field 4: the array a list grown in place is too (its elements come first), or -1
            seed = layout.arrays.index(name) if name in typed.arrays else -1
            plan += [ArrayKind.GROWING, 0, list_kind(typed.appended[name]), 0, seed, -1]
        else:   # rank 1: the buffer holds where each row ends in the row's buffer (-1: rows stay empty)
            values = layout.growing.get(row, -1)
            kind = list_kind(typed.appended[row]) if row in typed.appended else ArrayKind.LIST_INT
            plan += [ArrayKind.GROWING, 1, kind, values, 0, -1]
    plan.append(len(scalar_paths))
    for path in scalar_paths:
        bank, slot = layout.scalars[path]
        scalar = typed.variables[path]
        if scalar.is_complex:
            code = ScalarBank.COMPLEX
        elif scalar.is_int_or_float:
            code = ScalarBank.INT_OR_FLOAT
        elif bank == "floats":
            code = ScalarBank.FLOATS
        else:
            code = ScalarBank.TRUTH if scalar.is_bool else ScalarBank.INTS
        plan += [code, slot]
    return [int(value) for value in plan]
