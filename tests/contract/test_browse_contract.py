"""Browsing and editing by hand (server/browse.py, server/curation/editing.py), on both backends."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server import browse
from server.curation import editing
from server.errors import InvalidInput, NotFound
from server.storage.protocol import MemoryFilter


def _ids(listing: browse.Listing) -> list[int]:
    return [e.id for e in listing.entries]


def _fill(svc, clock):
    """Three threads' worth of memories, a day apart, oldest first: (a, b, c, d)."""
    a = svc.remember("We deploy billing with Helm", kind="decision", thread="shop", tags=["deploy"]).id
    clock.advance(days=1)
    b = svc.remember("Tests run with make test", kind="snippet", thread="shop").id
    clock.advance(days=1)
    c = svc.remember("I prefer short answers", kind="preference", thread="global").id
    clock.advance(days=1)
    d = svc.remember("The docs site is built by mkdocs", kind="fact", thread="docs").id
    return a, b, c, d


def test_listing_filters_by_thread_kind_time_and_state_newest_first(svc, clock):
    a, b, c, d = _fill(svc, clock)
    listing = lambda **kw: browse.list_memories(svc, browse.memory_filter(svc, **kw))  # noqa: E731
    assert _ids(listing()) == [d, c, b, a]
    assert _ids(listing(thread="shop")) == [b, a]
    assert _ids(listing(thread="global")) == [c]
    assert _ids(listing(kinds=["fact", "decision"])) == [d, a]
    since = (clock() - timedelta(days=1, hours=1)).isoformat()
    assert _ids(listing(since=since)) == [d, c]
    svc.forget(b)
    assert _ids(listing(thread="shop")) == [a]
    assert _ids(listing(state="forgotten")) == [b]
    assert _ids(listing(state="all")) == [d, c, b, a]
    page = browse.list_memories(svc, browse.memory_filter(svc), limit=2, offset=1)
    assert (_ids(page), page.total, page.more) == ([c, a], 3, False)
    assert browse.list_memories(svc, browse.memory_filter(svc), limit=1).more is True
    with pytest.raises(InvalidInput, match="state 'gone' is not one of"):
        browse.memory_filter(svc, state="gone")
    with pytest.raises(InvalidInput, match="since is after until"):
        browse.memory_filter(svc, since="2026-05-05", until="2026-05-01")


def test_an_edit_of_the_text_is_a_revision_that_supersedes_the_old_one(svc, clock):
    a, *_ = _fill(svc, clock)
    result = editing.edit(svc, a, content="We deploy billing with Argo CD", origin="memvault cli")
    assert (result.status, result.previous) == ("revised", a) and result.id != a
    new, old = browse.show(svc, result.id), browse.show(svc, a)
    assert (new.memory.content, new.memory.kind, new.memory.thread, new.memory.tags) == (
        "We deploy billing with Argo CD", "decision", "shop", ["deploy"])
    assert (new.memory.source, new.memory.origin) == ("edit", "memvault cli")
    assert [e.id for e in new.supersedes] == [a]
    assert old.superseded_by is not None and old.superseded_by.id == result.id
    assert old.memory.states == [f"superseded by {result.id}"]
    assert any(e.what == f"edit: memory {a} → memory {result.id} (new text)" for e in new.history)
    hits = svc.recall("how do we deploy billing", thread="shop", k=2).memories
    assert hits[0].id == result.id
    # the old version cannot be edited any more, and restoring it undoes the link
    with pytest.raises(InvalidInput, match=f"superseded by memory {result.id}"):
        editing.edit(svc, a, content="again")
    editing.restore(svc, a)
    assert browse.show(svc, a).memory.states == []


def test_an_edit_of_kind_tags_or_importance_changes_the_memory_in_place(svc, clock):
    a, *_ = _fill(svc, clock)
    result = editing.edit(svc, a, kind="fact", tags=["Deploy", "infra"], importance=0.9)
    assert (result.id, result.status) == (a, "updated")
    row = svc.store.get([a])[a]
    assert (row.kind, row.tags, row.importance, row.content) == ("fact", ("deploy", "infra"), 0.9,
                                                                  "We deploy billing with Helm")
    # search filters follow: the kind and the tag filters find it under its new values
    assert [m.id for m in svc.recall("billing Helm", thread="shop", kinds=["fact"]).memories] == [a]
    assert [m.id for m in svc.recall("billing Helm", thread="shop", tags=["infra"]).memories] == [a]
    assert svc.recall("billing Helm", thread="shop", kinds=["decision"]).memories == []
    assert editing.edit(svc, a, kind="fact").status == "unchanged"
    history = [e.what for e in browse.show(svc, a).history]
    assert "edit: memory %d: kind decision → fact, tags [deploy] → [deploy, infra], importance 0.5 → 0.9" % a in history


