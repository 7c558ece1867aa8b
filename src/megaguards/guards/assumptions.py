"""The mega guard's assumptions, each described once, and the entry check run from them.

A compiled loop assumes things about the live-ins of each entry: their classes, the
int64 range, the shape and element class of lists, the dtype, rank and strides of NumPy
arrays, which names are the same object, that no list row or NumPy view is reachable
twice when the loop writes, ...  ``Assumption`` is the table of them: each member has the
one-line reason a failure reports (``guard: <reason>`` in the site's reasons; the texts
are part of the reports users and tests read) and where it is checked:

* ``Binder.bind`` (guards/signature.py), every entry, while computing the specialization
  key: the key holds classes, dtypes, ranks, unit strides and alias groups, so whatever
  the key fixes is checked once per key by ``Binder.describe``;
* ``check_entry`` (below), every entry, from the specialization's ``EntryAssumptions``:
  the CPU kernel (runtime/kernel.py) and the GPU path (runtime/cuda.py) both call it;
* ``marshal.c``, every entry, in the one pass that unboxes lists: its answers
  (codegen/layout.py's codes) map to the table through ``MARSHAL_CODES``;
* the GPU's results (runtime/cuda.py, runtime/data.py), after its kernel ran.

The hoisted preconditions (codegen/prologue.py) are assumptions too, but a failing one
does not leave the compiled path: the kernel runs its copy of the loop that checks inside,
and the site notes the failed check's description (``EntryAssumptions.preconditions``).
"""
from __future__ import annotations

import enum

from ..record import record
from ..codegen.layout import (APPENDED_GUARD, GUARD_FAILED, KEYED_GUARD, MAX_ARRAYS, MIXED_GUARD, NDARRAY_GUARD,
                              PYTHON_ERROR, SCALAR_GUARD, ArrayKind, list_kind)
from ..errors import GuardFailure
from ..ir.types import ndarray_class, numpy_module


