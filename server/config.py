"""Settings, read once from the environment; every limit a caller can hit lives here."""

from __future__ import annotations

import errno
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.util import find_spec
from pathlib import Path

from server.errors import SetupError

#: A thread id (also a global prompt's name), as a JSON-schema pattern and in words; here because
#: MEMVAULT_THREAD is checked at start, and server.validation (which imports this module) uses them too.
THREAD_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$"
THREAD_WORDS = "1-128 characters from letters, digits and . _ @ + - (starting with a letter or digit)"


def private_folder(path: Path) -> None:
    """Create `path` and any missing parent as 0700 (owner only); existing folders keep their mode. FileExistsError: a file.

    The data directory holds private text: made with the default mode it was readable by
    every user (0755) until `doctor` said so. `Path.mkdir(parents=True)` gives the mode to
    the last folder only, hence one os.mkdir per missing folder, outermost first.
    """
    missing, above = [], path
    while not above.exists() and above != above.parent:
        missing.append(above)
        above = above.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:  # another process made it meanwhile
            pass
    if not path.is_dir():  # as Path.mkdir(exist_ok=True) says it: the caller names the file in its message
        raise FileExistsError(errno.EEXIST, f"{path} is not a folder", str(path))


def default_home() -> Path:
    """The platform's user *data* directory: never a cache or temp folder an update wipes."""
    from platformdirs import user_data_dir  # lazy: ~6 ms a hook process pays only without MEMVAULT_HOME

    return Path(user_data_dir("memvault", appauthor=False, roaming=True))


def repo_thread(start: Path) -> str | None:
    """The name of the git repository containing `start`, as a thread id (None outside one).

    Claude Code and IDE agents start servers in the project folder, so the
    repository is the natural default thread. Walks up looking for `.git` (a
    folder, or a file in worktrees and submodules) instead of running git.
    """
    try:
        current = start.resolve()
    except OSError:
        return None
    for folder in (current, *current.parents):
        if (folder / ".git").exists():
            name = re.sub(r"[^A-Za-z0-9._@+-]+", "-", folder.name).strip("-.")
            name = re.sub(r"^[^A-Za-z0-9]+", "", name)[:128]
            return name or None
    return None


