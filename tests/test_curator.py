"""The curator's actions, previewed and applied, on memories aged with the frozen clock."""

from __future__ import annotations

import pytest

from server.curation.compress import compress, tier_for_age
from server.curation.curator import Curator
from server.curation.scoring import retention_score
from server.errors import InvalidInput, NotFound
from server.files.dailylog import parse_curation
from server.service import content_hash

LONG = (
    "We decided on 2026-03-02 to move the task queue from Celery to Dramatiq because Celery kept losing tasks "
    "under Redis 7.2. The migration was led by Alice and took about two weeks. Honestly the team was pretty "
    "happy with the result. Workers now run with --processes 4 on api-worker-01."
)
DAY = 86_400_000


@pytest.fixture
def curator(service):
    return Curator(service)


def _rows(service):
    return service.db.conn.execute("SELECT id, content, superseded_by, deleted_at, compression FROM memories ORDER BY id").fetchall()


def _log(service):
    return [text for _, text in parse_curation(next((service.settings.files_dir / "daily").glob("*.md")).read_text())]


def test_a_dry_run_changes_nothing_and_says_what_would_change(service, curator):
    a = service.remember("The API uses PostgreSQL 16 for storage", thread="api", created_at="2026-04-01").id
    b = service.remember("the api uses postgresql 16 for storage.", thread="api").id
    before = _rows(service)
    result = curator.run("dedupe")
    assert (result.dry_run, result.ids, result.counts["superseded"]) == (True, [a], 1)
    assert result.details == [{"id": a, "superseded_by": b, "similarity": 1.0, "reason": "same text"}]
    assert "dry_run=false" in result.message
    assert _rows(service) == before
    logs = "".join(p.read_text() for p in (service.settings.files_dir / "daily").glob("*.md"))
    assert "Curation log" not in logs  # nothing applied, nothing logged


