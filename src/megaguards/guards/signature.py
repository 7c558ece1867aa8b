"""The mega guard's entry check: bind live-ins and compute the type signature.

The signature is the cache key of a specialization: the scalar type of every
scalar live-in, the element type and rank of every array (list or NumPy),
which function object each called name is bound to, and which array names are
the same object.  Anything the compiled code cannot represent raises
``GuardFailure`` with the one-line reason of an assumption of guards/assumptions.py's
table; the loop then runs in CPython.
"""
from __future__ import annotations

import operator
from itertools import repeat
from operator import attrgetter, is_
import types

from array import array as ArrayArray

from ..record import record
from ..analysis.functions import canonical_name
from ..codegen.layout import LIST_KIND
from ..errors import GuardFailure, Unsupported
from ..ir import nodes as ir
from ..ir.types import (INT64_MAX, INT64_MIN, Scalar, ndarray_class, numpy_dtype_scalar, scalar_of_class)
from .assumptions import Assumption
from .buffers import BUFFER_CLASSES, buffer_element, buffers_disjoint
from .fields import FieldReader, all_distinct, class_attribute, object_at, object_index

_MISSING = object()
INT_OR_FLOAT_LIST = "list of ints and floats"   # a list's entry in the key where the site saw one mix them


EMPTY = "an empty list"   # the signature's class of a list grown in place, empty at entry


def list_leaf_class(value: list, rank: int, tuples: bool = False) -> type:
    """Class of the first scalar of a ``rank``-deep list (the guard checks the rest
    while unboxing); raises GuardFailure if it is not a list of that rank or is empty.
    ``tuples``: its rows may be tuples (a list the loop only reads: ``for x, y in pairs``)."""
    leaf = value
    for depth in range(rank):
        if type(leaf) is not list and not (tuples and depth and type(leaf) is tuple):
            raise Assumption.LIST_RANK.failure(rank=rank)
        if not leaf:
            raise Assumption.LIST_NOT_EMPTY.failure()
        leaf = leaf[0]
    if type(leaf) not in LIST_KIND:
        raise Assumption.LIST_LEAF_CLASS.failure(cls=type(leaf).__name__)
    return type(leaf)


def safe_getattr(obj: object, attribute: str) -> object:
    """``obj.attribute`` when reading it cannot run user code (no property, no __getattr__)."""
    if isinstance(obj, types.ModuleType):
        value = obj.__dict__.get(attribute, _MISSING)
        if value is _MISSING:
            raise Assumption.MODULE_ATTRIBUTE.failure(module=obj.__name__, attribute=attribute)
        return value
    cls = type(obj)
    if cls in (complex, float, int, bool) and attribute in ("real", "imag"):
        return getattr(obj, attribute)  # a number's parts (z.real): no user code runs
    if cls.__getattribute__ is not object.__getattribute__ or hasattr(cls, "__getattr__"):
        raise Assumption.PLAIN_ATTRIBUTE_ACCESS.failure(cls=cls.__name__)
    class_value = class_attribute(cls, attribute, _MISSING)
    if class_value is not _MISSING and isinstance(class_value, types.MemberDescriptorType):
        try:
            return getattr(obj, attribute)  # a __slots__ member: no user code runs
        except AttributeError:
            raise Assumption.SLOT_SET.failure(attribute=attribute) from None
    if class_value is not _MISSING and (hasattr(type(class_value), "__set__") or hasattr(type(class_value), "__delete__")):
        raise Assumption.NO_DESCRIPTOR.failure(attribute=attribute)
    own = own_value(obj, attribute, class_value)
    if own is not _MISSING:
        return own
    if isinstance(class_value, types.FunctionType):
        return class_value  # a method: the plain function (the inliner passes the object itself)
    if class_value is _MISSING or hasattr(type(class_value), "__get__"):
        raise Assumption.STORED_ATTRIBUTE.failure(attribute=attribute)
    return class_value


