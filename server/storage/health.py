"""A store health report: the backend's integrity check plus agreement of the indexes with `memories`.

Used by the crash and load tests and the benchmarks after they have stopped
every server; safe to run while servers are up (it only reads).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from server.storage.opener import open_location
from server.storage.protocol import IndexDrift, Integrity


@dataclass
class Health:
    integrity: list[str] = field(default_factory=list)
    drift: IndexDrift = field(default_factory=IndexDrift)
    live: int = 0
    deleted: int = 0
    pending: int = 0  # live memories still waiting for their vector

    def problems(self, *, vectors_done: bool = False) -> list[str]:
        """Everything wrong; with vectors_done, a memory still waiting for its vector is wrong too."""
        out = [f"integrity_check: {e}" for e in self.integrity]
        if self.drift:
            out.append(f"index drift: {self.drift.describe()}")
        if vectors_done and self.pending:
            out.append(f"{self.pending} live memories still have no vector")
        return out


def report(store: Integrity) -> Health:
    """Health of what `store` can see, read in one snapshot."""
    with store.db.read() as conn:
        counts = store.health_counts(conn)
        return Health(
            integrity=store.integrity_errors(conn, quick=False), drift=store.index_drift(conn),
            live=counts.live, deleted=counts.deleted, pending=counts.pending,
        )


def check(db_path: Path | str, namespace: str = "") -> Health:
    """Health of a SQLite file (every namespace) or a PostgreSQL URL (the namespace's tenant only)."""
    db, store = open_location(str(db_path), namespace)
    try:
        return report(store)
    finally:
        db.close()
