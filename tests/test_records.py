"""storage.records' `record`: the records behave as `@dataclass(frozen=True)` ones would (it only makes
them faster to define, which every hook process pays for at import)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from server.storage import records
from server.storage.records import MemoryDump, MemoryRow, Scope, record

RECORDS = [v for v in vars(records).values()
           if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == records.__name__]


def _standard_twin(cls: type) -> type:
    """The same class made by the standard decorator."""
    return dataclasses.make_dataclass(
        cls.__name__, [(f.name, f.type, *(() if f.default is dataclasses.MISSING else (f.default,)))
                       for f in dataclasses.fields(cls)], frozen=True)


def _values(cls: type) -> dict:
    return {f.name: (f"{f.name}-value" if f.default is dataclasses.MISSING else f.default)
            for f in dataclasses.fields(cls)}


def test_every_record_of_the_module_is_made_by_record():
    assert len(RECORDS) >= 20
    assert all("__record_values__" in cls.__dict__ for cls in RECORDS)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_a_record_behaves_as_a_frozen_dataclass(cls):
    twin = _standard_twin(cls)
    values = _values(cls)
    one, two, theirs = cls(**values), cls(*values.values()), twin(**values)
    assert repr(one) == repr(theirs).replace(twin.__qualname__, cls.__qualname__, 1)
    assert one == two and not (one != two) and one != theirs
    first = next(iter(values))
    other = dataclasses.replace(one, **{first: "changed"})
    assert other != one and getattr(other, first) == "changed" and dataclasses.replace(other, **{first: values[first]}) == one
    hashable = all(not isinstance(v, (dict, list)) for v in values.values())
    if hashable:
        assert hash(one) == hash(two) == hash(theirs)
        assert {one: 1}[two] == 1
    for name in values:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(one, name, "x")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(one, name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.not_a_field = 1
    assert dataclasses.asdict(one) == dataclasses.asdict(theirs)
    assert pickle.loads(pickle.dumps(one)) == one == copy.deepcopy(one)
    assert cls.__match_args__ == twin.__match_args__
    with pytest.raises(TypeError):
        cls(*values.values(), "one too many")


def test_a_subclass_record_compares_by_its_own_fields_and_class():
    row = MemoryRow(1, "t", "c", "fact", "s", None, 0.5, (), "h", 1, 1, None, None, 0, None)
    dump = MemoryDump(**dataclasses.asdict(row), user="u")
    assert isinstance(dump, MemoryRow) and dump.user == "u" and dump.pinned is False
    assert dump != row and dump == MemoryDump(**dataclasses.asdict(row), user="u")
    assert Scope() == Scope() and Scope(threads=()) != Scope()


def test_record_refuses_what_it_does_not_make():
    with pytest.raises(TypeError, match="plain fields"):
        @record
        class WithFactory:
            items: list = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="__post_init__"):
        @record
        class WithPostInit:
            x: int

            def __post_init__(self) -> None:
                pass
