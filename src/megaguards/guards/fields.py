"""The guard's side of lists of objects with numeric fields (frontend/fields.py).

At each entry, the field array ``ps.__items__.x`` is read into a list shaped as ``ps``
(``FieldReader``): every object must be of one class whose field Python stores as a plain
value (checked on the first object: the class decides), and where the loop sets the field,
every object must be in the list once (two cells of the kernel's copy would be one value in
CPython).  After a clean run, the values the kernel changed are set on their objects
(``store_fields``): the boxing keeps the old value object where the value did not change,
so each value is set back (setting one unchanged changes nothing).
A name holding one of the objects (``best = p``) is given to the kernel as the object's index
(``object_index``).

Reading and setting go through small functions compiled per field name (``item.x`` in a
comprehension): CPython's specialized attribute access is about twice as fast as
``operator.attrgetter`` or ``setattr`` on plain objects.
"""
from __future__ import annotations

from ..ir import nodes as ir
from .assumptions import Assumption


def all_distinct(rows: list) -> bool:
    """Does each object appear once in the rows (lists of objects)?  (Python's answer, for
    the entries before the back end has loaded marshal.c's ``mg_distinct``.)"""
    count = sum(map(len, rows))
    return len({id(item) for row in rows for item in row}) == count


def class_attribute(cls: type, name: str, missing: object = None) -> object:
    """``name`` as the class's own lookup finds it (the first ``__dict__`` along its MRO
    holding it: a slot's member descriptor, a property, a method), else ``missing``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return missing


class FieldReader:
    """The getter of one field array: its objects' field values, as a list of their shape."""

    def __init__(self, objects, array: str, field: str, rank: int, written: bool, check, binder) -> None:
        if not field.isidentifier():
            raise ValueError(f"not a field name: {field!r}")
        self.objects, self.array, self.field, self.rank, self.written = objects, array, field, rank, written
        self.check = check      # guards/signature.py's settable (a field set) or safe_getattr (read only)
        self.compared = False   # the loop compares the list's objects (Binder: Loop.compared_lists)
        self.binder = binder    # its ``distinct``: marshal.c's, once loaded
        namespace: dict = {}
        exec(f"def read(items):\n    return [item.{field} for item in items]\n\n"   # noqa: S102 - an identifier
             f"def write(objects, values):\n    for k in range(len(values)):\n        objects[k].{field} = values[k]\n",
             namespace)
        self.read, self.write_all = namespace["read"], namespace["write"]

    def __call__(self, values: tuple) -> list:
        objects = self.objects(values)
        # The fields of one list share its checks (its rows, their one class, each object
        # once): made once per entry (``values``), the first of its fields read.
        seen = self.binder.objects_seen.get(id(objects))
        if seen is None or seen[0] is not values:
            seen = self.binder.objects_seen[id(objects)] = (values, *self.rows_and_class(objects), [None])
        _, rows, first, distinct = seen
        if first is None:
            return _shaped(objects, self.rank, [[] for _ in rows])
        self.check(first, self.field)   # no property, no __getattr__, no __setattr__: the class decides
        cls = type(first)
        if self.compared and (cls.__eq__ is not object.__eq__ or cls.__ne__ is not object.__ne__
                              or not self.each_once(rows, distinct)):
            raise Assumption.OBJECTS_COMPARED.failure(name=ir.describe_name(self.array))
        if self.written and not self.compared and not self.each_once(rows, distinct):
            raise Assumption.FIELD_DISTINCT.failure(name=ir.describe_name(self.array), field=self.field)
        offset = self.slot_offset(cls)
        try:
            if offset >= 0:   # a __slots__ member: marshal.c reads it at its offset
                return _shaped(objects, self.rank, [self.binder.slots.mg_slot_values(row, offset) for row in rows])
            return _shaped(objects, self.rank, [self.read(row) for row in rows])
        except AttributeError:
            raise Assumption.FIELD_PRESENT.failure(name=ir.describe_name(self.array), field=self.field) from None

    def rows_and_class(self, objects) -> tuple:
        """The innermost rows of ``objects`` and their first object (None: no object), all
        objects checked to be of its class."""
        rows = [objects]
        for _ in range(self.rank - 1):
            if any(type(row) is not list for row in rows):
                raise Assumption.LIST_RANK.failure(rank=self.rank)
            rows = [row for outer in rows for row in outer]
        if any(type(row) is not list for row in rows):
            if self.rank == 1:
                raise Assumption.ARRAY_CLASS.failure(cls=type(objects).__name__)
            raise Assumption.LIST_RANK.failure(rank=self.rank)
        first = next((row[0] for row in rows if row), None)
        classes = set()
        for row in rows:
            classes.update(map(type, row))
        if len(classes) > 1:
            raise Assumption.FIELD_ONE_CLASS.failure(name=ir.describe_name(self.array),
                                                     classes=" and ".join(sorted(c.__name__ for c in classes)))
        return rows, first

    def each_once(self, rows: list, known: list) -> bool:
        """Does each object appear once in the rows?  (``known``: the answer, once asked.)"""
        if known[0] is None:
            known[0] = self.binder.distinct(rows)
        return known[0]

    def slot_offset(self, cls: type) -> int:
        """Where objects of ``cls`` keep the field, when it is a ``__slots__`` member that
        marshal.c may read and set in place (its ``mg_slot_offset``); -1 otherwise, or before
        the back end has loaded the helper."""
        slots = self.binder.slots
        if slots is None:
            return -1
        descriptor = class_attribute(cls, self.field)
        return -1 if descriptor is None else slots.mg_slot_offset(descriptor, cls)

    def write(self, objects: list, values: list, rank: int, offset: int | None = None) -> None:
        """Set every value on its object: one the kernel left unchanged is the very object the
        field holds (the boxing keeps it), so setting it again changes nothing, and costs
        less than finding the changed ones."""
        if offset is None:   # the objects are of one class (checked at this entry): the first's
            first = _first_object(objects, rank)
            offset = -1 if first is None else self.slot_offset(type(first))
        if rank > 1:
            for inner, row in zip(objects, values):
                self.write(inner, row, rank - 1, offset)
            return
        if offset < 0 or self.binder.slots.mg_set_slots(objects, offset, values) != 0:
            self.write_all(objects, values)


