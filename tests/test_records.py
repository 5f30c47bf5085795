"""storage.records' `record`: the records behave as `@dataclass(frozen=True)` ones would (it only makes
them faster to define, which every hook process pays for at import)."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle

import pytest

from server.storage import records
from server.storage.records import MemoryDump, MemoryRow, Scope, record

RECORDS = [v for v in vars(records).values()
           if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == records.__name__]
#: The plain frozen dataclasses a hook process imports beyond storage's, made by `record` (server.frozen) too.
HOOK_PATH = {"server.budget": ("Assembly", "PartReport", "_State"), "server.errors": ("Call",),
             "server.files.dailylog": ("DailyEntry",), "server.files.markdown": ("Unit",),
             "server.guard.redact": ("Redaction", "RedactionResult"), "server.hooks.inject": ("Injection",),
             "server.hooks.protocol": ("HookInput",), "server.linker": ("Linked", "OpenQuestion"),
             "server.models": ("Principal",), "server.recall": ("Found",),
             "server.search": ("Candidates", "Hit", "KeywordFound"), "server.storage.dialect": ("Dialect",),
             "server.storage.sqlite.migrations": ("SchemaContext",),
             "server.updates.model": ("Candidate", "Judgement", "Link", "Verdict"),
             "server.updates.rules": ("Judgement",), "server.updates.statements": ("Statement", "Token")}
HOOK_RECORDS = [getattr(importlib.import_module(module), name) for module, names in HOOK_PATH.items() for name in names]


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


def test_the_hook_path_s_plain_frozen_dataclasses_are_made_by_record():
    assert all("__record_values__" in cls.__dict__ for cls in HOOK_RECORDS)


@pytest.mark.parametrize("cls", RECORDS + HOOK_RECORDS, ids=lambda c: f"{c.__module__}.{c.__name__}")
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


def test_a_record_without_a_docstring_gets_the_standard_one_without_asking_inspect(monkeypatch):
    """The standard decorator documents such a class by its signature; record writes the same text itself
    (asking inspect before __init__ existed parsed object.__init__'s text signature, tokenize's regular
    expressions compiled in every hook process, to print "Name()")."""
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: pytest.fail("inspect.signature was asked"))

    @record
    class Plain:
        name: str
        count: int = 0
        label: str | None = "x"

    @record
    class Documented:
        """Said here."""

        name: str

    assert Plain.__doc__ == "Plain(name: 'str', count: 'int' = 0, label: 'str | None' = 'x')"
    assert Documented.__doc__ == "Said here."
    monkeypatch.undo()
    assert Plain.__doc__ == _standard_twin(Plain).__doc__
    assert records.Thread.__doc__ == _standard_twin(records.Thread).__doc__


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