def templates_dir() -> Path:
    """The memory-file templates: packaged as server.templates, or memory-files/ in a checkout."""
    try:
        # A namespace package (no __init__.py): take its folder from the spec.
        spec = find_spec("server.templates")
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
        if (folder / "SOUL.md").exists():
            return folder
    return Path(__file__).resolve().parent.parent / "memory-files"


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=default_home)
    namespace: str = "default"
    # The thread used when a call names none (MEMVAULT_THREAD); None means global.
    default_thread: str | None = None
    max_content_bytes: int = 32 * 1024
    max_tags: int = 20
    max_tag_chars: int = 64
    max_query_chars: int = 2000
    max_k: int = 50
    # Recent-message window kept per thread (thread_prompt's short-term memory).
    window_size: int = 20
    # Largest archive `import` reads (bytes): a bigger file is refused before it is read.
    max_archive_bytes: int = 512 * 1024 * 1024
    # Resources larger than this are served cut, with a marker saying how to see the rest.
    max_resource_chars: int = 40_000
    # The most of one memory file (SOUL.md, MEMORY.md, a daily log) that is read, indexed
    # for recall or put into thread_prompt; a bigger file is cut at a line end, and recall says so.
    max_file_bytes: int = 1024 * 1024
    # thread_prompt's default budget, in estimated tokens.
    token_budget: int = 4000
    # How long a recall waits for the embedding model to finish loading before it
    # answers from keyword search alone (and says so).
    model_wait_seconds: float = 20.0
    # How long a write waits for another process's write lock before it answers "the store is
    # busy ...; retry" (reads never wait for it).
    write_wait_seconds: float = 5.0
    # "minilm" (the real model) or "hash" (a light lexical embedder for tests and
    # machines without torch).
    embedder: str = "minilm"
    # Threads the embedding runtime may use (see embeddings.MiniLMEmbedder).
    embed_threads: int = 1
    # How "minilm" runs: "onnx" (default; ONNX Runtime on a one-time export, no torch
    # in the server), "numpy" (no export needed, slower) or "torch" (sentence-transformers).
    embed_runtime: str = "onnx"
    # Which graph "onnx" runs: "float32" (the export) or "int8" (its dynamic quantization, made
    # offline by `memvault model prepare`; another model id, so switching means `memvault reembed`).
    # "auto": int8 for a new store, and the precision an existing store's vectors were made with.
    embed_precision: str = "auto"
    # Root of the ONNX export cache (MEMVAULT_MODEL_CACHE); None = the user cache dir.
    model_cache: Path | None = None
    log_level: str = "INFO"
    # Curation (see server/curation/). Cosine similarity at or above which two memories of one
    # thread that say the same thing (updates.same_fact) count as duplicates. 0.85 from
    # bench/updates.py's curve: precision 1.00 from 0.80 up, the first false merge at 0.75.
    dedupe_threshold: float = 0.85
    # MEMORY.md is read into prompts: promotion stops before the file grows past this.
    memory_max_chars: int = 16_000
    # Retention score a memory needs to be promoted (pinned memories always qualify).
    promote_min_score: float = 0.65
    # Curation actions run once a day at start-up, e.g. "compress,dedupe"; empty = never.
    curate_on_start: str = ""
    # Who writes (server.models.Principal); recorded on new memories, optional.
    user: str | None = None
    agent: str | None = None
    # postgresql://... switches the store to PostgreSQL + pgvector (see docs/postgres.md);
    # unset, memvault uses the SQLite file under home.
    database_url: str | None = None
    # pgvector HNSW parameters: m and ef_construction shape the index when `memvault db init`
    # builds it; ef_search is the candidate list per query (higher: better recall, slower).
    pg_hnsw_m: int = 16
    pg_hnsw_ef_construction: int = 64
    pg_ef_search: int = 200
    # Connections each process keeps to PostgreSQL (a small pool: writers of a tenant queue anyway).
    pg_pool_size: int = 4
    # `memvault serve --http` (server/http.py). Loopback by default; another address
    # is refused unless bearer tokens are required (http_auth = "tokens").
    http_host: str = "127.0.0.1"
    http_port: int = 8765
    # "tokens" (bearer tokens from `memvault token create`), "oauth" (an identity
    # provider's tokens, see server/oauth.py) or "none" (loopback only).
    http_auth: str = "tokens"
    # Extra Host / Origin header values accepted besides loopback ones, comma-separated:
    # "memvault.internal:8765,memvault.internal" / "https://app.example.com".
    http_allowed_hosts: str = ""
    http_allowed_origins: str = ""
    # Largest HTTP request body; bigger ones get 413 before they are read.
    http_max_body_bytes: int = 1024 * 1024
    # An MCP session with no request in flight for this long is closed (its id then gets 404
    # and the client starts a new one); each costs ~22 KB while open.
    http_session_idle_seconds: float = 1800.0
    # Open sessions one bearer token may hold at once (a new one past this gets 429).
    http_sessions_per_token: int = 32
    # Slow clients: a request's headers must arrive within the first limit (else the connection
    # is closed, 408) and its body within the second (408); one client address may hold at most
    # http_connections_per_client connections open (a new one past it gets 503 and is closed).
    http_header_timeout_seconds: float = 10.0
    http_body_timeout_seconds: float = 30.0
    http_connections_per_client: int = 128
    # OAuth resource-server mode (http_auth = "oauth"): this server's MCP URL as clients
    # reach it (the token audience), the authorization server, its introspection endpoint
    # and the credentials memvault introspects with, the claim naming the tenant, and
    # scopes every token must carry (comma-separated, optional).
    http_public_url: str = ""
    oauth_issuer: str = ""
    oauth_introspection_url: str = ""
    oauth_client_id: str = ""
    oauth_client_secret: str = field(default="", repr=False)
    oauth_tenant_claim: str = "tenant"
    oauth_scopes: str = ""

    @property
    def db_path(self) -> Path:
        return self.home / "memvault.db"

    @property
    def files_dir(self) -> Path:
        """SOUL.md, MEMORY.md and daily/ — one folder per namespace."""
        if self.namespace == "default":
            return self.home / "files"
        return self.home / "namespaces" / self.namespace / "files"

    @property
    def archives_dir(self) -> Path:
        # Per namespace like the memory files: `curate_memory(action="import")` takes a
        # file name in this folder, so a shared folder would let one tenant import another's export.
        if self.namespace == "default":
            return self.home / "archives"
        return self.home / "namespaces" / self.namespace / "archives"

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from MEMVAULT_* variables; SetupError naming the variable for any value that cannot work.

        Every setting is checked here, at start, rather than where it is first used: a
        MEMVAULT_THREAD="my project" accepted now would fail every later call that omits
        `thread`, naming an argument the client never sent.
        """
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for key, name in (("MEMVAULT_HOME", "home"), ("MEMVAULT_MODEL_CACHE", "model_cache")):
            raw = env.get(key)
            if raw:
                path = Path(raw).expanduser()
                if not path.is_absolute():
                    # A host starts the server in a folder of its own choosing: a relative
                    # path would put the data somewhere different for each host.
                    raise SetupError(f"{key}={raw!r} is a relative path; use an absolute one, e.g. {Path.home() / raw}")
                values[name] = path
        for name, key, kind in _ENV:
            raw = env.get(key)
            if raw is None or raw == "":
                continue
            try:
                value = kind(raw.strip() if kind is not str else raw)
            except ValueError:
                noun = {int: "a whole number", float: "a number"}.get(kind, kind.__name__)
                raise SetupError(f"{key}={raw!r} is not {noun}; fix the value or unset it for the default") from None
            if kind is float and not math.isfinite(value):
                raise SetupError(f"{key}={raw!r} is not a finite number; fix the value or unset it for the default")
            values[name] = value
        settings = cls(**values)  # type: ignore[arg-type]
        _validate(settings)
        return settings


def _validate(settings: Settings) -> None:
    """Raise SetupError, naming the variable and what it accepts, for the first setting that cannot work."""
    def refuse(key: str, value: object, allowed: str) -> None:
        raise SetupError(f"{key}={value!r}: {allowed}; fix it or unset it for the default")

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", settings.namespace):
        refuse("MEMVAULT_NAMESPACE", settings.namespace, "use 1-64 letters, digits, '.', '_' or '-'")
    if settings.default_thread is not None and not re.fullmatch(THREAD_PATTERN, settings.default_thread):
        refuse("MEMVAULT_THREAD", settings.default_thread, f"a thread id is {THREAD_WORDS}, e.g. my-project")
    if settings.default_thread is not None:
        # The rule every stored thread id follows; lazy: redact costs a hook process ~20 ms, and only
        # MEMVAULT_THREAD needs it here.
        from server.guard.redact import identifier_secrets

        if identifier_secrets(settings.default_thread):
            raise SetupError("MEMVAULT_THREAD holds a secret; set it to a plain name such as my-project")
    for name, key in _LIMITS:
        if getattr(settings, name) < 1:
            refuse(key, getattr(settings, name), "must be at least 1")
    if not 50 <= settings.token_budget <= 200_000:
        refuse("MEMVAULT_TOKEN_BUDGET", settings.token_budget, "use 50 to 200000 estimated tokens")
    for key, value in (("MEMVAULT_MODEL_WAIT", settings.model_wait_seconds), ("MEMVAULT_WRITE_WAIT", settings.write_wait_seconds)):
        if not 0 <= value <= 3600:
            refuse(key, value, "use a number of seconds from 0 to 3600")
    if settings.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        refuse("MEMVAULT_LOG_LEVEL", settings.log_level, "use DEBUG, INFO, WARNING, ERROR or CRITICAL")
    if settings.database_url and not settings.database_url.startswith(("postgresql://", "postgres://")):
        raise SetupError(
            "MEMVAULT_DATABASE_URL must be a postgresql://user@host/dbname URL; unset it to use the SQLite file"
        )
    if settings.embedder not in ("minilm", "hash"):
        refuse("MEMVAULT_EMBEDDER", settings.embedder, "use 'minilm' (default) or 'hash'")
    if settings.http_auth not in ("tokens", "oauth", "none"):
        refuse("MEMVAULT_HTTP_AUTH", settings.http_auth, "use 'tokens' (default), 'oauth' or 'none'")
    if not 0 <= settings.http_port <= 65535:
        refuse("MEMVAULT_HTTP_PORT", settings.http_port, "use a port from 1 to 65535 (0: any free port)")
    if settings.embed_runtime not in ("onnx", "numpy", "torch"):
        refuse("MEMVAULT_EMBED_RUNTIME", settings.embed_runtime, "use 'onnx' (default), 'numpy' or 'torch'")
    if settings.embed_precision not in ("auto", "float32", "int8"):
        refuse("MEMVAULT_EMBED_PRECISION", settings.embed_precision, "use 'auto' (default), 'float32' or 'int8'")
    if settings.embed_precision == "int8" and settings.embedder == "minilm" and settings.embed_runtime != "onnx":
        raise SetupError(
            f"MEMVAULT_EMBED_PRECISION=int8 runs on ONNX Runtime only, not MEMVAULT_EMBED_RUNTIME={settings.embed_runtime}: "
            "unset one of the two"
        )
    if not (math.isfinite(settings.http_session_idle_seconds) and settings.http_session_idle_seconds > 0):
        raise SetupError(
            f"MEMVAULT_HTTP_SESSION_IDLE_SECONDS={settings.http_session_idle_seconds}: use a number of seconds "
            "above 0, e.g. 1800 (idle HTTP sessions are closed after it)"
        )
    for key, value in (("MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS", settings.http_header_timeout_seconds),
                       ("MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS", settings.http_body_timeout_seconds)):
        if not (math.isfinite(value) and 0 < value <= 3600):
            refuse(key, value, "use a number of seconds above 0 and at most 3600, e.g. 10 (headers) or 30 (a body)")
    if not 0.0 < settings.dedupe_threshold <= 1.0:
        refuse("MEMVAULT_DEDUPE_THRESHOLD", settings.dedupe_threshold, "use a cosine similarity in (0, 1], e.g. 0.85")
    if not 0.0 <= settings.promote_min_score <= 1.0:
        refuse("MEMVAULT_PROMOTE_MIN_SCORE", settings.promote_min_score, "use a retention score from 0 to 1, e.g. 0.65")
    scheduled = [a.strip() for a in settings.curate_on_start.split(",") if a.strip()]
    if any(a not in ("compress", "dedupe", "promote") for a in scheduled):
        refuse("MEMVAULT_CURATE_ON_START", settings.curate_on_start, "list some of compress, dedupe, promote, e.g. compress,dedupe")
    for key, value in (("MEMVAULT_USER", settings.user), ("MEMVAULT_AGENT", settings.agent)):
        if value is not None and (len(value) > 200 or not value.isprintable()):
            refuse(key, value, "use a short printable name (at most 200 characters)")


_LIMITS = (
    ("max_content_bytes", "MEMVAULT_MAX_CONTENT_BYTES"),
    ("max_archive_bytes", "MEMVAULT_MAX_ARCHIVE_BYTES"),
    ("max_resource_chars", "MEMVAULT_MAX_RESOURCE_CHARS"),
    ("max_file_bytes", "MEMVAULT_MAX_FILE_BYTES"),
    ("max_tags", "MEMVAULT_MAX_TAGS"),
    ("max_tag_chars", "MEMVAULT_MAX_TAG_CHARS"),
    ("max_query_chars", "MEMVAULT_MAX_QUERY_CHARS"),
    ("max_k", "MEMVAULT_MAX_K"),
    ("window_size", "MEMVAULT_WINDOW"),
    ("embed_threads", "MEMVAULT_EMBED_THREADS"),
    ("memory_max_chars", "MEMVAULT_MEMORY_MAX_CHARS"),
    ("pg_hnsw_m", "MEMVAULT_PG_HNSW_M"),
    ("pg_hnsw_ef_construction", "MEMVAULT_PG_HNSW_EF_CONSTRUCTION"),
    ("pg_ef_search", "MEMVAULT_PG_EF_SEARCH"),
    ("pg_pool_size", "MEMVAULT_PG_POOL_SIZE"),
    ("http_max_body_bytes", "MEMVAULT_HTTP_MAX_BODY_BYTES"),
    ("http_sessions_per_token", "MEMVAULT_HTTP_SESSIONS_PER_TOKEN"),
    ("http_connections_per_client", "MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT"),
)

_ENV: tuple[tuple[str, str, type], ...] = (
    ("namespace", "MEMVAULT_NAMESPACE", str),
    ("default_thread", "MEMVAULT_THREAD", str),
    ("max_content_bytes", "MEMVAULT_MAX_CONTENT_BYTES", int),
    ("max_tags", "MEMVAULT_MAX_TAGS", int),
    ("max_tag_chars", "MEMVAULT_MAX_TAG_CHARS", int),
    ("max_query_chars", "MEMVAULT_MAX_QUERY_CHARS", int),
    ("max_k", "MEMVAULT_MAX_K", int),
    ("window_size", "MEMVAULT_WINDOW", int),
    ("max_resource_chars", "MEMVAULT_MAX_RESOURCE_CHARS", int),
    ("max_file_bytes", "MEMVAULT_MAX_FILE_BYTES", int),
    ("max_archive_bytes", "MEMVAULT_MAX_ARCHIVE_BYTES", int),
    ("token_budget", "MEMVAULT_TOKEN_BUDGET", int),
    ("model_wait_seconds", "MEMVAULT_MODEL_WAIT", float),
    ("write_wait_seconds", "MEMVAULT_WRITE_WAIT", float),
    ("embedder", "MEMVAULT_EMBEDDER", str),
    ("embed_threads", "MEMVAULT_EMBED_THREADS", int),
    ("embed_runtime", "MEMVAULT_EMBED_RUNTIME", str),
    ("embed_precision", "MEMVAULT_EMBED_PRECISION", str),
    ("log_level", "MEMVAULT_LOG_LEVEL", str),
    ("dedupe_threshold", "MEMVAULT_DEDUPE_THRESHOLD", float),
    ("memory_max_chars", "MEMVAULT_MEMORY_MAX_CHARS", int),
    ("promote_min_score", "MEMVAULT_PROMOTE_MIN_SCORE", float),
    ("curate_on_start", "MEMVAULT_CURATE_ON_START", str),
    ("user", "MEMVAULT_USER", str),
    ("agent", "MEMVAULT_AGENT", str),
    ("database_url", "MEMVAULT_DATABASE_URL", str),
    ("pg_hnsw_m", "MEMVAULT_PG_HNSW_M", int),
    ("pg_hnsw_ef_construction", "MEMVAULT_PG_HNSW_EF_CONSTRUCTION", int),
    ("pg_ef_search", "MEMVAULT_PG_EF_SEARCH", int),
    ("pg_pool_size", "MEMVAULT_PG_POOL_SIZE", int),
    ("http_host", "MEMVAULT_HTTP_HOST", str),
    ("http_port", "MEMVAULT_HTTP_PORT", int),
    ("http_auth", "MEMVAULT_HTTP_AUTH", str),
    ("http_allowed_hosts", "MEMVAULT_HTTP_ALLOWED_HOSTS", str),
    ("http_allowed_origins", "MEMVAULT_HTTP_ALLOWED_ORIGINS", str),
    ("http_max_body_bytes", "MEMVAULT_HTTP_MAX_BODY_BYTES", int),
    ("http_session_idle_seconds", "MEMVAULT_HTTP_SESSION_IDLE_SECONDS", float),
    ("http_sessions_per_token", "MEMVAULT_HTTP_SESSIONS_PER_TOKEN", int),
    ("http_header_timeout_seconds", "MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS", float),
    ("http_body_timeout_seconds", "MEMVAULT_HTTP_BODY_TIMEOUT_SECONDS", float),
    ("http_connections_per_client", "MEMVAULT_HTTP_CONNECTIONS_PER_CLIENT", int),
    ("http_public_url", "MEMVAULT_HTTP_PUBLIC_URL", str),
    ("oauth_issuer", "MEMVAULT_OAUTH_ISSUER", str),
    ("oauth_introspection_url", "MEMVAULT_OAUTH_INTROSPECTION_URL", str),
    ("oauth_client_id", "MEMVAULT_OAUTH_CLIENT_ID", str),
    ("oauth_client_secret", "MEMVAULT_OAUTH_CLIENT_SECRET", str),
    ("oauth_tenant_claim", "MEMVAULT_OAUTH_TENANT_CLAIM", str),
    ("oauth_scopes", "MEMVAULT_OAUTH_SCOPES", str),
)