def test_dedupe_keeps_the_newest_wording_and_links_the_older_ones(service, curator):
    old = service.remember("Deploys go out from the main branch every Tuesday", thread="web", created_at="2026-04-01").id
    new = service.remember("Deploys go out from the main branch every Tuesday!", thread="web").id
    other = service.remember("Deploys go out from the main branch every Tuesday", thread="api").id
    result = curator.run("dedupe", dry_run=False)
    assert result.ids == [old]
    assert service.get(old).superseded_by == new and service.get(other).superseded_by is None
    assert service.db.conn.execute("SELECT count(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0] == 3
    assert curator.run("dedupe").ids == []  # applying twice changes nothing more
    assert _log(service) == [f"dedupe: {result.message.split('— ')[1].rstrip('.')}"]


def test_dedupe_threshold_is_configurable_and_validated(service, curator):
    service.remember("alpha beta gamma delta epsilon", thread="t", created_at="2026-04-01")
    service.remember("alpha beta gamma delta epsilon zeta eta theta iota", thread="t")
    assert curator.run("dedupe").ids == []
    assert len(curator.run("dedupe", threshold=0.5).ids) == 1
    with pytest.raises(InvalidInput, match="cosine"):
        curator.run("dedupe", threshold=1.5)


def test_superseded_memories_rank_below_their_replacement_and_are_labelled(service, curator):
    old = service.remember("Background jobs run on Celery workers", kind="decision", thread="api").id
    new = service.remember("Background jobs moved from Celery to Dramatiq", kind="decision", thread="api").id
    curator.run("supersede", ids=[old], replacement_id=new, dry_run=False)
    found = service.recall("Celery background jobs workers", thread="api").memories
    assert [m.id for m in found] == [new, old]
    assert found[1].label == f"superseded by memory {new}" and found[0].label is None
    with pytest.raises(InvalidInput, match="cycle"):
        curator.run("supersede", ids=[new], replacement_id=old)
    with pytest.raises(NotFound, match="No memory 999"):
        curator.run("supersede", ids=[999], replacement_id=new)


def test_recall_counts_how_often_a_memory_is_returned(service, clock):
    memory_id = service.remember("Use ruff for linting", kind="preference").id
    service.recall("ruff")
    clock.advance(days=1)
    service.recall("linting ruff")
    row = service.store.get([memory_id])[memory_id]
    assert (row.recall_count, row.last_recalled_at) == (2, row.created_at + DAY)


def test_compression_tiers_follow_age():
    assert [tier_for_age(d * DAY) for d in (0, 6, 7, 29, 30, 89, 90, 364, 365, 2000)] == [
        "full", "full", "key_points", "key_points", "summary", "summary", "summary", "summary", "metadata", "metadata"]


def test_compression_is_extractive_deterministic_and_keeps_the_key_facts():
    points = compress(LONG, "key_points", "decision", 0)
    brief = compress(LONG, "summary", "decision", 0)
    assert points == compress(LONG, "key_points", "decision", 0)
    assert len(brief) <= len(points) < len(LONG)
    assert 0.3 <= len(brief) / len(LONG) <= 0.5 and 0.55 <= len(points) / len(LONG) <= 0.8
    for fact in ("2026-03-02", "Celery", "Dramatiq", "7.2"):
        assert fact in brief
    stub = compress(LONG, "metadata", "decision", 0)
    assert stub.startswith("[decision of 1970-01-01, ") and "api-worker-01" in stub
    assert compress("Use ruff.", "summary", "note", 0) is None  # too short to gain anything


def test_compress_then_restore_gives_back_the_exact_original(service, curator, clock):
    memory_id = service.remember(LONG, kind="note", thread="api").id
    assert curator.run("compress").ids == []  # younger than 7 days: full text
    clock.advance(days=40)
    preview = curator.run("compress")
    assert preview.ids == [memory_id] and preview.details[0]["tier"] == "summary"
    assert service.get(memory_id).content == LONG
    applied = curator.run("compress", dry_run=False)
    assert 0 < applied.counts["ratio"] < 0.6
    memory = service.get(memory_id)
    assert memory.content == preview.details[0]["text"] and "compressed (summary)" in memory.label
    # keyword index and vector follow the new text
    assert service.db.conn.execute("SELECT count(*) FROM pending_embeddings WHERE memory_id = ?", (memory_id,)).fetchone()[0] == 1
    curator.run("restore", ids=[memory_id], dry_run=False)
    restored = service.store.get([memory_id])[memory_id]
    assert restored.content == LONG and content_hash(restored.content) == restored.content_hash
    assert restored.compression is None
    assert [m.id for m in service.recall("Dramatiq Celery Redis", thread="api").memories] == [memory_id]


def test_a_year_old_memory_keeps_only_metadata_and_still_restores(service, curator, clock):
    text = " ".join(f"{LONG} Round {i} used build 2026.{i} and the {i}th shard." for i in range(3))
    memory_id = service.remember(text, kind="decision", created_at="2025-01-01").id
    result = curator.run("compress", dry_run=False)
    assert result.details[0]["tier"] == "metadata" and result.counts["ratio"] < 0.25
    assert service.get(memory_id).content.startswith("[decision of 2025-01-01, ")
    curator.run("restore", ids=[memory_id], dry_run=False)
    assert service.get(memory_id).content == text


def test_pinned_and_important_memories_are_never_compressed(service, curator, clock):
    pinned = service.remember(LONG, thread="a", pinned=True).id
    important = service.remember(LONG, thread="b", importance=0.95).id
    plain = service.remember(LONG, thread="c").id
    clock.advance(days=100)
    result = curator.run("compress", dry_run=False)
    assert result.ids == [plain] and result.counts["skipped_exempt"] == 2
    assert service.get(pinned).content == LONG and service.get(important).content == LONG


def test_retention_score_follows_the_documented_formula(service, curator, clock):
    decision = service.remember("Chose SQLite", kind="decision", importance=0.5).id
    event = service.remember("Standup happened", kind="event", importance=0.5).id
    pinned = service.remember("Never deploy on Fridays", kind="note", pinned=True).id
    rows = service.store.get([decision, event, pinned])
    now = rows[decision].created_at
    assert retention_score(rows[decision], now) == round(0.35 * 1.0 + 0.25 * 0.5 + 0 + 0.2, 4)
    assert retention_score(rows[event], now + 90 * DAY) == round(0.35 * 0.3 + 0.25 * 0.5 + 0.2 * 0.5, 4)
    assert retention_score(rows[pinned], now + 900 * DAY) == 1.0
    result = curator.run("retention")
    assert result.ids == [pinned, decision, event]
    assert result.details[0]["exempt_from_compression"] is True


def test_forgotten_memories_are_listed_restored_and_only_purged_on_request(service, curator, clock):
    keep = service.remember("The staging host is stg-01").id
    gone = service.remember("The old VPN endpoint is vpn.example.com").id
    service.forget(keep)
    service.forget(gone)
    assert curator.run("forget-list").ids == [gone, keep]
    curator.run("restore", ids=[keep], dry_run=False)
    assert [m.id for m in service.recall("staging host stg-01").memories] == [keep]
    with pytest.raises(InvalidInput, match="not forgotten"):
        curator.run("purge", ids=[keep])
    with pytest.raises(InvalidInput, match="ids, or give older_than_days"):
        curator.run("purge")
    clock.advance(days=10)
    assert curator.run("purge", older_than_days=30).ids == []
    preview = curator.run("purge", older_than_days=5)
    assert preview.ids == [gone] and service.store.get([gone])  # a preview erases nothing
    curator.run("purge", older_than_days=5, dry_run=False)
    assert service.store.get([gone]) == {} and service.store.get([keep])
    assert any(line.startswith(f"purge: erased memory {gone}") for line in _log(service))


def test_no_action_but_purge_ever_deletes_a_row(service, curator, clock):
    ids = [service.remember(f"{LONG} Variant {i}.", thread="t").id for i in range(3)]
    service.forget(ids[0])
    clock.advance(days=500)
    for action in ("dedupe", "compress", "promote", "stats", "retention", "forget-list", "export"):
        curator.run(action, dry_run=False)
    curator.run("supersede", ids=[ids[1]], replacement_id=ids[2], dry_run=False)
    assert service.db.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 3


def test_pin_and_unpin(service, curator):
    memory_id = service.remember("Prefers tabs").id
    assert curator.run("pin", ids=[memory_id], dry_run=False).ids == [memory_id]
    assert service.get(memory_id).label == "pinned"
    assert curator.run("pin", ids=[memory_id]).ids == []
    curator.run("unpin", ids=[memory_id], dry_run=False)
    assert service.get(memory_id).label is None


def test_stats_report_the_figures_a_person_needs(service, curator):
    service.remember("a fact", kind="fact", thread="x")
    service.remember("A fact.", kind="fact", thread="x")
    service.remember("a decision", kind="decision")
    result = curator.run("stats")
    assert (result.counts["live"], result.counts["exact_duplicates"], result.counts["integrity_ok"]) == (3, 1, 1)
    assert {"kind": "fact", "count": 2} in result.details and {"thread": "global", "count": 1} in result.details
    assert result.details[0]["oldest"] == "2026-05-04T09:30:00Z"


def test_promotion_adds_sourced_entries_and_keeps_what_a_person_wrote(service, curator, settings):
    from server.config import templates_dir

    path = settings.files_dir / "MEMORY.md"
    mine = (templates_dir() / "MEMORY.md").read_text().replace("## Preferences\n", "## Preferences\n\n- I like short answers (written by hand)\n")
    path.write_text(mine)
    pref = service.remember("Use ruff for linting", kind="preference").id
    dec = service.remember("Chose SQLite over Postgres for the index", kind="decision", thread="api").id
    service.remember("Had coffee", kind="event")
    preview = curator.run("promote")
    assert sorted(preview.ids) == sorted([pref, dec]) and path.read_text() == mine
    curator.run("promote", dry_run=False)
    text = path.read_text()
    kept = [l for l in mine.splitlines() if not l.startswith("Last updated")]
    lines = iter(text.splitlines())
    assert all(line in lines for line in kept)  # every line a person wrote, in order
    # each entry names its memory and the daily-log line it was first written to
    assert f"- Use ruff for linting  <!-- memvault:id={pref} daily/2026-05-04.md:3 -->" in text
    assert f"- 2026-05-04: Chose SQLite over Postgres for the index  <!-- memvault:id={dec} daily/2026-05-04.md:4 -->" in text
    assert text.index("I like short answers") < text.index("Use ruff") < text.index("## Important Decisions")
    # a project's memory goes to that project's own section, after the shared ones
    assert text.index("## Important Decisions") < text.index("## Project: api") < text.index("Chose SQLite")
    assert "Last updated: 2026-05-04" in text
    [copy] = (settings.files_dir / "backups").glob("MEMORY.*.md")
    assert copy.read_text() == mine
    assert curator.run("promote", dry_run=False).ids == []  # idempotent
    assert path.read_text() == text


def test_promotion_stops_at_the_size_cap_and_says_so(service, settings, clock):
    small = Curator(type(service)(service.db, service.embedder, settings.with_(memory_max_chars=300), clock))
    for i in range(5):
        service.remember(f"Decision number {i}: use tool {i} for job {i}", kind="decision")
    result = small.run("promote", dry_run=False)
    assert 0 < result.counts["promoted"] < 5 and result.counts["left_out_by_size_cap"] > 0
    assert "size cap of 300 characters" in result.message
    assert len((settings.files_dir / "MEMORY.md").read_text()) <= 300


def test_the_source_daily_line_is_named_when_the_memory_has_one(service, curator, clock):
    from server.files.dailylog import DailyEntry

    memory_id = service.remember("Prefers pytest", kind="preference").id
    curator.files.append_daily(clock(), DailyEntry("preference", "Prefers pytest", id=memory_id))
    [detail] = curator.run("promote").details
    assert detail["entry"].endswith(f"<!-- memvault:id={memory_id} daily/2026-05-04.md:3 -->")


def test_unknown_actions_and_stray_parameters_are_refused(curator):
    with pytest.raises(InvalidInput, match="unknown action"):
        curator.run("tidy")
    with pytest.raises(InvalidInput, match="does not apply to stats"):
        curator.run("stats", ids=[1])
    with pytest.raises(InvalidInput, match="needs ids"):
        curator.run("restore")


def test_the_start_up_schedule_is_off_unless_configured(service, settings, clock):
    assert Curator(service).run_scheduled() == []
    on = Curator(type(service)(service.db, service.embedder, settings.with_(curate_on_start="dedupe"), clock))
    assert [r.action for r in on.run_scheduled()] == ["dedupe"]
    assert on.run_scheduled() == []  # once a day
