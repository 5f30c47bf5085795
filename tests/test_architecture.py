"""The house plan, held by reading the imports of every module under server/ with `ast`.

- Only the opener (server.storage.opener) imports a backend; a backend imports only its own
  package, the contract and the plain core modules below the service.
- Only the MCP and HTTP edges (server.app, server.http) import `mcp`.
- Nothing under server.storage imports the service or anything built on it.
- No import cycle anywhere, counting imports inside functions too (a cycle hidden in a function
  is still two modules that cannot be understood apart). Imports under `if TYPE_CHECKING:` are
  annotations only and do not count.
- No cycle between rooms (a folder under server/, or a module at its top), counting imports for
  annotations too: two rooms that need each other are one room with a wall in it.
- The update rules (server.updates) reach nothing of search, the linker or the service; the guards
  (server.guard) reach nothing outside themselves but the plain core.
- Every module opens with a docstring and stays under MAX_LINES.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "server"
MAX_LINES = 600
BIG_ON_PURPOSE: set[str] = set()  # the stores were, until split by role
BACKENDS = ("server.storage.sqlite", "server.storage.pg")
OPENER = "server.storage.opener"
EDGES = ("server.app", "server.http")
#: What storage may build on: the plain core modules that know nothing of services.
STORAGE_MAY_IMPORT = ("server.storage", "server.errors", "server.clock", "server.frozen", "server.config",
                      "server.models", "server.textindex", "server.ranking", "server.validation")


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "templates" not in p.parts}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, annotations: bool = False) -> set[str]:
    """Every module `module` imports (server's own modules resolved to the longest that exists); with
    `annotations`, those under `if TYPE_CHECKING:` too."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child) and not annotations:
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.rsplit(".", child.level)[0]
                    source = f"{base}.{child.module}" if child.module else base
                else:
                    source = child.module or ""
                found.add(source)
                for alias in child.names:  # `from server.files import atomic` imports a module
                    if f"{source}.{alias.name}" in MODULES:
                        found.add(f"{source}.{alias.name}")
            visit(child)

    visit(tree)
    return found


IMPORTS = {m: _imports(m) for m in MODULES}
#: With the imports made for annotations only: a room that names another's types depends on it too.
TYPED_IMPORTS = {m: _imports(m, annotations=True) for m in MODULES}


def _within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _own(module: str) -> set[str]:
    return {i for i in IMPORTS[module] if i in MODULES and i != "server"}


def test_the_plan_reads_every_module():
    assert OPENER in MODULES and "server.service" in MODULES and len(MODULES) > 40


def test_only_the_opener_imports_a_backend():
    wrong = []
    for module, imported in IMPORTS.items():
        if module == OPENER:
            continue
        for backend in BACKENDS:
            if _within(module, backend):
                continue  # a backend's own modules
            if any(_within(i, backend) for i in imported):
                wrong.append(f"{module} imports {backend}")
    assert wrong == []


def test_a_backend_builds_only_on_its_own_package_the_contract_and_the_plain_core():
    wrong = []
    for module in MODULES:
        backend = next((b for b in BACKENDS if _within(module, b)), None)
        if backend is None:
            continue
        for imported in _own(module):
            allowed = _within(imported, backend) or (
                _within(imported, STORAGE_MAY_IMPORT) and not _within(imported, BACKENDS)
            )
            if not allowed:
                wrong.append(f"{module} imports {imported}")
    assert wrong == []


def test_only_the_mcp_and_http_edges_import_mcp():
    wrong = sorted(
        f"{module} imports {i}"
        for module, imported in IMPORTS.items()
        if not _within(module, EDGES)
        for i in imported
        if _within(i, "mcp")
    )
    assert wrong == []


def test_nothing_under_storage_imports_the_service_or_what_is_built_on_it():
    wrong = sorted(
        f"{module} imports {i}"
        for module in MODULES
        if _within(module, "server.storage")
        for i in _own(module)
        if not _within(i, STORAGE_MAY_IMPORT)
    )
    assert wrong == []


def test_there_is_no_import_cycle():
    graph = {m: _own(m) - {m} for m in MODULES}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 = on the path, 2 = done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)
    assert [" -> ".join(c) for c in cycles] == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_opens_with_a_docstring_and_stays_readable(module):
    source = MODULES[module].read_text(encoding="utf-8")
    assert ast.get_docstring(ast.parse(source)), f"{module} has no docstring saying what it holds"
    if module not in BIG_ON_PURPOSE:
        lines = source.count("\n")
        assert lines <= MAX_LINES, f"{module} has {lines} lines; split it along its concerns"