def _first_object(objects: list, rank: int):
    """The first object of a nest of lists ``rank`` deep (None: none)."""
    if rank == 1:
        return next(iter(objects), None)
    return next((found for row in objects if (found := _first_object(row, rank - 1)) is not None), None)


def _shaped(objects: list, rank: int, values: list) -> list:
    """``values`` (one list per innermost row of ``objects``) nested as ``objects`` is."""
    if rank == 1:
        return values[0]
    rows = iter(values)

    def nest(level: list, depth: int) -> list:
        return [next(rows) for _ in level] if depth == rank - 1 else [nest(row, depth + 1) for row in level]
    return nest(objects, 1)


def store_fields(binding) -> None:
    """After a clean run: set on each object the field values the kernel left."""
    for position, objects, write, rank in binding.fields:
        write(objects, binding.arrays[position], rank)


def object_at(objects: list, index: int):
    """The object a kernel's index stands for (``object_index`` backwards): None for the
    list's length."""
    return objects[index] if index < len(objects) else None


def object_index(objects_getter, getter, name: str, array: str):
    """The getter of a live-in naming an object of a list (frontend/object_uses.py's variables:
    ``best = ps[0]`` before ``for p in ps: if p.m > best.m: best = p``): the object's index
    in the list, found by identity (no user code runs: ids are compared), the list's length
    for None."""
    def get(values):
        objects, value = objects_getter(values), getter(values)
        if type(objects) is not list:
            raise Assumption.ARRAY_CLASS.failure(cls=type(objects).__name__)
        if value is None:
            return len(objects)
        if objects and objects[0] is value:   # best = ps[0], the usual start
            return 0
        try:
            return list(map(id, objects)).index(id(value))
        except ValueError:
            raise Assumption.OBJECT_IN_LIST.failure(name=ir.describe_name(name), array=ir.describe_name(array)) from None
    return get
