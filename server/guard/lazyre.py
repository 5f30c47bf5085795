"""A regular expression compiled on first use (shared by the redaction and safety scanners)."""

from __future__ import annotations

import re
import weakref

#: Every LazyRe made, for compile_all (weak: a pattern made and dropped is not kept alive by this).
_made: weakref.WeakSet[LazyRe] = weakref.WeakSet()


class LazyRe:
    """A regex compiled on first use, to keep ``import`` cheap.

    Compiling every pattern up front is most of this module's import time. After the
    first call the methods are the compiled pattern's own bound methods (instance
    attributes shadow these class functions), so there is no per-call overhead.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        _made.add(self)

    def _compile(self) -> re.Pattern[str]:
        p = re.compile(self.pattern, self.flags)
        self.search, self.match, self.fullmatch, self.finditer = (  # type: ignore[method-assign]
            p.search, p.match, p.fullmatch, p.finditer,
        )
        self.split, self.sub, self.findall = p.split, p.sub, p.findall  # type: ignore[method-assign]
        return p

    def search(self, *args: object) -> re.Match[str] | None:
        return self._compile().search(*args)  # type: ignore[arg-type]

    def match(self, *args: object) -> re.Match[str] | None:
        return self._compile().match(*args)  # type: ignore[arg-type]

    def fullmatch(self, *args: object) -> re.Match[str] | None:
        return self._compile().fullmatch(*args)  # type: ignore[arg-type]

    def finditer(self, *args: object):  # type: ignore[no-untyped-def]
        return self._compile().finditer(*args)  # type: ignore[arg-type]

    def split(self, *args: object) -> list[str]:
        return self._compile().split(*args)  # type: ignore[arg-type]

    def sub(self, *args: object) -> str:
        return self._compile().sub(*args)  # type: ignore[arg-type]

    def findall(self, *args: object) -> list:  # type: ignore[type-arg]
        return self._compile().findall(*args)  # type: ignore[arg-type]


def compile_all() -> int:
    """Compile every pattern not compiled yet (a server, in the background after it answers `initialize`,
    so that its first recall or remember does not pay them); returns how many it compiled."""
    waiting = [p for p in list(_made) if "search" not in vars(p)]
    for pattern in waiting:
        pattern._compile()
    return len(waiting)
