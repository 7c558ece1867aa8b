"""Fields kept in ``__slots__`` (guards/fields.py, runtime/marshal_fields.c): marshal.c reads
and sets them at the member's offset where the member is a plain one of the objects' class;
anything else goes through Python's attribute access, and CPython's answers stay."""
from __future__ import annotations

import sys
import weakref

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.guards.fields import FieldReader
from megaguards.runtime.site import REGISTRY


class Particle:
    __slots__ = ("x", "v", "__weakref__")

    def __init__(self, k):
        self.x, self.v = 0.5 * k, 1.0 - 0.25 * (k % 5)

    def step(self, dt):
        self.x += self.v * dt
        self.v *= 0.5


class Charged(Particle):   # the base's members at the base's offsets, one more of its own
    __slots__ = ("q",)

    def __init__(self, k):
        super().__init__(k)
        self.q = float(k % 3) - 1.0


class Mixed:   # a slot beside an instance __dict__
    __slots__ = ("x", "__dict__")

    def __init__(self, k):
        self.x, self.v = float(k), 0.5


def advance(make, dt):
    particles = make()
    for p in particles:
        p.step(dt)
    return [(p.x, p.v) for p in particles]


def push(make, dt):
    particles = make()
    for p in particles:
        p.x += p.q * p.v * dt
    return [p.x for p in particles]


def drift(make, dt):
    particles = make()
    for p in particles:
        p.x += p.v * dt
    return [p.x for p in particles]


def binders_of(function) -> list:
    return [REGISTRY.sites[k].binder for k in function.__megaguards_sites__
            if getattr(REGISTRY.sites[k], "binder", None) is not None]


def offsets(function, cls) -> dict:
    """Each field reader's answer for ``cls``: its member's offset, -1 where Python reads it."""
    return {get.field: get.slot_offset(cls) for binder in binders_of(function)
            for get, _, _ in binder.array_getters if isinstance(get, FieldReader)}


@pytest.mark.parametrize("make", [lambda: [Particle(k) for k in range(40)],
                                  lambda: [Charged(k) for k in range(40)]])
def test_slot_fields_are_read_and_set_by_marshal_c(make):
    fast = assert_same_as_cpython(advance, make, 0.125)
    found = offsets(fast, type(make()[0]))
    assert set(found) == {"x", "v"} and all(offset > 0 for offset in found.values()), (found, sites_of(fast))


def test_a_subclass_slot_and_the_base_slots_together():
    fast = assert_same_as_cpython(push, lambda: [Charged(k) for k in range(33)], 0.5)
    found = offsets(fast, Charged)
    assert set(found) == {"x", "v", "q"} and len(set(found.values())) == 3 and min(found.values()) > 0


def test_a_slot_beside_an_instance_dict():
    fast = assert_same_as_cpython(drift, lambda: [Mixed(k) for k in range(20)], 0.5)
    found = offsets(fast, Mixed)
    assert found["x"] > 0 and found["v"] == -1   # v lives in the instance's __dict__


def test_an_unset_slot_raises_as_in_cpython():
    def make():
        particles = [Particle(k) for k in range(10)]
        del particles[6].v
        return particles
    assert_same_as_cpython(drift, make, 0.5, compiled=None)


def test_a_member_copied_into_an_unrelated_class_is_not_read_in_place():
    """A class given another class's member descriptor: CPython raises TypeError reading
    it; the offset is not used (it would read another object's memory)."""
    class Thief:
        __slots__ = ("a", "b", "c")
        x = Particle.__dict__["x"]
        v = Particle.__dict__["v"]

        def __init__(self):
            self.a = self.b = self.c = 1.0

    fast = assert_same_as_cpython(drift, lambda: [Thief() for _ in range(5)], 0.5, compiled=None)
    assert set(offsets(fast, Thief).values()) <= {-1}


def test_replaced_values_are_released_and_kept_ones_untouched():
    """Every replaced field value is released once (no leak, no double release); a value the
    loop left as it was is the very object it was."""
    import megaguards

    def halve_some(particles):
        for p in particles:
            if p.x > 3.0:
                p.x = p.x / 2.0
        return len(particles)

    fast = megaguards.jit(halve_some, strict=True)
    particles = [Particle(k) for k in range(16)]
    olds = [p.x for p in particles]
    kept = [sys.getrefcount(value) for value in olds]
    assert fast(particles) == 16
    changed = [olds[k] > 3.0 for k in range(16)]
    identical = [p.x is old for p, old in zip(particles, olds)]
    counts = [sys.getrefcount(value) for value in olds]   # outside assert: pytest's rewriting holds values
    assert identical == [not c for c in changed]
    assert [p.x for p in particles] == [old / 2.0 if c else old for old, c in zip(olds, changed)]
    assert counts == [n - 1 if c else n for n, c in zip(kept, changed)]   # a replaced value's reference given up
    assert offsets(fast, Particle) == {"x": offsets(fast, Particle)["x"]} and offsets(fast, Particle)["x"] > 0
    watched = weakref.ref(particles[3])
    del particles
    assert watched() is None
