"""megaguards.record: the frozen records the IR and analyses are made of behave as the
dataclasses they replace (issue 25: made without importing dataclasses)."""
from __future__ import annotations

import pickle

import pytest

from megaguards import record as records
from megaguards.record import record


@record
class Base:
    line: int = records.field(default=0, kw_only=True, compare=False)
    tag: str = records.field(default="", kw_only=True, compare=False, repr=False)


@record
class Pair(Base):
    left: object
    right: object = None
    items: list = records.field(default_factory=list)


@record
class Checked:
    value: int

    def __post_init__(self):
        if self.value < 0:
            raise ValueError("negative")


@record(frozen=False)
class Counter:
    count: int = 0


@record(eq=False)
class Identity:
    table: dict


def test_fields_defaults_and_keyword_only_order_as_a_dataclass():
    pair = Pair(1, line=7)
    assert (pair.left, pair.right, pair.items, pair.line, pair.tag) == (1, None, [], 7, "")
    assert [f.name for f in records.fields(pair)] == ["line", "tag", "left", "right", "items"]
    assert Pair(1).items is not Pair(1).items    # a fresh default per record
    with pytest.raises(TypeError):
        Pair(1, 2, [], 3)                          # line is keyword-only
    with pytest.raises(TypeError):
        Pair()


def test_equality_and_hash_compare_the_compared_fields_only():
    assert Pair(1, 2, line=1) == Pair(1, 2, line=99, tag="x")
    assert hash(Pair(1, 2, (), line=1)) == hash(Pair(1, 2, (), line=99))
    assert Pair(1, 2) != Pair(1, 3)
    assert Pair(1, 2) != (1, 2) and Checked(1) != Pair(1)
    assert {Checked(3): "a"}[Checked(3)] == "a"
    assert hash(Checked(3)) == hash((3,))         # the fields' tuple, as a dataclass hashes
    with pytest.raises(TypeError):
        hash(Pair(1, 2))                           # a list field: unhashable, as the tuple is


def test_frozen_replace_repr_pickle_and_post_init():
    pair = Pair(1, 2, line=3)
    with pytest.raises(records.FrozenInstanceError):
        pair.left = 5
    with pytest.raises(records.FrozenInstanceError):
        del pair.left
    moved = records.replace(pair, right=4)
    assert (moved.left, moved.right, moved.line) == (1, 4, 3)
    assert repr(pair) == "Pair(line=3, left=1, right=2, items=[])"    # tag: repr=False
    assert pickle.loads(pickle.dumps(pair)) == pair
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)
    assert records.is_record(pair) and records.asdict(Checked(2)) == {"value": 2}


def test_mutable_records_are_unhashable_and_identity_records_compare_by_identity():
    counter = Counter()
    counter.count += 1
    assert counter == Counter(1) and Counter.__hash__ is None
    one, two = Identity({}), Identity({})
    assert one != two and one == one and len({one, two}) == 2


def test_a_class_keeps_the_methods_it_defines_and_gets_a_docstring():
    @record
    class Shown:
        value: int

        def __repr__(self):
            return "shown"

    assert repr(Shown(1)) == "shown"
    assert Shown.__doc__ == "Shown(value)" and Checked.__init__.__qualname__ == "Checked.__init__"


def test_records_refuse_what_a_dataclass_refuses_and_keep_defaults_as_class_attributes():
    with pytest.raises(ValueError, match="default_factory"):
        @record
        class Shared:
            items: list = []    # noqa: RUF012 - the refused case
    with pytest.raises(ValueError, match="both"):
        records.field(default=1, default_factory=list)
    with pytest.raises(TypeError):
        records.fields(3)
    assert Pair.right is None and "items" not in Pair.__dict__   # a plain default stays; a factory's field goes
    assert not records.is_record(3) and records.asdict([Checked(1), (Checked(2),)]) == [{"value": 1}, ({"value": 2},)]
    with pytest.raises(ValueError, match="negative"):
        records.replace(Checked(1), value=-1)      # replace runs __init__ and __post_init__


def test_importing_records_imports_no_dataclasses():
    import subprocess
    import sys

    code = "import sys, megaguards.ir.nodes; print('dataclasses' in sys.modules, 'inspect' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["False", "False"]


def test_the_initializer_is_compiled_at_the_first_record_and_checks_that_call_too():
    @record
    class Late:
        value: int
        scale: float = 1.0

    first = Late.__init__
    with pytest.raises(TypeError):
        Late(1, 2.0, 3)            # the first call compiles, then refuses as the compiled one does
    assert Late.__init__ is not first and Late(2).scale == 1.0 and Late.__init__ is Late.__init__
