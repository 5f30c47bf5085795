"""Reading an archive: its format constants, the validated shape of its payload, and
load() -- every check an import makes before it changes anything (format, version,
checksum, every field, every content hash) -- plus scrub(), which replaces secrets in
a verified archive's texts as remember would. curation.archive writes and restores it.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from server import validation as check
from server.errors import InvalidInput
from server.files.index import FILE_SOURCE, unit_hash
from server.models import KINDS
from server.guard.redact import identifier_secrets, marker, redact
from server.service import content_hash

FORMAT = "memvault-archive"
VERSION = 1
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FILE_PATH = re.compile(r"(MEMORY\.md|SOUL\.md|daily/[0-9]{4}-[0-9]{2}-[0-9]{2}\.md)")


class ArchiveError(InvalidInput):
    """The archive cannot be imported (damaged, newer, or not an archive); nothing was imported."""


def _ms(text: str | None) -> int | None:
    """ISO-8601 to milliseconds, exactly (no float arithmetic)."""
    if text is None:
        return None
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - _EPOCH) // timedelta(milliseconds=1)


def checksum(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()



# -- validation --------------------------------------------------------------------


class _Original(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    content: str
    compressed_at: str


class _Possible(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    older: int
    # The update model's probability: recall labels a pair from 0.3 on, so nothing outside 0-1 is taken.
    probability: float = Field(ge=0.0, le=1.0)


class _Memory(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    id: int
    thread: str | None
    content: str
    kind: str
    source: str
    origin: str | None
    importance: float
    tags: list[str]
    content_hash: str
    created_at: str
    updated_at: str
    deleted_at: str | None
    superseded_by: int | None
    recall_count: int
    last_recalled_at: str | None
    pinned: bool
    compression: str | None
    original: _Original | None
    # Archives before these fields carry no file keys (their file units are skipped: the
    # files they come from are in the archive, and the index rebuilds them).
    file_key: str | None = None
    file_line: int | None = None
    file_section: str | None = None
    # The earlier memory it possibly updates (storage PossibleUpdate); archives before it have none.
    possible_update: _Possible | None = None
    # Every one recorded (the first is possible_update); archives before several were kept have only that.
    possible_updates: list[_Possible] | None = None

    @property
    def file_unit(self) -> bool:
        return self.source.startswith(FILE_SOURCE)

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(f"unknown kind {value!r}")
        return value

    @field_validator("thread")
    @classmethod
    def _thread(cls, value: str | None) -> str | None:
        return None if value is None else check.thread_name(value)

    @field_validator("created_at", "updated_at", "deleted_at", "last_recalled_at")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None:
            _ms(value)
        return value


class _Thread(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    id: str
    title: str | None
    system_prompt: str | None
    archived: int
    created_at: int
    last_active_at: int

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check.thread_name(value)  # a thread id holding a secret refuses the archive


class _Prompt(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    name: str
    content: str
    active: int
    priority: int
    created_at: int
    updated_at: int


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    path: str
    text: str


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    thread: str
    role: str
    content: str
    created_at: str

    @field_validator("thread")
    @classmethod
    def _thread(cls, value: str) -> str:
        return check.thread_name(value)

    @field_validator("created_at")
    @classmethod
    def _time(cls, value: str) -> str:
        _ms(value)
        return value


class _Promotion(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    memory_id: int
    section: str
    promoted_at: str

    @field_validator("promoted_at")
    @classmethod
    def _time(cls, value: str) -> str:
        _ms(value)
        return value


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    memories: list[_Memory]
    threads: list[_Thread]
    global_prompts: list[_Prompt]
    files: list[_File]
    # Added later in version 1 (older archives have none): thread message windows, MEMORY.md promotions.
    messages: list[_Message] = []
    promotions: list[_Promotion] = []
    redacted: int = 0  # texts whose secrets scrub() replaced (not part of the file)

    def legacy_units(self) -> list[_Memory]:
        """File units of an archive written before they carried their keys: skipped on import."""
        return [m for m in self.memories if m.file_unit and m.file_key is None]


def load(text: str, name: str = "archive") -> _Payload:
    """The validated payload of an archive, or ArchiveError saying why it is refused."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArchiveError(f"{name} is damaged: not valid JSON ({exc}); nothing was imported") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ArchiveError(f"{name} is not a memvault archive (no \"format\": \"{FORMAT}\"); nothing was imported")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ArchiveError(f"{name} has no valid version number; nothing was imported")
    if version > VERSION:
        raise ArchiveError(
            f"{name} is archive version {version}, written by a newer memvault; this one reads version {VERSION}. "
            "Upgrade memvault to import it; nothing was imported"
        )
    if version < 1:
        raise ArchiveError(f"{name} has unknown archive version {version}; nothing was imported")
    payload = document.get("payload")
    if not isinstance(payload, dict) or document.get("sha256") != checksum(payload):
        raise ArchiveError(
            f"{name} is damaged: its sha256 checksum does not match its content (edited or truncated); "
            "nothing was imported"
        )
    try:
        parsed = _Payload.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ArchiveError(f"{name} is damaged: {where}: {first['msg']}; nothing was imported") from None
    except (InvalidInput, ValueError) as exc:
        raise ArchiveError(f"{name} is damaged: {exc}; nothing was imported") from None
    for m in parsed.memories:
        if m.file_unit:
            # A file unit's hash is of its file and key (files.index.unit_hash), not of its text.
            if m.file_key is None or unit_hash(m.source, m.file_key) == m.content_hash:
                continue
            raise ArchiveError(f"{name} is damaged: file unit {m.id}'s key does not match its content_hash; nothing was imported")
        text_of_record = m.original.content if m.original else m.content
        if content_hash(text_of_record) != m.content_hash:
            raise ArchiveError(f"{name} is damaged: memory {m.id}'s text does not match its content_hash; nothing was imported")
    for f in parsed.files:
        if not _FILE_PATH.fullmatch(f.path):
            raise ArchiveError(f"{name} names a file {f.path!r} outside the memory files; nothing was imported")
    return scrub(parsed)


def scrub(payload: _Payload) -> _Payload:
    """Secrets in every text of a verified archive replaced, as remember would have (an archive
    from another tool, or from before a pattern existed, must not bring them in).

    A memory whose text changes gets the content hash of its new text, so importing the same
    archive again finds it present, and verification compares what was stored.
    """
    changed = 0

    def clean(text: str) -> str:
        nonlocal changed
        found = redact(text)
        changed += found.changed
        return found.text

    def clean_name(name: str) -> str:
        """A tag or prompt name: a bare token counts too (identifier_secrets), replaced whole."""
        nonlocal changed
        found = identifier_secrets(name)
        if not found:
            return name
        changed += 1
        cleaned = redact(name)
        return cleaned.text if cleaned.changed else marker(found[0])

    for m in payload.memories:
        m.content = clean(m.content)
        m.tags = [clean_name(t).lower() for t in m.tags]  # a tag is stored lower-cased, as remember does
        if m.original is not None:
            m.original.content = clean(m.original.content)
        if not m.file_unit:  # a file unit's hash is of its file and key, not its text
            m.content_hash = content_hash(m.original.content if m.original else m.content)
    for t in payload.threads:
        t.title = None if t.title is None else clean(t.title)
        t.system_prompt = None if t.system_prompt is None else clean(t.system_prompt)
    for p in payload.global_prompts:
        p.name, p.content = clean_name(p.name), clean(p.content)
    for msg in payload.messages:
        msg.content = clean(msg.content)
    for f in payload.files:
        f.text = clean(f.text)
    payload.redacted = changed
    return payload