def test_the_architecture_checks_can_fail():
    """The checks see a real violation: a made-up module importing a backend and mcp is caught."""
    IMPORTS["server.fake"] = {"server.storage.sqlite.store", "mcp.types"}
    MODULES["server.fake"] = PACKAGE / "service.py"
    try:
        with pytest.raises(AssertionError):
            test_only_the_opener_imports_a_backend()
        with pytest.raises(AssertionError):
            test_only_the_mcp_and_http_edges_import_mcp()
    finally:
        del IMPORTS["server.fake"], MODULES["server.fake"]


def _room(module: str) -> str:
    """The room a module is in: its folder under server/ (server.storage.sqlite.store -> server.storage),
    or the module itself when it sits at the top (server.service)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else module


def _room_cycles() -> list[str]:
    graph: dict[str, set[str]] = {}
    for module, imported in TYPED_IMPORTS.items():
        for other in imported:
            if other in MODULES and other != "server" and _room(other) != _room(module):
                graph.setdefault(_room(module), set()).add(_room(other))
    cycles: list[str] = []
    state: dict[str, int] = {}  # 1 = on the path, 2 = done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for room in sorted(graph):
        if room not in state:
            walk(room)
    return cycles


def test_there_is_no_cycle_between_rooms():
    assert _room_cycles() == []


def _reach(prefix: str) -> set[str]:
    """Every module the modules under `prefix` reach through their imports, theirs included."""
    seen = {m for m in MODULES if _within(m, prefix)}
    todo = list(seen)
    while todo:
        for other in _own(todo.pop()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


#: Above the update rules: what ranks with them (search), runs them on write (the linker), and serves.
ABOVE_UPDATES = ("server.search", "server.linker", "server.service")
#: What the guards may build on: nothing of the store, search or the service.
GUARD_MAY_IMPORT = ("server.guard", "server.errors", "server.clock", "server.frozen")


def test_the_update_rules_reach_nothing_above_them():
    assert sorted(m for m in _reach("server.updates") if _within(m, ABOVE_UPDATES)) == []


def test_the_guards_build_on_the_plain_core_only():
    assert sorted(m for m in _reach("server.guard") if not _within(m, GUARD_MAY_IMPORT)) == []


def test_the_room_checks_can_fail():
    """A made-up storage module importing the service (which imports storage) is a cycle between rooms;
    made-up modules in the update rules and the guards importing search are caught."""
    for fakes, check in (({"server.storage.fake": {"server.service"}}, test_there_is_no_cycle_between_rooms),
                         ({"server.updates.fake": {"server.search"}}, test_the_update_rules_reach_nothing_above_them),
                         ({"server.guard.fake": {"server.search"}}, test_the_guards_build_on_the_plain_core_only)):
        for name, imported in fakes.items():
            IMPORTS[name] = TYPED_IMPORTS[name] = imported
            MODULES[name] = PACKAGE / "service.py"
        try:
            with pytest.raises(AssertionError):
                check()
        finally:
            for name in fakes:
                del IMPORTS[name], TYPED_IMPORTS[name], MODULES[name]


def _db_writes(module: str) -> list[str]:
    """Where `module` opens a write transaction on a database itself (`db.write(`, `x.db.write(`)."""
    found = []
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "write":
            target = node.func.value
            if (isinstance(target, ast.Name) and target.id == "db") or (
                isinstance(target, ast.Attribute) and target.attr == "db"
            ):
                found.append(f"{module}:{node.lineno}")
    return found


def test_writes_go_through_the_store():
    """Outside server.storage nothing opens a write on the database: each write is a named store method
    (storage/transactions.py), so every statement, and PostgreSQL's tenant scoping, stays in storage."""
    found = [where for module in MODULES if not _within(module, "server.storage") for where in _db_writes(module)]
    assert found == []


def test_search_asks_the_store_not_its_database():
    """The search modules never reach into `store.db`: what they read is a store method."""
    found = [
        f"{module}:{node.lineno}"
        for module in MODULES if _within(module, "server.search")
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "db" and isinstance(node.value, ast.Name)
        and node.value.id == "store"
    ]
    assert found == []


def test_every_room_is_shipped():
    """pyproject lists its packages by name: a folder under server/ missing there is left out of the wheel."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {_name(p) for p in PACKAGE.rglob("__init__.py") if "templates" not in p.parts}
    assert sorted(folders - listed) == []