def own_value(obj: object, attribute: str, class_value: object = _MISSING) -> object:
    """The value ``obj`` holds under ``attribute`` itself (not its class's), else _MISSING;
    ``class_value``: what its class holds there (no data descriptor, no custom attribute
    access: checked before).  Read without asking for ``obj.__dict__``: CPython 3.11+ keeps
    an object's attributes inline until its ``__dict__`` is asked for, and from then on every
    attribute access on that object is about twice as slow (measured: a method reading and
    setting four attributes, 0.26 -> 0.51 s for 2e6 calls), for the rest of the program."""
    if type(obj).__dictoffset__ == 0:
        return _MISSING   # no instance dict (__slots__ only)
    if class_value is not _MISSING and not isinstance(class_value, types.FunctionType) \
            and hasattr(type(class_value), "__get__"):
        own = getattr(obj, "__dict__", None)   # another kind of descriptor (rare): its __get__ may be Python code
        return own.get(attribute, _MISSING) if type(own) is dict else _MISSING
    try:
        value = object.__getattribute__(obj, attribute)   # the object's own, else the class's (C code only)
    except AttributeError:
        return _MISSING
    if type(value) is types.MethodType and value.__func__ is class_value and value.__self__ is obj:
        return _MISSING   # the class's function, bound
    return _MISSING if value is class_value else value   # (the same object either way)


def settable(obj: object, attribute: str) -> None:
    """Raise unless ``obj.attribute = value`` stores the value and runs no code: the loop
    assigns it once, after its run, where Python assigned it at each iteration."""
    cls = type(obj)
    plain = not isinstance(obj, types.ModuleType) and cls.__setattr__ is object.__setattr__
    class_value = class_attribute(cls, attribute, _MISSING)
    if isinstance(class_value, types.MemberDescriptorType):   # a __slots__ member: stored as such
        stored = True
    else:
        descriptor = class_value is not _MISSING and (hasattr(type(class_value), "__set__")
                                                      or hasattr(type(class_value), "__delete__"))
        stored = not descriptor and cls.__dictoffset__ != 0   # instances hold a __dict__ (not asked for: own_value)
    if not (plain and stored):
        raise Assumption.PLAIN_ATTRIBUTE_SET.failure(attribute=attribute, cls=cls.__name__)


def _steps(path: str) -> tuple[str, list]:
    head, *parts = path.split(".")
    steps, k = [], 0
    while k < len(parts):
        if (parts[k] in ir.ROUTE_SEGMENTS or parts[k] == ir.ITEMS_SEGMENT) and k + 1 < len(parts):
            steps.append((parts[k], parts[k + 1]))
            k += 2
        else:
            steps.append(("attribute", parts[k]))
            k += 1
    return head, steps


def follow(value: object, kind: str, name: str) -> object:
    """One step of a path: an attribute, or a function's global, free variable or default."""
    if kind == "attribute":
        return safe_getattr(value, name)
    if kind == ir.ITEMS_SEGMENT:   # a method of the items, or (p.pos.norm()) the objects a field holds
        return item_method(value, name) if _is_method(value, name) else item_field(value, name)
    if not isinstance(value, types.FunctionType):
        raise Assumption.PYTHON_FUNCTION.failure(cls=type(value).__name__)
    if kind == "__globals__":
        for namespace in (value.__globals__, value.__builtins__):
            namespace = namespace.__dict__ if isinstance(namespace, types.ModuleType) else namespace
            if name in namespace:
                return namespace[name]
        raise Assumption.GLOBAL_DEFINED.failure(name=name, function=value.__name__)
    code = value.__code__
    if kind == "__closure__":
        try:
            return value.__closure__[code.co_freevars.index(name)].cell_contents
        except (ValueError, IndexError, TypeError):
            raise Assumption.FREE_VARIABLE_BOUND.failure(name=name, function=value.__name__) from None
    positional = code.co_varnames[:code.co_argcount]
    defaults = value.__defaults__ or ()
    if name in positional and positional.index(name) >= len(positional) - len(defaults):
        return defaults[positional.index(name) - (len(positional) - len(defaults))]
    if name in (value.__kwdefaults__ or {}):
        return value.__kwdefaults__[name]
    raise Assumption.PARAMETER_DEFAULT.failure(name=name, function=value.__name__)