class Assumption(enum.Enum):
    """What a compiled loop assumes: (reason reported when it fails, where it is checked).

    The reason is a ``str.format`` template; ``failure(**fields)`` fills it in."""

    # -- reading the live-ins' paths without running user code (Binder.bind) ----------
    MODULE_ATTRIBUTE = ("module {module!r} has no attribute {attribute!r}", "Binder.bind (safe_getattr)")
    PLAIN_ATTRIBUTE_ACCESS = ("{cls} customises attribute access", "Binder.bind (safe_getattr)")
    SLOT_SET = ("attribute {attribute!r} is not set", "Binder.bind (safe_getattr)")
    NO_DESCRIPTOR = ("attribute {attribute!r} is a property or descriptor", "Binder.bind (safe_getattr)")
    STORED_ATTRIBUTE = ("attribute {attribute!r} is missing or computed", "Binder.bind (safe_getattr)")
    PLAIN_ATTRIBUTE_SET = ("setting attribute {attribute!r} of a {cls} would run its code (a property, "
                           "__setattr__, __slots__ without it, a module)", "Binder.bind (settable)")
    PYTHON_FUNCTION = ("{cls} is not a Python function", "Binder.bind (follow)")
    GLOBAL_DEFINED = ("name {name!r} is not defined in {function}'s module", "Binder.bind (follow)")
    FREE_VARIABLE_BOUND = ("free variable {name!r} of {function} is not bound", "Binder.bind (follow)")
    PARAMETER_DEFAULT = ("parameter {name!r} of {function} has no default", "Binder.bind (follow)")
    # -- scalars ----------------------------------------------------------------------
    SCALAR_NUMBER = ("{name} is a {cls}, not a number", "Binder.describe (the class is in the key)")
    SCALAR_INT64 = ("an int live-in outside int64", "Binder.bind; marshal.c (store_scalar, again)")
    # -- arrays: the class, and a list's rank and leaf class (in the key) -------------
    ARRAY_CLASS = ("an array live-in is a {cls}, not a list, NumPy array, array.array, str or bytes", "Binder.bind")
    LIST_RANK = ("not a {rank}-D list", "Binder.bind (list_leaf_class)")
    LIST_NOT_EMPTY = ("an empty list (its element type is unknown)", "Binder.bind (list_leaf_class)")
    LIST_LEAF_CLASS = ("a list of {cls}, not of bool, int or float", "Binder.bind (list_leaf_class)")
    FIELD_ONE_CLASS = ("the items of {name} are of several classes ({classes})", "Binder.bind (guards/fields.py FieldReader)")
    FIELD_PRESENT = ("an item of {name} has no attribute {field!r}", "Binder.bind (guards/fields.py FieldReader)")
    METHOD_NOT_SHADOWED = ("an object has an attribute {method!r} of its own, hiding its class's method",
                           "Binder.bind (item_method)")
    OBJECTS_COMPARED = ("{name} holds one object more than once, or its objects' class defines ==, and the "
                        "loop compares them", "Binder.bind (guards/fields.py FieldReader)")
    FIELD_DISTINCT = ("{name} holds one object more than once and the loop sets its {field!r}",
                      "Binder.bind (guards/fields.py FieldReader)")
    OBJECT_IN_LIST = ("{name} holds an object that is not one of {array}'s (or not None)",
                      "Binder.bind (object_index)")
    FIELDS_DISJOINT = ("{names} share an object and the loop sets its {field!r} through one of them",
                       "Binder.bind (disjoint_fields)")
    BUFFER_TYPECODE = ("{name} is an array.array or memoryview of format {code!r}: only one dimension of "
                       "numbers (b B h H i I l L q Q f d) is read", "Binder.bind (buffer_element)")
    BUFFER_WRITABLE = ("{name} is a read-only memoryview the loop writes (Python raises TypeError)",
                       "Binder.bind (buffer_element)")
    BUFFERS_DISJOINT = ("a memoryview and another array name may share memory, and the loop writes one",
                        "Binder.bind (buffers_disjoint)")
    TEXT_READ = ("{name} is a {cls}, which the loop indexes twice or assigns into (a kernel only reads one "
                 "level of it)", "Binder.bind")
    ROW_WIDTH = ("the rows of {name} hold {width} values where the loop unpacks {wanted}",
                 "Binder.bind (row_width); the other rows: marshal.c (unbox_level, rectangular)")
    # -- NumPy and CuPy arrays: dtype and rank are in the key -------------------------
    NDARRAY_DTYPE = ("'{name}' is a NumPy array of dtype {dtype}", "Binder.describe")
    NDARRAY_RANK = ("'{name}' is a {ndim}-D array indexed with {rank} subscripts", "Binder.describe")
    HOST_ARRAYS = ("CuPy arrays need the GPU, and this loop cannot run there", "check_entry (not on the GPU)")
    # -- aliasing: the alias groups are in the key; what a written array adds -----------
    WRITTEN_WRITEABLE = ("a read-only NumPy array is written (Python raises ValueError)", "check_entry")
    WRITTEN_NOT_SELF_OVERLAPPING = ("a written NumPy view whose elements overlap (as_strided)", "check_entry")
    WRITTEN_VIEWS_DISJOINT = ("overlapping NumPy views, one of them written", "check_entry")
    LIST_ROWS_DISTINCT = ("a list row appears twice (e.g. [[0] * n] * m), and the loop writes lists",
                         "check_entry")
    # -- while unboxing (marshal.c, its codes in MARSHAL_CODES) -------------------------
    LISTS_UNBOX = ("a list that is not rectangular or not homogeneous, or an int beyond int64",
                   "marshal.c (unbox_level, list_shape; also more than 64 arrays)")
    # Today's text is the list's (the two shared one code until the table split them):
    # kept, so that reports do not change; a NumPy field view (rec['x']) meets it.
    NDARRAY_LAYOUT = ("a list that is not rectangular or not homogeneous, or an int beyond int64",
                      "marshal.c (ndarray_dims: the rank, strides of whole elements)")
    APPENDED_LIST = ("'append' is called on a {cls}, not a list", "Binder.bind")
    APPENDED_DISTINCT = ("a list the loop appends to is also an array it reads (or a row of one), or appended "
                         "to under two names", "Binder.bind; rows: marshal.c (mg_enter)")
    KEYED_CLASS = ("'table[key].append' on a {cls}: a compiled loop appends to the rows of a list of lists or a "
                   "dict of lists",
                   "Binder.bind")
    KEYED_TABLE = ("'table[key].append' on a table with a row that is not a list, or a dict whose keys are not the "
                   "ints 0 .. m-1, or of rows of something other than a list", "marshal.c (table_rows, mg_enter)")
    LIST_ONE_CLASS = ("a list holds ints and floats: the loop is typed again, the list int-or-float",
                      "marshal.c (unbox_level): the site's Binder.mixed")
    UNBOXING_SUCCEEDS = ("unboxing raised (out of memory, or a value that does not convert)",
                         "marshal.c (store_scalar, malloc, boxing back)")
    PROLOGUE_READABLE = ("a live-in the kernel's prologue cannot read (as the run would find)",
                         "marshal.c (mg_prologue: any of its codes)")
    # -- the GPU's results --------------------------------------------------------------
    GPU_SUM_INT64 = ("an integer sum on the GPU may exceed int64", "GpuSpecialization.live_outs")
    LIVE_OUT_CLASS = ("the class of '{name}' after the loop is not known", "data.box_live_outs (GPU)")

    def __init__(self, reason: str, where: str) -> None:
        self.reason = reason
        self.where = where

    def failure(self, **fields) -> GuardFailure:
        """The GuardFailure to raise, its reason filled in with ``fields``."""
        return GuardFailure(self.reason.format(**fields) if fields else self.reason, self)


