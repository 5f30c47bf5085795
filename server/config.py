"""Settings, read once from the environment; every limit a caller can hit lives here."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from server.errors import SetupError


def default_home() -> Path:
    """The platform's user *data* directory: never a cache or temp folder an update wipes."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("memvault", appauthor=False, roaming=True))


def repo_thread(start: Path) -> str | None:
    """The name of the git repository containing `start`, as a thread id (None outside one).

    Claude Code and IDE agents start servers in the project folder, so the
    repository is the natural default thread. Walks up looking for `.git` (a
    folder, or a file in worktrees and submodules) instead of running git.
    """
    import re

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
    from importlib.util import find_spec

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
    # thread_prompt's default budget, in estimated tokens.
    token_budget: int = 4000
    # How long a recall waits for the embedding model to finish loading before it
    # answers from keyword search alone (and says so).
    model_wait_seconds: float = 20.0
    # "minilm" (the real model) or "hash" (a light lexical embedder for tests and
    # machines without torch).
    embedder: str = "minilm"
    # Threads the embedding runtime may use (see embeddings.MiniLMEmbedder).
    embed_threads: int = 1
    # How "minilm" runs: "onnx" (default; ONNX Runtime on a one-time export, no torch
    # in the server), "numpy" (no export needed, slower) or "torch" (sentence-transformers).
    embed_runtime: str = "onnx"
    # Root of the ONNX export cache (MEMVAULT_MODEL_CACHE); None = the user cache dir.
    model_cache: Path | None = None
    log_level: str = "INFO"
    # Curation (see server/curation/). Cosine similarity at or above which two memories of one
    # thread count as duplicates.
    dedupe_threshold: float = 0.92
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
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        if env.get("MEMVAULT_HOME"):
            values["home"] = Path(env["MEMVAULT_HOME"]).expanduser()
        if env.get("MEMVAULT_MODEL_CACHE"):
            values["model_cache"] = Path(env["MEMVAULT_MODEL_CACHE"]).expanduser()
        for name, key, kind in _ENV:
            raw = env.get(key)
            if raw is None or raw == "":
                continue
            try:
                values[name] = kind(raw)
            except ValueError:
                raise SetupError(f"{key}={raw!r} is not a valid {kind.__name__}; unset it or fix the value") from None
        settings = cls(**values)  # type: ignore[arg-type]
        import re

        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", settings.namespace):
            raise SetupError(
                f"MEMVAULT_NAMESPACE={settings.namespace!r}: use 1-64 letters, digits, '.', '_' or '-'"
            )
        for name, key in _LIMITS:
            if getattr(settings, name) < 1:
                raise SetupError(f"{key}={getattr(settings, name)} must be at least 1; unset it for the default")
        if settings.database_url and not settings.database_url.startswith(("postgresql://", "postgres://")):
            raise SetupError(
                "MEMVAULT_DATABASE_URL must be a postgresql://user@host/dbname URL; unset it to use the SQLite file"
            )
        if settings.embedder not in ("minilm", "hash"):
            raise SetupError(f"MEMVAULT_EMBEDDER={settings.embedder!r}: use 'minilm' (default) or 'hash'")
        if settings.http_auth not in ("tokens", "oauth", "none"):
            raise SetupError(f"MEMVAULT_HTTP_AUTH={settings.http_auth!r}: use 'tokens' (default), 'oauth' or 'none'")
        if not 0 <= settings.http_port <= 65535:
            raise SetupError(f"MEMVAULT_HTTP_PORT={settings.http_port}: use a port from 1 to 65535")
        if settings.embed_runtime not in ("onnx", "numpy", "torch"):
            raise SetupError(f"MEMVAULT_EMBED_RUNTIME={settings.embed_runtime!r}: use 'onnx' (default), 'numpy' or 'torch'")
        import math

        if not (math.isfinite(settings.http_session_idle_seconds) and settings.http_session_idle_seconds > 0):
            raise SetupError(
                f"MEMVAULT_HTTP_SESSION_IDLE_SECONDS={settings.http_session_idle_seconds}: use a number of seconds "
                "above 0, e.g. 1800 (idle HTTP sessions are closed after it)"
            )
        if not 0.0 < settings.dedupe_threshold <= 1.0:
            raise SetupError(f"MEMVAULT_DEDUPE_THRESHOLD={settings.dedupe_threshold}: use a cosine similarity in (0, 1], e.g. 0.92")
        return settings


_LIMITS = (
    ("max_content_bytes", "MEMVAULT_MAX_CONTENT_BYTES"),
    ("max_archive_bytes", "MEMVAULT_MAX_ARCHIVE_BYTES"),
    ("max_resource_chars", "MEMVAULT_MAX_RESOURCE_CHARS"),
    ("max_tags", "MEMVAULT_MAX_TAGS"),
    ("max_tag_chars", "MEMVAULT_MAX_TAG_CHARS"),
    ("max_query_chars", "MEMVAULT_MAX_QUERY_CHARS"),
    ("max_k", "MEMVAULT_MAX_K"),
    ("pg_hnsw_m", "MEMVAULT_PG_HNSW_M"),
    ("pg_hnsw_ef_construction", "MEMVAULT_PG_HNSW_EF_CONSTRUCTION"),
    ("pg_ef_search", "MEMVAULT_PG_EF_SEARCH"),
    ("pg_pool_size", "MEMVAULT_PG_POOL_SIZE"),
    ("http_max_body_bytes", "MEMVAULT_HTTP_MAX_BODY_BYTES"),
    ("http_sessions_per_token", "MEMVAULT_HTTP_SESSIONS_PER_TOKEN"),
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
    ("max_archive_bytes", "MEMVAULT_MAX_ARCHIVE_BYTES", int),
    ("token_budget", "MEMVAULT_TOKEN_BUDGET", int),
    ("model_wait_seconds", "MEMVAULT_MODEL_WAIT", float),
    ("embedder", "MEMVAULT_EMBEDDER", str),
    ("embed_threads", "MEMVAULT_EMBED_THREADS", int),
    ("embed_runtime", "MEMVAULT_EMBED_RUNTIME", str),
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
    ("http_public_url", "MEMVAULT_HTTP_PUBLIC_URL", str),
    ("oauth_issuer", "MEMVAULT_OAUTH_ISSUER", str),
    ("oauth_introspection_url", "MEMVAULT_OAUTH_INTROSPECTION_URL", str),
    ("oauth_client_id", "MEMVAULT_OAUTH_CLIENT_ID", str),
    ("oauth_client_secret", "MEMVAULT_OAUTH_CLIENT_SECRET", str),
    ("oauth_tenant_claim", "MEMVAULT_OAUTH_TENANT_CLAIM", str),
    ("oauth_scopes", "MEMVAULT_OAUTH_SCOPES", str),
)
