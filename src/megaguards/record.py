"""``@record``: what ``@dataclass(frozen=True)`` makes, at a quarter of its import cost.

A dataclass compiles six small functions per class (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) with one ``exec`` each: about
0.5 ms a class, and the lowering, analyses and back end hold about 70 classes, which every
process that compiles a loop imports (issue 25: the fixed cost of a compiling run).  A
record lets ``dataclasses`` collect the fields (so ``dataclasses.fields``, ``replace`` and
``asdict`` work as before), compiles only ``__init__``, and shares the other methods:
equality and hashing compare the fields' values as one tuple read by ``operator.attrgetter``.

Supported: defaults, ``default_factory``, ``kw_only``, ``compare=False``, ``repr=False``,
``__post_init__``, inheritance from other records; ``frozen=False`` for mutable records
(unhashable when compared by value, as a dataclass is); ``eq=False`` for identity.
"""
from __future__ import annotations

import dataclasses
from operator import attrgetter

_MISSING = dataclasses.MISSING


def record(cls=None, /, *, frozen: bool = True, eq: bool = True):
    """Decorate a class as ``@dataclass(frozen=frozen, eq=eq)`` would."""
    def wrap(cls):
        undocumented = cls.__doc__ is None
        if undocumented:   # else dataclasses writes one from inspect.signature: 0.3 ms a class
            cls.__doc__ = "-"
        cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, match_args=False)
        fields = dataclasses.fields(cls)
        if undocumented:
            cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in fields)})"
        _define(cls, "__init__", _initializer(cls, fields))
        _define(cls, "__repr__", _representer([f.name for f in fields if f.repr]))
        if eq:
            key = _key([f.name for f in fields if f.compare])
            _define(cls, "__eq__", _equality(key))
            _define(cls, "__hash__", (lambda self: hash(key(self))) if frozen else None)
        if frozen:
            cls.__setattr__, cls.__delattr__ = _frozen(cls, frozenset(f.name for f in fields))
        return cls
    return wrap if cls is None else wrap(cls)


def _define(cls, name: str, method) -> None:
    """A method the class does not define itself (a dataclass keeps the class's own too)."""
    if name not in cls.__dict__ or (name == "__hash__" and cls.__dict__[name] is None):
        setattr(cls, name, method)


def _initializer(cls, fields):
    """``__init__`` compiled from the fields (the one method worth compiling: records are
    made by the thousand while a loop is lowered and analysed)."""
    namespace = {"_setattr": object.__setattr__, "_MISSING": _MISSING}
    positional, keyword, body = ["self"], [], []
    for f in fields:
        if not f.init or f._field_type is not dataclasses._FIELD:
            raise TypeError(f"record {cls.__qualname__}: field {f.name!r} is not a plain init field")
        parameter = f.name
        value = f.name
        if f.default is not _MISSING:
            namespace[f"_default_{f.name}"] = f.default
            parameter += f"=_default_{f.name}"
        elif f.default_factory is not _MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            parameter += "=_MISSING"
            value = f"_factory_{f.name}() if {f.name} is _MISSING else {f.name}"
        (keyword if f.kw_only else positional).append(parameter)
        body.append(f"    _setattr(self, {f.name!r}, {value})")
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
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__
