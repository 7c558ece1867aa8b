"""The mega guard's entry check: bind live-ins and compute the type signature.

The signature is the cache key of a specialization: the scalar type of every
scalar live-in, the element type and rank of every array (list or NumPy),
which function object each called name is bound to, and which array names are
the same object.  Anything the compiled code cannot represent raises
``GuardFailure`` with a one-line reason; the loop then runs in CPython.
"""
from __future__ import annotations

import types
from dataclasses import dataclass

import numpy

from ..analysis.functions import canonical_name
from ..ir import nodes as ir
from ..ir.types import INT64_MAX, INT64_MIN, Scalar, scalar_of_class
from ..runtime.marshal import GuardFailure, ListCodec, element_strides, numpy_element

_MISSING = object()


def safe_getattr(obj: object, attribute: str) -> object:
    """``obj.attribute`` when reading it cannot run user code (no property, no __getattr__)."""
    if isinstance(obj, types.ModuleType):
        value = obj.__dict__.get(attribute, _MISSING)
        if value is _MISSING:
            raise GuardFailure(f"module {obj.__name__!r} has no attribute {attribute!r}")
        return value
    cls = type(obj)
    if cls.__getattribute__ is not object.__getattribute__ or hasattr(cls, "__getattr__"):
        raise GuardFailure(f"{cls.__name__} customises attribute access")
    class_value = _MISSING
    for klass in cls.__mro__:
        if attribute in klass.__dict__:
            class_value = klass.__dict__[attribute]
            break
    if class_value is not _MISSING and isinstance(class_value, types.MemberDescriptorType):
        try:
            return getattr(obj, attribute)  # a __slots__ member: no user code runs
        except AttributeError:
            raise GuardFailure(f"attribute {attribute!r} is not set") from None
    if class_value is not _MISSING and (hasattr(type(class_value), "__set__") or hasattr(type(class_value), "__delete__")):
        raise GuardFailure(f"attribute {attribute!r} is a property or descriptor")
    instance = getattr(obj, "__dict__", None)
    if instance is not None and attribute in instance:
        return instance[attribute]
    if class_value is _MISSING or hasattr(type(class_value), "__get__"):
        raise GuardFailure(f"attribute {attribute!r} is missing or computed")
    return class_value


def resolve(path: str, values: dict) -> object:
    head, *rest = path.split(".")
    if head not in values:
        raise GuardFailure(f"'{head}' is not available before the loop")
    value = values[head]
    for attribute in rest:
        value = safe_getattr(value, attribute)
    return value


def scalar_type(name: str, value: object) -> Scalar:
    scalar = scalar_of_class(type(value))
    if scalar is None:
        raise GuardFailure(f"'{name}' is a {type(value).__name__}, not a number")
    if scalar is Scalar.PY_INT and not INT64_MIN <= value <= INT64_MAX:
        raise GuardFailure(f"'{name}' is an int outside int64")
    return scalar


@dataclass(frozen=True)
class Binding:
    """One entry's live-ins, checked: what the kernel gets and the signature."""

    values: dict      # scalar or array path -> the object
    probes: dict      # array path -> (element Scalar, shape)
    functions: dict   # called path -> canonical function name
    signature: tuple


def bind(loop: ir.Loop, live_ins: tuple[str, ...], values: tuple, codec: ListCodec) -> Binding:
    by_name = dict(zip(live_ins, values))
    bound: dict[str, object] = {}
    functions: dict[str, str] = {}
    key: list = []
    for path in loop.functions:
        value = resolve(path, by_name)
        canonical = canonical_name(value)
        if canonical is None:
            raise GuardFailure(f"'{path}' is not a supported built-in or math function")
        functions[path] = canonical
        key.append(canonical)
    for path in loop.scalars_in:
        if path.split(".")[0] not in by_name:
            continue  # bound before every read, in every iteration (not a live-in)
        value = resolve(path, by_name)
        bound[path] = value
        key.append(scalar_type(path, value))
    probes: dict[str, tuple] = {}
    identities: dict[int, int] = {}
    for use in loop.arrays:
        value = resolve(use.name, by_name)
        bound[use.name] = value
        if type(value) is list:
            element, shape = codec.probe(value, use.rank)
            probes[use.name] = (element, shape)
            key.append(("list", element, use.rank))
        elif type(value) is numpy.ndarray:
            if value.ndim != use.rank:
                raise GuardFailure(f"'{use.name}' is a {value.ndim}-D array indexed with {use.rank} subscripts")
            element = numpy_element(value)
            element_strides(value)
            probes[use.name] = (element, value.shape)
            key.append(("ndarray", element, use.rank))
        else:
            raise GuardFailure(f"'{use.name}' is a {type(value).__name__}, not a list or NumPy array")
        key.append(identities.setdefault(id(value), len(identities)))
    return Binding(bound, probes, functions, tuple(key))
