"""A recall's search stages read one snapshot, and Database tells a read joined to a read from one joined
to a write (the vector search's `_nested`: only a write's uncommitted changes keep the sidecar as it is)."""

from __future__ import annotations

from server.storage.sqlite.db import Database


def test_in_write_tells_a_write_from_a_read(tmp_path):
    db = Database(tmp_path / "t.db")
    try:
        assert not db.in_write()
        with db.read():
            assert not db.in_write()
            with db.read():
                assert not db.in_write()  # a read inside a read sees committed data only
        with db.write():
            assert db.in_write()
            with db.read():
                assert db.in_write()  # a read inside a write sees changes that may yet roll back
        assert not db.in_write()
        with db.read():
            with db.write():
                assert db.in_write()
            assert db.in_write()  # the write joined the read: its changes are open until the read ends
        assert not db.in_write()
    finally:
        db.close()


def test_a_failed_write_leaves_no_write_open(tmp_path):
    db = Database(tmp_path / "t.db")
    try:
        try:
            with db.write():
                raise RuntimeError("boom")
        except RuntimeError:
            pass
        assert not db.in_write()
    finally:
        db.close()


def test_a_recalls_search_stages_read_in_one_transaction(service, monkeypatch):
    """Stages 6-8 (gather, fuse, arrange: the vector search, rows, cosines, neighbours, possible updates,
    analyses, pair cosines) each opened a read of their own, about six a recall; they join one now."""
    from server import recall

    for n in range(12):
        service.remember(f"the payments worker retries failed charges, variant {n}", thread="billing")
    seen: list[str] = []
    marks: list[int] = []

    def marked(fn):
        def wrapper(*args, **kwargs):
            marks.append(len(seen))
            try:
                return fn(*args, **kwargs)
            finally:
                marks.append(len(seen))
        return wrapper

    monkeypatch.setattr(recall, "gather", marked(recall.gather))
    monkeypatch.setattr(recall, "arrange", marked(recall.arrange))
    service.recall("payments worker retries", thread="billing")  # warm: vectors, sidecar, analyses
    for thread in ("billing", "*"):
        seen.clear()
        marks.clear()
        service.db.conn.set_trace_callback(seen.append)
        try:
            got = service.recall("payments worker retries", thread=thread)
        finally:
            service.db.conn.set_trace_callback(None)
        assert got.memories and got.search == "hybrid"
        assert len(marks) == 4  # gather and arrange ran, once each
        inside = seen[marks[0] : marks[-1]]
        assert any(s.startswith("SELECT") for s in inside)  # they read...
        assert not [s for s in inside if s.strip().upper() in ("BEGIN", "COMMIT")]  # ...in the one read around them