# marshal.c's answers besides the kernel's flags (codegen/layout.py defines the codes).
MARSHAL_CODES = {GUARD_FAILED: Assumption.LISTS_UNBOX, NDARRAY_GUARD: Assumption.NDARRAY_LAYOUT,
                 SCALAR_GUARD: Assumption.SCALAR_INT64, PYTHON_ERROR: Assumption.UNBOXING_SUCCEEDS,
                 APPENDED_GUARD: Assumption.APPENDED_DISTINCT, KEYED_GUARD: Assumption.KEYED_TABLE,
                 MIXED_GUARD: Assumption.LIST_ONE_CLASS}   # and MIXED_GUARD - k: the list at position k


def marshal_failure(code: int) -> GuardFailure:
    """The GuardFailure a negative answer of marshal.c (mg_enter, mg_unbox_into) means."""
    if MIXED_GUARD - MAX_ARRAYS < code <= MIXED_GUARD:
        failure = Assumption.LIST_ONE_CLASS.failure()
        failure.array_position = MIXED_GUARD - code
        return failure
    return MARSHAL_CODES.get(code, Assumption.LISTS_UNBOX).failure()


@record
class ArrayAssumed:
    """What one array name of a specialization assumes of its object."""

    name: str
    kind: ArrayKind      # a list of this leaf class (unboxed), or NDARRAY (read in place)
    rank: int
    written: bool
    group: str           # alias group: the first name bound to the same object (in the key)


@record
class EntryAssumptions:
    """Which assumptions one specialization makes beyond its key, and what ``check_entry``
    checks at each of its entries (the derived tuples are read there, nothing is built)."""

    arrays: tuple        # ArrayAssumed, in layout order (the order of Binding.arrays)
    distinct_rows: bool  # the loop writes a list and a row could be reachable twice
    numpy_written: tuple  # positions of written NumPy arrays: writeable, not overlapping
    preconditions: tuple  # the hoisted checks' descriptions, by number
    is_list: tuple       # per array: a list (True) or a NumPy array
    ranks: tuple         # per array: its rank

    @property
    def checked_at_entry(self) -> bool:
        """Does ``check_entry`` have anything to check (CuPy arrays aside)?"""
        return self.distinct_rows or bool(self.numpy_written)


