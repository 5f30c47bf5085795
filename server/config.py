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


def templates_dir() -> Path:
    """The memory-file templates: packaged as server.templates, or memory-files/ in a checkout."""
    try:
        from importlib.resources import files

        return Path(str(files("server.templates")))
    except ModuleNotFoundError:
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
    # How long a recall waits for the embedding model to finish loading before it
    # answers from keyword search alone (and says so).
    model_wait_seconds: float = 20.0
    # "minilm" (the real model) or "hash" (a light lexical embedder for tests and
    # machines without torch).
    embedder: str = "minilm"
    # Threads torch may use for embedding (see embeddings.MiniLMEmbedder).
    embed_threads: int = 1
    log_level: str = "INFO"

    @property
    def db_path(self) -> Path:
        return self.home / "memvault.db"

    @property
    def files_dir(self) -> Path:
        return self.home / "files"

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        if env.get("MEMVAULT_HOME"):
            values["home"] = Path(env["MEMVAULT_HOME"]).expanduser()
        for name, key, kind in _ENV:
            raw = env.get(key)
            if raw is None or raw == "":
                continue
            try:
                values[name] = kind(raw)
            except ValueError:
                raise SetupError(f"{key}={raw!r} is not a valid {kind.__name__}; unset it or fix the value") from None
        settings = cls(**values)  # type: ignore[arg-type]
        for name, key in _LIMITS:
            if getattr(settings, name) < 1:
                raise SetupError(f"{key}={getattr(settings, name)} must be at least 1; unset it for the default")
        if settings.embedder not in ("minilm", "hash"):
            raise SetupError(f"MEMVAULT_EMBEDDER={settings.embedder!r}: use 'minilm' (default) or 'hash'")
        return settings


_LIMITS = (
    ("max_content_bytes", "MEMVAULT_MAX_CONTENT_BYTES"),
    ("max_tags", "MEMVAULT_MAX_TAGS"),
    ("max_tag_chars", "MEMVAULT_MAX_TAG_CHARS"),
    ("max_query_chars", "MEMVAULT_MAX_QUERY_CHARS"),
    ("max_k", "MEMVAULT_MAX_K"),
)

_ENV: tuple[tuple[str, str, type], ...] = (
    ("namespace", "MEMVAULT_NAMESPACE", str),
    ("default_thread", "MEMVAULT_THREAD", str),
    ("max_content_bytes", "MEMVAULT_MAX_CONTENT_BYTES", int),
    ("max_tags", "MEMVAULT_MAX_TAGS", int),
    ("max_tag_chars", "MEMVAULT_MAX_TAG_CHARS", int),
    ("max_query_chars", "MEMVAULT_MAX_QUERY_CHARS", int),
    ("max_k", "MEMVAULT_MAX_K", int),
    ("model_wait_seconds", "MEMVAULT_MODEL_WAIT", float),
    ("embedder", "MEMVAULT_EMBEDDER", str),
    ("embed_threads", "MEMVAULT_EMBED_THREADS", int),
    ("log_level", "MEMVAULT_LOG_LEVEL", str),
)
