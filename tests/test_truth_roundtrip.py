"""Memory that stays true across files and archives: a store holding every kind of row exports
whole and imports into an empty store unchanged (directly and through curate_memory); promote
runs once; forget of a MEMORY.md bullet takes it out of the file."""

from __future__ import annotations

import os

import pytest

from server.curation import archive
from server.curation.curator import Curator
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService
from server.storage.protocol import PossibleUpdate
from server.thread_prompt import build_thread_prompt

LONG = ("We moved the task queue from Celery to Dramatiq on 2026-03-02 because Celery lost tasks under Redis 7.2. "
        "Alice led the migration. The team was happy. Workers run with --processes 4 on api-worker-01.")

# Every table an archive carries, in a stable order (vectors and the keyword index are rebuilt
# from the memories; the pending-embedding queue differs by design).
TABLES = {
    "memories": "SELECT id, namespace, thread, content, kind, source, origin, importance, tags, content_hash, "
                "created_at, updated_at, deleted_at, superseded_by, recall_count, last_recalled_at, pinned, "
                "compression, file_key, file_line, file_section FROM memories ORDER BY id",
    "originals": "SELECT * FROM memory_originals ORDER BY memory_id",
    "threads": "SELECT id, title, system_prompt, archived, created_at, last_active_at FROM threads ORDER BY id",
    "prompts": "SELECT * FROM global_prompts ORDER BY name",
    "messages": "SELECT thread, role, content, created_at FROM thread_messages ORDER BY thread, created_at, content",
    "promotions": "SELECT * FROM promotions ORDER BY memory_id",
    "possible_updates": "SELECT * FROM possible_updates ORDER BY memory_id, older",
}


def _rows(svc: MemoryService) -> dict[str, list[tuple]]:
    return {name: svc.db.conn.execute(sql).fetchall() for name, sql in TABLES.items()}


def _touch(path) -> None:
    st = path.stat()  # editors can save twice within one mtime tick; make the change visible to stat
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


@pytest.fixture
def everything(service):
    """Superseded (by an update on write and by curation), forgotten, compressed, pinned, several
    threads and global, file units of MEMORY.md, thread messages, a promotion, a thread prompt."""
    s = service
    s.remember("We use Python 3.11 for the api service", kind="fact", thread="api", created_at="2025-11-01")
    updated = s.remember("We use Python 3.12 for the api service", kind="fact", thread="api")
    assert updated.updates is not None  # the first is superseded on write
    a = s.remember("Jobs run on Celery", kind="decision", thread="api", tags=["queue"], created_at="2025-12-01").id
    b = s.remember("Background work is handled by Dramatiq workers", kind="decision", thread="api", tags=["queue"]).id
    s.remember(LONG, kind="note", thread="api", created_at="2026-02-01T10:00:00.123Z")
    main = s.remember("The storefront deploys from main", thread="web").id
    staging = s.remember("The storefront's staging deploys from the develop branch", thread="web").id
    tags = s.remember("The storefront deploys from release tags", thread="web").id
    with s.db.write() as conn:  # possible updates, as the update model records them (the hash embedder makes none)
        s.store.set_possible_update(conn, tags, [PossibleUpdate(main, 0.4375), PossibleUpdate(staging, 0.125)])
    gone = s.remember("Old VPN is vpn.example.com", thread="global").id
    s.remember("Never deploy on Fridays", pinned=True, importance=0.9)
    s.threads.add_messages("api", [{"role": "user", "content": "which queue?"}, {"role": "assistant", "content": "Dramatiq"}])
    s.forget(gone)
    curator = Curator(s)
    curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
    curator.run("compress", dry_run=False)
    assert curator.run("promote", dry_run=False).counts["promoted"] >= 1
    with s.files.memory_path.open("a", encoding="utf-8") as f:
        f.write("\n## Important Decisions\n\n- Chose Postgres for billing\n")
    _touch(s.files.memory_path)
    s.recall("postgres billing")  # indexes MEMORY.md: its bullets become file units
    with s.db.write() as conn:
        conn.execute("UPDATE threads SET title = 'API', system_prompt = 'Answer in English.' WHERE id = 'api'")
        conn.execute("INSERT INTO global_prompts(namespace, name, content, created_at, updated_at) "
                     "VALUES ('default', 'style', 'Be brief.', 1, 2)")
    rows = _rows(s)
    assert all(rows.values()), {k: len(v) for k, v in rows.items()}  # every kind of row is there
    assert any(r[18] is not None for r in rows["memories"])  # file units with their keys
    return s


def _fresh(tmp_path, settings, clock):
    return MemoryService.open(settings.with_(home=tmp_path / "other"), embedder=HashEmbedder(), clock=clock)