def item_method(objects, name: str):
    """The method ``name`` the objects of a list share (``p.update(dt)`` over ``for p in ps``,
    frontend/fields.py): their class's function, where no object holds an attribute of that
    name of its own (the guard's field readers check they are of one class)."""
    if type(objects) is not list:
        raise Assumption.ARRAY_CLASS.failure(cls=type(objects).__name__)
    if not objects:
        raise Assumption.LIST_NOT_EMPTY.failure()
    method = safe_getattr(objects[0], name)
    if not isinstance(method, types.FunctionType):
        raise Assumption.PYTHON_FUNCTION.failure(cls=type(method).__name__)
    cls = type(objects[0])
    if cls.__dictoffset__ == 0 or len(set(map(type, objects))) > 1:
        return method   # __slots__ only: none can shadow it; several classes: the field readers refuse the list
    # No object may hold an attribute of that name of its own: each reads as the method bound
    # to it (C code only: one class, whose attribute is a function; no __dict__ asked for).
    bound = list(map(object.__getattribute__, objects, repeat(name)))
    if set(map(type, bound)) != {types.MethodType} or set(map(attrgetter("__func__"), bound)) != {method} \
            or not all(map(is_, map(attrgetter("__self__"), bound), objects)):
        raise Assumption.METHOD_NOT_SHADOWED.failure(method=name)
    return method


def _is_method(objects, name: str) -> bool:
    return type(objects) is list and bool(objects) and isinstance(getattr(type(objects[0]), name, None),
                                                                   types.FunctionType)


def item_field(objects, name: str) -> list:
    """The objects a field of a list's objects holds (``pos`` of ``p.pos.norm()``): their
    methods are found on them as on the list's (``item_method``)."""
    if type(objects) is not list:
        raise Assumption.ARRAY_CLASS.failure(cls=type(objects).__name__)
    return [safe_getattr(item, name) for item in objects]


def resolve_callee(path: str, values: tuple, index: dict) -> tuple[object, str | None] | None:
    """(function, receiver path or None) when ``path`` names a user-defined Python function
    for these live-ins (a method: the receiver is the object it is called on), else None."""
    head, steps = _steps(path)
    if head not in index:
        return None
    value, parent = values[index[head]], None
    try:
        for kind, name in steps:
            parent, value = value, follow(value, kind, name)
    except GuardFailure:
        return None
    if not isinstance(value, types.FunctionType):
        return None
    is_method = (steps and steps[-1][0] == "attribute" and not isinstance(parent, (types.ModuleType, type))
                 and own_value(parent, steps[-1][1], value) is _MISSING)
    return value, path.rsplit(".", 1)[0] if is_method else None


def is_cupy_array(value: object) -> bool:
    """A CuPy array (checked without importing CuPy)."""
    cls = type(value)
    return cls.__name__ == "ndarray" and cls.__module__.startswith("cupy")


# Sequences a loop may read like arrays, never write: a str's characters (held as their code
# points), the ints of bytes and bytearray (marshal_lists.c's copy_text).
READ_ONLY = {str: Scalar.PY_CHAR, bytes: Scalar.PY_INT, bytearray: Scalar.PY_INT}


def is_array(value: object) -> bool:
    """Of a class ``Binder.bind`` takes for an array (else ARRAY_CLASS fails)."""
    cls = type(value)
    return cls is list or cls is ndarray_class() or cls in BUFFER_CLASSES or cls in READ_ONLY or is_cupy_array(value)


def scalar_type(name: str, value: object) -> Scalar:
    scalar = scalar_of_class(type(value))
    if scalar is None:
        raise Assumption.SCALAR_NUMBER.failure(name=ir.describe_name(name), cls=type(value).__name__)
    if scalar is Scalar.PY_INT and not INT64_MIN <= value <= INT64_MAX:
        raise Assumption.SCALAR_INT64.failure()   # Binder.bind has already refused it
    return scalar