def entry_assumptions(arrays, written: tuple, is_list: tuple, groups: dict | None,
                      preconditions: tuple) -> EntryAssumptions:
    """The record of a specialization: ``arrays`` are (name, ArrayInfo) in layout order."""
    records = tuple(ArrayAssumed(name, list_kind(info.element) if listed else ArrayKind.NDARRAY,
                                 info.rank, bool(writes), (groups or {}).get(name, name))
                    for (name, info), writes, listed in zip(arrays, written, is_list))
    ranks = tuple(record.rank for record in records)
    # One list only, of rank 1, cannot hold a row twice; any written list with another one
    # (or with rows) can.
    distinct_rows = any(w and listed for w, listed in zip(written, is_list)) and (
        sum(is_list) > 1 or any(rank > 1 for rank in ranks))
    numpy_written = tuple(k for k, (w, listed) in enumerate(zip(written, is_list)) if w and not listed)
    return EntryAssumptions(records, distinct_rows, numpy_written, tuple(preconditions), tuple(is_list), ranks)


def check_entry(assumed: EntryAssumptions, binding, gpu: bool = False) -> None:
    """The per-entry checks beyond the key, CPU kernel and GPU path alike (``gpu``: CuPy
    arrays may come); GuardFailure on the first assumption that does not hold.

    A written NumPy array is writeable, no two of its indices reach one element, and no
    other name's view overlaps it (that view would see stale data: the kernel writes a
    copy, committed after success).  A list row is reachable once only when lists are
    written."""
    if binding.on_device and not gpu:
        raise Assumption.HOST_ARRAYS.failure()
    arrays = binding.arrays
    if assumed.numpy_written:
        ndarray = ndarray_class()
        written = {id(arrays[k]): arrays[k] for k in assumed.numpy_written if type(arrays[k]) is ndarray}
        for original in written.values():
            if not original.flags.writeable:
                raise Assumption.WRITTEN_WRITEABLE.failure()
            if self_overlapping(original):
                raise Assumption.WRITTEN_NOT_SELF_OVERLAPPING.failure()
        for original in written.values():
            for other in arrays:
                if (type(other) is ndarray and other is not original
                        and numpy_module().may_share_memory(original, other)):
                    raise Assumption.WRITTEN_VIEWS_DISJOINT.failure()
    if assumed.distinct_rows:
        check_list_rows(arrays, assumed.is_list, assumed.ranks)


def self_overlapping(array) -> bool:
    """Can two different indices of this view reach one element (stride 0, windows)?"""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return False
    required = array.itemsize
    for stride, size in sorted((abs(s), n) for s, n in zip(array.strides, array.shape) if n > 1):
        if stride < required:
            return True
        required = stride * size
    return False


def check_list_rows(arrays, is_list, ranks) -> None:
    """A row reachable twice (``[[0] * n] * m``, or a row passed beside its matrix)
    would be written through one name and read stale through the other.  The identities
    are gathered a level at a time with ``map(id, ...)``: a generator per row cost 3 ms an
    entry for hotspot's three 1024-row grids."""
    identities: list[int] = []
    done: set[int] = set()
    for value, listed, rank in zip(arrays, is_list, ranks):
        if listed and id(value) not in done:
            done.add(id(value))
            identities.append(id(value))
            level = [value]
            for _ in range(rank - 1):
                level = [row for outer in level for row in outer]
                identities.extend(map(id, level))
    if len(set(identities)) != len(identities):
        raise Assumption.LIST_ROWS_DISTINCT.failure()