def test_edits_that_cannot_be_done_say_what_to_do_and_change_nothing(svc, clock):
    a, b, c, d = _fill(svc, clock)
    before = svc.store.count()
    with pytest.raises(InvalidInput, match=f"memory {b} already says this in thread shop"):
        editing.edit(svc, a, content="Tests run with make test")
    svc.forget(d)
    with pytest.raises(InvalidInput, match="is forgotten; restore it first"):
        editing.edit(svc, d, content="x")
    with pytest.raises(NotFound, match="No memory 999"):
        editing.edit(svc, 999, content="x")
    with pytest.raises(InvalidInput, match="stays a turn"):
        editing.edit(svc, a, kind="turn")
    with pytest.raises(InvalidInput):
        editing.edit(svc, a, content="")
    assert svc.store.count()["live"] == before["live"] - 1  # only the forget
    assert svc.store.get([a])[a].superseded_by is None


def test_moving_a_memory_to_another_thread_is_a_revision_there(svc, clock):
    a, *_ = _fill(svc, clock)
    result = editing.edit(svc, a, thread="global")
    moved = browse.show(svc, result.id)
    assert (moved.memory.thread, moved.memory.content) == (None, "We deploy billing with Helm")
    assert [e.id for e in moved.supersedes] == [a]


def test_show_gives_provenance_original_and_history(svc, clock):
    a, *_ = _fill(svc, clock)
    svc.recall("Helm billing", thread="shop")
    editing.pin(svc, a)
    detail = browse.show(svc, a)
    assert detail.recall_count == 1 and detail.last_recalled_at is not None
    assert detail.memory.states == ["pinned"]
    whats = [e.what for e in detail.history]
    assert whats[0] == "created through remember"
    assert "pin: pinned memory %d" % a in whats
    assert detail.as_dict()["memory"]["id"] == a
    with pytest.raises(NotFound):
        browse.show(svc, 12345)


def test_thread_stats_count_kinds_states_and_duplicates(svc, clock):
    a, b, c, d = _fill(svc, clock)
    svc.remember("tests run with MAKE TEST.", kind="snippet", thread="shop")  # a near-copy of b
    svc.forget(d)
    svc.threads.configure("shop", title="The shop")
    stats = {s.thread: s for s in browse.thread_stats(svc)}
    shop = stats["shop"]
    assert (shop.title, shop.live, shop.by_kind, shop.forgotten, shop.duplicates) == (
        "The shop", 3, {"decision": 1, "snippet": 2}, 0, 1)
    assert shop.chars == len("We deploy billing with Helm") + len("Tests run with make test") + len(
        "tests run with MAKE TEST.")
    assert (stats["docs"].live, stats["docs"].forgotten) == (0, 1)
    assert stats["global"].by_kind == {"preference": 1}
    assert list(stats)[-1] == "global"
    (svc.settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n- We ship on Fridays\n")
    svc.recall("ship")  # indexes the file: its line is counted apart from the memories
    after = {s.thread: s for s in browse.thread_stats(svc)}["global"]
    assert (after.live, after.files, after.by_kind) == (1, 1, {"preference": 1})
    assert browse.thread_stats(svc, duplicates=False)[0].duplicates is None


def test_the_weekly_timeline_counts_creations_forgets_and_supersedes(svc, clock):
    a, b, c, d = _fill(svc, clock)
    clock.advance(days=7)
    svc.forget(b)
    editing.edit(svc, a, content="We deploy billing with Argo CD")
    weeks = browse.weekly(svc, 4)
    assert len(weeks) == 4 and weeks[-1].start <= clock().date().isoformat()
    assert sum(sum(w.created.values()) for w in weeks) == 5
    assert (weeks[-1].forgotten, weeks[-1].superseded) == (1, 1)
    assert weeks[-1].created_by_thread == {"shop": 1}
    assert sum(w.chars for w in weeks) == sum(len(r.content) for r in svc.store.get(range(1, 100)).values())
    # the lines of memory files are the file's, not memories someone wrote: not in the timeline
    (svc.settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n- We ship on Fridays\n")
    assert svc.recall("ship on Fridays").memories[0].location is not None
    assert browse.weekly(svc, 4) == weeks


def test_the_record_has_every_stored_field_of_one_memory(svc, clock):
    a, b, *_ = _fill(svc, clock)
    with svc.db.read() as conn:
        record = svc.store.record(conn, b)
        assert svc.store.record(conn, 999) is None
        count = svc.store.browse_count(conn, MemoryFilter(threads=("shop",)))
    assert (record.id, record.content, record.queued) == (b, "Tests run with make test", True)
    assert count == 2