def array_element(name: str, value: object, rank: int, mixed: bool = False,
                  tuples: bool = False) -> tuple:
    """(element type, is a list, last dimension contiguous[, an array.array]) of an array live-in (``mixed``: a
    list of ints and floats; ``tuples``: rows may be tuples); GuardFailure if unsupported.
    An array.array is a list to the stages (its items are Python's numbers), held in a buffer."""
    if type(value) is list:
        leaf = scalar_of_class(list_leaf_class(value, rank, tuples))
        return Scalar.PY_INT_OR_FLOAT if mixed and leaf in (Scalar.PY_INT, Scalar.PY_FLOAT) else leaf, True, True
    if type(value) in BUFFER_CLASSES:
        element, storage = buffer_element(name, value, rank)
        return element, True, True, True, False, storage
    if type(value) in READ_ONLY:
        if rank != 1:   # s[i][j]: a str of one character indexed again (Binder.bind has refused it)
            raise Assumption.LIST_RANK.failure(rank=rank)
        return READ_ONLY[type(value)], True, True, True, True
    if type(value) is ndarray_class() or is_cupy_array(value):
        element = numpy_dtype_scalar(value.dtype)
        if element is None or not value.dtype.isnative:
            raise Assumption.NDARRAY_DTYPE.failure(name=name, dtype=value.dtype)
        if value.ndim != rank:
            raise Assumption.NDARRAY_RANK.failure(name=name, ndim=value.ndim, rank=rank)
        return element, False, value.strides[-1] == value.itemsize
    raise Assumption.ARRAY_CLASS.failure(cls=type(value).__name__)   # Binder.bind has already refused it


def row_width(name: str, value, rank: int, width: int) -> None:
    """The loop unpacks the rows of ``value`` into ``width`` names: its last dimension holds
    that many values (checked on the first row here: the unboxing finds every row as long)."""
    if type(value) is list or type(value) is tuple:
        for _ in range(rank - 1):
            value = value[0]
        found = len(value)
    else:
        found = value.shape[rank - 1]
    if found != width:
        raise Assumption.ROW_WIDTH.failure(name=ir.describe_name(name), width=found, wanted=width)


@record
class Binding:
    """One entry's live-ins: what the kernel gets, and the signature (cache key)."""

    key: tuple
    functions: tuple  # the objects called names are bound to (loop.functions order)
    scalars: tuple    # scalar live-in values (Binder.scalar_paths order)
    arrays: tuple     # array live-in objects (loop.arrays order)
    on_device: bool = False  # some array is a CuPy array (the CPU cannot run it)
    mixed: frozenset = frozenset()  # positions of the lists typed int-or-float (Binder.mixed)
    appended: tuple = ()    # the lists the loop appends to (loop.appended order)
    fields: tuple = ()      # (position, objects, writer, rank) per field set (fields.store_fields)


def _array_getter(use: ir.ArrayUse, index: dict, binder: Binder):
    """How to fetch an array live-in: a field array's getter reads the field of its objects."""
    field = ir.field_of(use.name)
    if field is None:
        return _getter(use.name, index)
    return FieldReader(_objects_getter(field[0], index, binder), field[0], field[1], use.rank, use.written,
                       settable if use.written else safe_getattr, binder)


def _disjoint_fields(arrays: tuple, index: dict, binder: Binder) -> tuple:
    """(field, object lists, their getters) for each field of fields the loop sets through
    one list of objects and uses through others (``p.pos.x`` set, ``p.vel.x`` read): no
    object may be in two of them (frontend/fields.py check_shared_fields leaves this case
    to the guard)."""
    nested = [ir.field_of(a.name) + (a.written,) for a in arrays
              if ir.field_of(a.name) and ir.field_of(ir.field_of(a.name)[0])]
    found = {}
    for objects, field, written in nested:
        others = tuple(sorted({o for o, f, _ in nested if f == field and o != objects}))
        if written and others:
            found.setdefault((field, tuple(sorted((objects, *others)))), None)
    return tuple((field, paths, tuple(_objects_getter(path, index, binder) for path in paths)) for field, paths in found)


def _objects_getter(path: str, index: dict, binder: Binder):
    """The getter of a field array's objects: the list at ``path``, or, for a field of a field
    (``ps.__items__.pos``: ``p.pos.x``), the field's objects read from the list's objects as
    a field is (one class, a plain attribute)."""
    field = ir.field_of(path)
    if field is None:
        return _getter(path, index)
    return FieldReader(_objects_getter(field[0], index, binder), field[0], field[1], 1, False, safe_getattr, binder)


def _nothing(values: tuple) -> None:
    return None


NONE = frozenset()


def _tuple_reader(getters: tuple, paths: tuple, index: dict):
    """One call reading every getter's value from the live-ins, as a tuple: one
    ``itemgetter`` where each getter reads a live-in as it is (``paths``: what they read)."""
    positions = [index[path] if type(get) is operator.itemgetter else None for get, path in zip(getters, paths)]
    if None in positions:
        return lambda values: tuple([get(values) for get in getters])
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    if positions:
        position = positions[0]
        return lambda values: (values[position],)
    return lambda values: ()


