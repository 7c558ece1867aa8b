"""``@record``: what ``@dataclass(frozen=True)`` makes, without importing ``dataclasses``.

A dataclass compiles six small functions per class (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) with one ``exec`` each: about
0.5 ms a class, and the lowering, analyses and back end hold about 70 classes, which every
process that compiles a loop imports (issue 25: the fixed cost of a compiling run).
Importing ``dataclasses`` itself costs about 5 ms more (it imports ``inspect``, ``dis``
and ``tokenize``).  A record collects its fields from its annotations here, compiles only
``__init__``, and shares the other methods: equality and hashing compare the fields'
values as one tuple read by ``operator.attrgetter``.  ``fields``, ``replace`` and
``asdict`` below answer as ``dataclasses``' functions of those names do.

Supported: defaults, ``field(default_factory=...)``, ``kw_only``, ``compare=False``,
``repr=False``, ``__post_init__``, inheritance from other records; ``frozen=False`` for
mutable records (unhashable when compared by value, as a dataclass is); ``eq=False`` for
identity.  Not supported (refused at the class): ``ClassVar``/``InitVar`` annotations.
"""
from __future__ import annotations

from operator import attrgetter

FIELDS = "__record_fields__"   # a record class's fields, in order (its bases' first)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning or deleting a field of a frozen record."""


class Field:
    """One field of a record: its name and options (as ``dataclasses.Field``'s of those names)."""

    __slots__ = ("name", "default", "default_factory", "kw_only", "compare", "repr")

    def __init__(self, default=MISSING, default_factory=MISSING, kw_only: bool = False, compare: bool = True,
                 repr: bool = True) -> None:   # noqa: A002 - dataclasses' spelling
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.kw_only, self.compare, self.repr = kw_only, compare, repr

    def named(self, name: str) -> Field:
        self.name = name
        return self

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only})"


def field(*, default=MISSING, default_factory=MISSING, kw_only: bool = False, compare: bool = True,
          repr: bool = True) -> Field:   # noqa: A002 - dataclasses' spelling
    """A field's options, as ``dataclasses.field`` takes them."""
    return Field(default, default_factory, kw_only, compare, repr)


def fields(record_or_class) -> tuple[Field, ...]:
    """The fields of a record (or record class), in order."""
    try:
        return getattr(record_or_class, FIELDS)
    except AttributeError:
        raise TypeError("must be called with a record or record class") from None


def is_record(value) -> bool:
    return hasattr(value, FIELDS)


def replace(value, /, **changes):
    """A new record of ``value``'s class with ``changes`` (``__init__`` runs, as for ``dataclasses.replace``)."""
    for f in getattr(value, FIELDS):
        if f.name not in changes:
            changes[f.name] = getattr(value, f.name)
    return value.__class__(**changes)


def asdict(value):
    """A record as a dict, records, lists, tuples and dicts inside it copied the same way."""
    if hasattr(type(value), FIELDS):
        return {f.name: asdict(getattr(value, f.name)) for f in getattr(value, FIELDS)}
    if isinstance(value, (list, tuple)):
        return type(value)(asdict(item) for item in value)
    if isinstance(value, dict):
        return {asdict(key): asdict(item) for key, item in value.items()}
    return value


def record(cls=None, /, *, frozen: bool = True, eq: bool = True):
    """Decorate a class as ``@dataclass(frozen=frozen, eq=eq)`` would."""
    def wrap(cls):
        collected = _collect(cls)
        setattr(cls, FIELDS, collected)
        if cls.__doc__ is None:
            cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in collected)})"
        _define(cls, "__init__", _first_initializer(cls, collected))
        _define(cls, "__repr__", _representer([f.name for f in collected if f.repr]))
        if eq:
            key = _key([f.name for f in collected if f.compare])
            _define(cls, "__eq__", _equality(key))
            _define(cls, "__hash__", (lambda self: hash(key(self))) if frozen else None)
        if frozen:
            cls.__setattr__, cls.__delattr__ = _frozen(cls, frozenset(f.name for f in collected))
        return cls
    return wrap if cls is None else wrap(cls)


def _collect(cls) -> tuple[Field, ...]:
    """The bases' fields (a redefined one keeps its place), then the class's own annotations'."""
    collected: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(FIELDS, ()):
            collected[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if "ClassVar" in str(annotation) or "InitVar" in str(annotation):
            raise TypeError(f"record {cls.__qualname__}: {name!r} is a ClassVar or InitVar")
        given = cls.__dict__.get(name, MISSING)
        made = given if isinstance(given, Field) else Field(given)
        if made.default.__class__ in (list, dict, set):
            raise ValueError(f"record {cls.__qualname__}: mutable default for {name!r}: use default_factory")
        collected[name] = made.named(name)
        if isinstance(given, Field):   # the class attribute is the default, as a dataclass leaves it
            if made.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, made.default)
    return tuple(collected.values())


def _define(cls, name: str, method) -> None:
    """A method the class does not define itself (a dataclass keeps the class's own too)."""
    if name not in cls.__dict__ or (name == "__hash__" and cls.__dict__[name] is None):
        setattr(cls, name, method)


def _first_initializer(cls, fields):
    """An ``__init__`` that compiles the real one at the class's first record: compiling
    costs about 0.1 ms a class, and a run makes records of a part of its classes only."""
    def __init__(self, *arguments, **keywords):
        compiled = _initializer(cls, fields)
        if cls.__dict__.get("__init__") is __init__:
            cls.__init__ = compiled
        compiled(self, *arguments, **keywords)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _initializer(cls, fields):
    """``__init__`` compiled from the fields (the one method worth compiling: records are
    made by the thousand while a loop is lowered and analysed)."""
    namespace = {"_setattr": object.__setattr__, "_MISSING": MISSING}
    # Instances with a __dict__ and no descriptor in a field's name get their fields stored in
    # it directly: half the time of a call of object.__setattr__ per field (a loop's binding
    # makes a record at every entry).
    in_dict = not any("__slots__" in klass.__dict__ for klass in cls.__mro__[:-1]) \
        and not any(hasattr(getattr(cls, f.name, None), "__set__") for f in fields)
    positional, keyword, body = ["self"], [], ["    _fields = self.__dict__"] if in_dict and fields else []
    for f in fields:
        parameter = f.name
        value = f.name
        if f.default is not MISSING:
            namespace[f"_default_{f.name}"] = f.default
            parameter += f"=_default_{f.name}"
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            parameter += "=_MISSING"
            value = f"_factory_{f.name}() if {f.name} is _MISSING else {f.name}"
        (keyword if f.kw_only else positional).append(parameter)
        body.append(f"    _fields[{f.name!r}] = {value}" if in_dict else f"    _setattr(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(positional + (["*", *keyword] if keyword else []))
    source = f"def __init__({signature}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - text built above from the class's own field names
    initializer = namespace["__init__"]
    initializer.__qualname__ = f"{cls.__qualname__}.__init__"
    return initializer


def _key(names: list[str]):
    """The compared fields' values as one tuple (as a dataclass's ``__eq__`` and ``__hash__`` build it)."""
    if len(names) == 1:
        read = attrgetter(names[0])
        return lambda self: (read(self),)
    return attrgetter(*names) if names else (lambda self: ())


def _equality(key):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _representer(names: list[str]):
    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"
    return __repr__


def _frozen(cls, names: frozenset):
    """``__setattr__`` and ``__delattr__`` refusing the fields, as a frozen dataclass's do."""
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__
