"""Counts and SHA-256 of each kind of data of one namespace, to compare a copy with its source.

Read through the store interface in one snapshot, so a SQLite store and a PostgreSQL one
holding the same data give the same fingerprint (`memvault migrate` checks its copies with it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from server.storage.protocol import Copying

#: fields of a dumped memory that are not the memory's own (each is its own kind below)
_QUEUES = ("queued", "daily_queued_at", "original", "judge_later")

#: meta keys whose values must agree (the model that made the vectors)
MODEL_KEYS = ("embedding_model", "embedding_dimensions")


def _plain(value: Any) -> Any:
    """Booleans as 0/1 and tuples as lists: both backends' rows hash alike."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    return value


class _Digest:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.hashes: dict[str, Any] = {}

    def add(self, kind: str, item: Any) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        h = self.hashes.setdefault(kind, hashlib.sha256())
        h.update(json.dumps(_plain(item), ensure_ascii=False, separators=(",", ":")).encode())
        h.update(b"\n")

    def count(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n

    def result(self) -> dict[str, dict[str, Any]]:
        empty = hashlib.sha256().hexdigest()
        kinds = sorted(set(self.counts) | set(self.hashes))
        return {
            k: {"count": self.counts.get(k, 0), "sha256": self.hashes[k].hexdigest() if k in self.hashes else empty}
            for k in kinds
        }


#: every kind of data a fingerprint reports, so an empty kind still shows (count 0)
KINDS = (
    "memories", "forgotten", "superseded", "pinned", "tags", "originals", "vectors", "pending_embeddings",
    "daily_log_queue", "update_checks", "possible_updates", "threads", "system_prompts", "messages", "global_prompts", "promotions", "model",
)


def fingerprint(store: Copying, page: int = 2000) -> dict[str, dict[str, Any]]:
    """Count and SHA-256 of each kind of data of the store's namespace, read in one snapshot."""
    d = _Digest()
    for kind in KINDS:
        d.count(kind, 0)
    with store.db.read() as conn:
        after = 0
        while rows := store.dump_memories(conn, after, page):
            for r in rows:
                d.add("memories", {k: v for k, v in r.__dict__.items() if k not in _QUEUES})
                if r.deleted_at is not None:
                    d.add("forgotten", r.id)
                if r.superseded_by is not None:
                    d.add("superseded", [r.id, r.superseded_by])
                if r.pinned:
                    d.add("pinned", r.id)
                for tag in r.tags:
                    d.add("tags", [r.id, tag])
                if r.original is not None:
                    d.add("originals", [r.id, r.original.content, r.original.compressed_at])
                if r.queued:
                    d.add("pending_embeddings", r.id)
                if r.daily_queued_at is not None:
                    d.add("daily_log_queue", [r.id, r.daily_queued_at])
                if r.judge_later:
                    d.add("update_checks", r.id)
            vectors = store.vectors(conn, [r.id for r in rows])
            for memory_id in sorted(vectors):
                raw = np.ascontiguousarray(vectors[memory_id], dtype=np.float32).tobytes()
                d.add("vectors", [memory_id, hashlib.sha256(raw).hexdigest()])
            after = rows[-1].id
        for memory_id, several in sorted(store.possible_updates_all(conn).items()):
            for possible in sorted(several, key=lambda p: p.older):
                d.add("possible_updates", [memory_id, possible.older, possible.probability])
        for thread in sorted(store.threads(conn), key=lambda t: t["id"]):
            d.add("threads", thread)
            if thread["system_prompt"]:
                d.add("system_prompts", [thread["id"], thread["system_prompt"]])
        for message in store.dump_messages(conn):
            d.add("messages", [message.thread, message.role, message.content, message.created_at])
        for prompt in sorted(store.export_global_prompts(conn), key=lambda p: p["name"]):
            d.add("global_prompts", prompt)
        for promotion in store.promotions(conn):
            d.add("promotions", [promotion.memory_id, promotion.section, promotion.promoted_at])
        meta = store.meta_items(conn)
        d.add("model", [meta.get(k) for k in MODEL_KEYS])
    return d.result()


def compare(namespace: str, source: dict[str, Any], target: dict[str, Any]) -> list[str]:
    problems = []
    for kind in sorted(set(source) | set(target)):
        a, b = source.get(kind, {"count": 0}), target.get(kind, {"count": 0})
        if a != b:
            how = "hashes differ" if a["count"] == b["count"] else "counts differ"
            problems.append(f"{kind}: {a['count']} in the source, {b['count']} in the target ({how})")
    return problems