def _getter(path: str, index: dict):
    head, steps = _steps(path)
    position = index[head]
    if not steps:
        return operator.itemgetter(position)

    def get(values):
        value = values[position]
        for kind, name in steps:
            value = follow(value, kind, name)
        return value
    return get


class Binder:
    """Per loop site: how to fetch each live-in and compute the signature quickly.

    The key holds classes, dtypes and function objects (cheap to hash); the
    checks that need a whole pass over a list happen while unboxing, in C."""

    def __init__(self, loop: ir.Loop, live_ins: tuple[str, ...]) -> None:
        index = {name: k for k, name in enumerate(live_ins)}
        # A row the loop builds, or a table's values (``table[k].append(v)``), has no list of its own.
        built = {*dict(loop.built_rows), *(values for _, values, _ in loop.keyed)}
        for path in (*loop.functions, *(a.name for a in loop.arrays), *(p for p in loop.appended if p not in built)):
            if path.split(".")[0] not in index:
                raise Unsupported(f"{ir.describe_name(path)} is bound inside the loop")
        self.function_paths = loop.functions
        self.inlined = dict(loop.inlined)
        self.inlined_positions = tuple(k for k, path in enumerate(self.function_paths) if path in self.inlined)
        self.assumed = dict(loop.assumed)
        self.scalar_paths = tuple(p for p in loop.scalars_in if p.split(".")[0] in index)
        self.array_uses = loop.arrays
        self.function_getters = tuple(_getter(p, index) for p in self.function_paths)
        objects_of = dict(loop.object_aliases)   # best = p: a live-in object is given by its index
        self.scalar_getters = tuple(object_index(_getter(objects_of[p], index), _getter(p, index), p, objects_of[p])
                                    if p in objects_of else _getter(p, index) for p in self.scalar_paths)
        self.distinct = all_distinct   # marshal.c's mg_distinct once the back end has loaded it
        self.slots = None              # marshal.c's helper then: __slots__ fields read and set in place
        self.objects_seen: dict = {}   # id(list of objects) -> its checks at this entry (FieldReader)
        self.array_getters = tuple((_array_getter(a, index, self), a.rank, not a.written) for a in loop.arrays)
        self.read_functions = _tuple_reader(self.function_getters, self.function_paths, index)
        self.read_scalars = _tuple_reader(self.scalar_getters, self.scalar_paths, index)
        self.read_arrays = _tuple_reader(tuple(get for get, _, _ in self.array_getters),
                                         tuple(a.name for a in loop.arrays), index)
        # Fields the loop sets on a list's objects (frontend/fields.py): (position, the list's getter).
        self.field_setters = tuple((k, _objects_getter(ir.field_of(a.name)[0], index, self))
                                   for k, a in enumerate(loop.arrays) if a.written and ir.field_of(a.name))
        self.disjoint_fields = _disjoint_fields(loop.arrays, index, self)
        # ``for p in ps`` over objects: p's value after the run is the object at its index.
        self.object_getters = tuple((name, _getter(array, index)) for name, array in loop.object_aliases)
        for get, _, _ in self.array_getters:   # objects compared by index: each once, compared by identity
            if isinstance(get, FieldReader) and get.array in loop.compared_lists:
                get.compared = True
        # Fields of a list's objects: the runtime gives ``distinct`` marshal.c's mg_distinct
        # (some list must hold each object once: a field set, or objects compared) and
        # ``slots`` the helper before the first bind.
        self.reads_fields = any(isinstance(get, FieldReader) for get, _, _ in self.array_getters)
        # Arrays whose rows the loop unpacks (``for x, y in pairs``): (position, rank, width).
        self.widths = tuple((k, a.rank, a.width) for k, a in enumerate(loop.arrays) if a.width)
        # A row the loop builds (``row = []`` ... ``table.append(row)``) has no list before the run
        # ends: None takes its place; (the row, its table's position among the appended).
        # ... then each table whose rows the loop swaps (ir.RowSwap): marshal.c orders its rows.
        self.appended_getters = tuple(_nothing if path in built else _getter(path, index) for path in loop.appended) \
            + tuple(_getter(path, index) for path in sorted(ir.swapped_tables(loop.body)))
        self.appended_count = len(loop.appended)
        self.row_tables = tuple((row, loop.appended.index(table)) for row, table in loop.built_rows)
        self.row_slots = frozenset(k for k, path in enumerate(loop.appended) if path in built)
        self.keyed_slots = frozenset(loop.appended.index(table) for table, _, _ in loop.keyed)
        # A list grown in place (ir.grown_lists): its place among the appended -> among the arrays.
        self.grown_names = ir.grown_lists(loop)   # empty at entry: typed by the values appended
        self.grown = {loop.appended.index(use.name): k for k, use in enumerate(loop.arrays) if use.name in self.grown_names}
        # ``out.append(p)`` over a list of objects: (position among the appended, the objects' getter).
        self.collected = tuple((loop.appended.index(out), _getter(source, index)) for out, source in loop.collected)
        # Attributes the loop assigns (self.total += x): their objects, and the names.
        self.attribute_holders = {path.rpartition(".")[0]: _getter(path.rpartition(".")[0], index)
                                  for path in loop.assigned if "." in path}
        self.attribute_setters = tuple((self.attribute_holders[path.rpartition(".")[0]], path.rpartition(".")[2])
                                       for path in loop.assigned if "." in path)
        # Positions of array live-ins seen holding ints and floats in one list (marshal.c's
        # LIST_ONE_CLASS answer): from then on the lists there are typed int-or-float, and so
        # is every name bound to the same list (names of one list share one buffer).
        self.mixed: set[int] = set()

    def bind(self, values: tuple) -> Binding:
        # At every compiled entry: a few microseconds of a small loop's entry (tuples read by
        # itemgetter, no generator where a part is empty).
        for get, attribute in self.attribute_setters:
            settable(get(values), attribute)
        functions = self.read_functions(values)
        key = [*functions]
        for position in self.inlined_positions:  # the body inlined is the code, which can be swapped
            key.append(getattr(functions[position], "__code__", None))
        scalars = self.read_scalars(values)
        classes = [*map(type, scalars)]
        if int in classes:
            for value in scalars:
                if type(value) is int and not INT64_MIN <= value <= INT64_MAX:
                    raise Assumption.SCALAR_INT64.failure()
        key += classes
        try:
            arrays = self.read_arrays(values)
        finally:   # FieldReader's checks of this entry's lists: kept no longer (they hold the lists)
            if self.objects_seen:
                self.objects_seen.clear()
        mixed_lists = {id(arrays[k]) for k in self.mixed if type(arrays[k]) is list} if self.mixed else ()
        on_device = views = False
        identities: dict[int, int] = {}
        for use, value, (_, rank, tuples) in zip(self.array_uses, arrays, self.array_getters):
            cls = type(value)
            if cls is list:
                leaf = list_leaf_class(value, rank, tuples) if value or use.name not in self.grown_names else EMPTY
                key.append(INT_OR_FLOAT_LIST if id(value) in mixed_lists and leaf is not bool else leaf)
            elif cls is ArrayArray or cls is memoryview:
                key.append(buffer_element(use.name, value, rank, use.written))
                key.append(cls)
                views = views or cls is memoryview
            elif cls in READ_ONLY:
                if rank != 1 or use.written:   # CPython indexes a character again, or raises TypeError
                    raise Assumption.TEXT_READ.failure(name=ir.describe_name(use.name), cls=cls.__name__)
                key.append(cls)
            elif cls is ndarray_class():
                key.append(value.dtype)
                key.append(value.ndim)
                key.append(value.flags.c_contiguous or value.strides[-1] == value.itemsize)
            elif is_cupy_array(value):
                on_device = True
                key += [value.dtype, value.ndim, value.strides[-1] == value.itemsize if value.ndim else True, "cupy"]
            else:
                raise Assumption.ARRAY_CLASS.failure(cls=cls.__name__)
            key.append(identities.setdefault(id(value), len(identities)))
        if views:
            buffers_disjoint(self.array_uses, arrays)
        for position, rank, width in self.widths:
            row_width(self.array_uses[position].name, arrays[position], rank, width)
        mixed = frozenset(k for k, value in enumerate(arrays) if id(value) in mixed_lists) if mixed_lists else NONE
        appended = tuple([get(values) for get in self.appended_getters]) if self.appended_getters else ()
        for position, value in enumerate(appended):
            if position in self.row_slots or position >= self.appended_count:   # a built row's place, a table
                continue
            if position in self.keyed_slots:   # its rows and keys: marshal.c (table_rows)
                if type(value) is not list and type(value) is not dict:
                    raise Assumption.KEYED_CLASS.failure(cls=type(value).__name__)
            elif type(value) is not list:
                raise Assumption.APPENDED_LIST.failure(cls=type(value).__name__)
            if id(value) in identities:   # an array the loop reads, or another list appended to
                seed = self.grown.get(position)
                if seed is None or arrays[seed] is not value or sum(a is value for a in arrays) > 1:
                    raise Assumption.APPENDED_DISTINCT.failure()
                continue   # grown in place: its own array, under no other name
            identities[id(value)] = len(identities)
        for position, objects in self.collected:   # out.append(p) of p in out itself: CPython's order
            if appended[position] is objects(values):
                raise Assumption.APPENDED_DISTINCT.failure()
        for field, paths, getters in self.disjoint_fields:
            if not self.distinct([get(values) for get in getters]):
                raise Assumption.FIELDS_DISJOINT.failure(names=" and ".join(map(ir.describe_name, paths)), field=field)
        fields = tuple([(k, get(values), self.array_getters[k][0].write, self.array_uses[k].rank)
                        for k, get in self.field_setters]) if self.field_setters else ()
        return Binding(tuple(key), functions, scalars, arrays, on_device, mixed, appended, fields)

    def set_attributes(self, values: tuple, paths: tuple, outputs: tuple, unset) -> tuple:
        """Set on their objects the attributes at ``paths`` (the last of ``outputs``: those
        only called functions assign, Site.set_after) that the run assigned; the others."""
        kept = len(outputs) - len(paths)
        for path, value in zip(paths, outputs[kept:]):
            if value is not unset:
                holder, _, attribute = path.rpartition(".")
                setattr(self.attribute_holders[holder](values), attribute, value)   # settable() checked it
        return outputs[:kept]

    def collected_lengths(self, binding: Binding) -> list:
        """The lengths of the lists collecting objects (``out.append(p)``) before a run."""
        return [len(binding.appended[position]) for position, _ in self.collected]

    def collect(self, values: tuple, binding: Binding, lengths: list) -> None:
        """After a clean run: the indices the kernel appended past ``lengths`` become the
        objects at those indices (None for the list's length: a name holding None)."""
        for (position, objects), start in zip(self.collected, lengths):
            out, objects = binding.appended[position], objects(values)
            out[start:] = [object_at(objects, k) for k in out[start:]]

    def objects_after(self, values: tuple, live_outs: tuple, outputs: tuple, unset) -> tuple:
        """The live-outs with each object alias (``for p in ps``, ``best = p``) given its
        object: the kernel's value is the index it was bound to last (``unset``: never
        bound), the list's length for None."""
        outputs = list(outputs)
        for name, get in self.object_getters:
            if name in live_outs:
                k = live_outs.index(name)
                if outputs[k] is not unset:
                    outputs[k] = object_at(get(values), outputs[k])
        return tuple(outputs)

    def describe(self, binding: Binding):
        """Slow path, once per signature: canonical functions, scalar and array types."""
        functions = {}
        for path, value in zip(self.function_paths, binding.functions):
            if path in self.inlined:
                if getattr(value, "__code__", None) is not self.inlined[path]:
                    raise Unsupported(f"{ir.describe_name(path)} is bound to another function than the one inlined")
                continue
            canonical = canonical_name(value)
            if canonical is None:
                raise Unsupported(f"{ir.describe_name(path)} is not bound to a supported built-in or math function")
            if self.assumed.get(path, canonical) != canonical:
                raise Unsupported(f"{ir.describe_name(path)} is not the built-in {self.assumed[path]}")
            functions[path] = canonical
        scalars = {path: scalar_type(path, value) for path, value in zip(self.scalar_paths, binding.scalars)}
        arrays = {use.name: (None, True, True) if use.name in self.grown_names and value == []   # (typeinfer)
                  else array_element(use.name, value, use.rank, k in binding.mixed, not use.written)
                  for k, (use, value) in enumerate(zip(self.array_uses, binding.arrays))}
        return functions, scalars, arrays

