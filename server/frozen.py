"""`record`: `@dataclass(frozen=True)` for plain records, made in under half the time.

Plain core (the standard library only): storage's records (server.storage.records) and the plain
frozen dataclasses every hook process imports (search, budget, recall, linker, updates, guards, hooks)
are made by it. server.storage.records re-exports it.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar

_Record = TypeVar("_Record", bound=type)


def record(cls: _Record) -> _Record:
    """`@dataclass(frozen=True)` for plain records, made in under half the time.

    Every process imports this module and every hook process pays for it: the standard decorator
    compiles six methods from source per class (__init__, __repr__, __eq__, __hash__, __setattr__,
    __delattr__; ~1 ms a class, ~21 ms of CPU for the module, ~10 % of a prompt hook). Here only
    __init__ is compiled (frozen style: object.__setattr__ per field, as the standard one does; the
    module then takes ~9 ms); the other five are shared functions that read the class's fields. A
    record is still a dataclass (fields, replace, asdict work), equal, hashed and printed the same,
    and assigning to one raises FrozenInstanceError; only its __dataclass_params__ say frozen=False
    and eq=False, as the decorator did not make those methods. For plain records only: fields with a
    plain default or none, no __post_init__ (anything else is refused: use the standard decorator).
    """
    # A class without a docstring gets the standard one, its signature, written here: the decorator would ask
    # inspect for it before __init__ exists, parsing object.__init__'s text signature (tokenize compiles
    # its regular expressions for that, ~2.5 ms of CPU in every hook process) only to print "Name()".
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    cls = dataclass(init=False, repr=False, eq=False)(cls)  # the fields (inherited ones first), nothing compiled
    names = tuple(cls.__dataclass_fields__)
    defaults: dict[str, Any] = {"__set": object.__setattr__}
    params, body = [], []
    for f in fields(cls):
        if f.default_factory is not MISSING or not f.init or f.kw_only or not f.compare or not f.repr:
            raise TypeError(f"{cls.__name__}.{f.name}: record() takes plain fields only; use dataclass(frozen=True)")
        if f.default is MISSING:
            params.append(f.name)
        else:
            defaults[f"__default_{f.name}"] = f.default
            params.append(f"{f.name}=__default_{f.name}")
        body.append(f"    __set(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: record() has no __post_init__; use dataclass(frozen=True)")
    exec(f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass"), defaults)  # noqa: S102
    init = defaults["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    if undocumented:  # as inspect.signature shows it (the annotations are strings: __future__ annotations)
        shown = (f"{f.name}: {f.type!r}" + ("" if f.default is MISSING else f" = {f.default!r}") for f in fields(cls))
        cls.__doc__ = f"{cls.__name__}({', '.join(shown)})"
    # Its fields' values as a tuple, as the standard __eq__ and __hash__ compare them.
    cls.__record_values__ = attrgetter(*names) if len(names) > 1 else staticmethod(lambda self: (getattr(self, names[0]),))
    for name, method in (("__setattr__", _frozen_setattr), ("__delattr__", _frozen_delattr), ("__repr__", _repr),
                         ("__eq__", _eq), ("__hash__", _hash)):
        if name not in cls.__dict__ or name in ("__setattr__", "__delattr__"):
            setattr(cls, name, method)
    return cls


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    if type(self).__dict__.get("__setattr__") is _frozen_setattr or name in self.__dataclass_fields__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if type(self).__dict__.get("__delattr__") is _frozen_delattr or name in self.__dataclass_fields__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__dataclass_fields__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is self.__class__:
        return self.__record_values__(self) == other.__record_values__(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_values__(self))