def test_a_whole_store_round_trips_exactly_into_an_empty_store(everything, tmp_path, settings, clock):
    path = tmp_path / "a.json"
    archive.write(archive.export(everything), path)
    other = _fresh(tmp_path, settings, clock)
    try:
        assert archive.import_file(other, path, commit=False).counts.imported == len(_rows(everything)["memories"])
        report = archive.import_file(other, path)
        assert report.counts.verified == report.counts.in_archive and report.counts.file_units_skipped == 0
        assert _rows(other) == _rows(everything)
        for name in ("MEMORY.md", "SOUL.md"):
            assert (other.settings.files_dir / name).read_text() == (everything.settings.files_dir / name).read_text()
        units = [r[:14] for r in _rows(everything)["memories"] if r[18] is not None]
        other.recall("postgres billing")  # the file index finds its units where the archive put them
        assert [r[:14] for r in _rows(other)["memories"] if r[18] is not None] == units
        assert archive.import_file(other, path).counts.imported == 0
    finally:
        other.close()


def test_the_same_round_trip_through_curate_memory(everything, tmp_path, settings, clock):
    exported = Curator(everything).run("export", dry_run=False)
    name = exported.details[0]["archive"]
    other = _fresh(tmp_path, settings, clock)
    try:
        source = everything.settings.archives_dir / name
        other.settings.archives_dir.mkdir(parents=True, exist_ok=True)
        (other.settings.archives_dir / name).write_bytes(source.read_bytes())
        done = Curator(other).run("import", archive=name, dry_run=False)
        assert done.counts["imported"] == len(_rows(everything)["memories"])
        assert _rows(other) == _rows(everything)
    finally:
        other.close()


def test_promote_runs_once_skips_what_is_not_a_current_memory_and_keeps_projects_apart(service):
    s = service
    s.remember("Run the web tests with pnpm vitest", thread="web", pinned=True)
    s.remember("Prefer small pull requests", thread="global", pinned=True)
    old = s.remember("The api listens on port 8000", thread="api", pinned=True).id
    new = s.remember("The api listens on port 8080", thread="api", pinned=True)
    assert new.updates == old
    gone = s.remember("Retired: the old staging host", pinned=True).id
    s.forget(gone)
    first = Curator(s).run("promote", dry_run=False)
    text = s.files.read_memory()
    assert "port 8080" in text and "port 8000" not in text and "old staging host" not in text
    assert Curator(s).run("promote", dry_run=True).counts["promoted"] == 0  # idempotent
    assert first.counts["promoted"] == 3
    s.recall("anything")  # MEMORY.md's bullets are now file units: never promoted again
    assert Curator(s).run("promote", dry_run=True).counts["promoted"] == 0
    web = build_thread_prompt(s, "web", None, None).text
    api = build_thread_prompt(s, "api", None, None).text
    assert "vitest" in web and "small pull requests" in web and "vitest" not in api and "small pull requests" in api


def test_forget_of_a_memory_md_bullet_removes_its_line_with_a_backup(service):
    s = service
    s.files.memory_path.write_text("# MEMORY\n\n## Important Decisions\n\n- Chose Postgres for billing\n- Deploys on Tuesdays\n")
    _touch(s.files.memory_path)
    hit = s.recall("postgres billing", k=1).memories[0]
    assert hit.content == "Chose Postgres for billing"
    kept = s.recall("deploys tuesdays", k=1).memories[0].id
    result = s.forget(hit.id)
    assert result.status == "forgotten"
    text = s.files.memory_path.read_text()
    assert "Postgres" not in text and "- Deploys on Tuesdays" in text
    backups = list((s.settings.files_dir / "backups").rglob("MEMORY*"))
    assert backups and any("Postgres" in p.read_text() for p in backups)
    assert "Postgres" not in " ".join(m.content for m in s.recall("postgres billing", k=10).memories)
    assert s.recall("deploys tuesdays", k=1).memories[0].id == kept  # the moved line keeps its id


def test_forget_of_one_line_keeps_the_other_lines_bytes_exactly(service):
    """Bytes that are not UTF-8 elsewhere in MEMORY.md (a Latin-1 note, a BOM) are written back as they were."""
    s = service
    before = (b"\xef\xbb\xbf# MEMORY\r\n\r\n## Important Decisions\r\n\r\n- Caf\xe9 opens at 8 (Latin-1)\r\n"
              b"- Chose Postgres for billing\r\n- Deploys on Tuesdays \xff\xfe\r\n")
    s.files.memory_path.write_bytes(before)
    _touch(s.files.memory_path)
    hit = s.recall("postgres billing", k=1).memories[0]
    assert hit.content == "Chose Postgres for billing"
    assert s.forget(hit.id).status == "forgotten"
    assert s.files.memory_path.read_bytes() == before.replace(b"- Chose Postgres for billing\r\n", b"")
