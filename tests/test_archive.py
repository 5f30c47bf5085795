"""The JSON archive: exact round trips, idempotent import, and refusal of anything doubtful."""

from __future__ import annotations

import json

import pytest

from server.curation import archive
from server.curation.archive import ArchiveError
from server.curation.curator import Curator
from server.embedding.embedders import HashEmbedder
from server.errors import InvalidInput
from server.service import MemoryService

LONG = ("We moved the task queue from Celery to Dramatiq on 2026-03-02 because Celery lost tasks under Redis 7.2. "
        "Alice led the migration. The team was happy. Workers run with --processes 4 on api-worker-01.")


def _all(svc):
    return svc.db.conn.execute(
        "SELECT m.id, namespace, thread, m.content, kind, source, origin, importance, tags, content_hash, created_at, "
        "updated_at, deleted_at, superseded_by, recall_count, last_recalled_at, pinned, compression, o.content "
        "FROM memories m LEFT JOIN memory_originals o ON o.memory_id = m.id ORDER BY m.id"
    ).fetchall()


@pytest.fixture
def filled(service, clock):
    """A store with every kind of state: superseded, forgotten, compressed, pinned, tagged, a thread prompt."""
    a = service.remember("Jobs run on Celery", kind="decision", thread="api", tags=["queue"], created_at="2025-12-01").id
    b = service.remember("Jobs run on Dramatiq", kind="decision", thread="api", tags=["queue", "infra"]).id
    service.remember(LONG, kind="note", thread="api", created_at="2026-02-01T10:00:00.123Z")
    gone = service.remember("Old VPN is vpn.example.com", thread="global").id
    service.remember("Never deploy on Fridays", pinned=True, importance=0.9)
    service.recall("Dramatiq")
    service.forget(gone)
    curator = Curator(service)
    curator.run("supersede", ids=[a], replacement_id=b, dry_run=False)
    curator.run("compress", dry_run=False)
    with service.db.write() as conn:
        conn.execute("UPDATE threads SET title = 'API', system_prompt = 'Answer in English.' WHERE id = 'api'")
        conn.execute("INSERT INTO global_prompts(namespace, name, content, created_at, updated_at) "
                     "VALUES ('default', 'style', 'Be brief.', 1, 2)")
    return service


def _fresh(tmp_path, settings, clock, name="other"):
    return MemoryService.open(settings.with_(home=tmp_path / name), embedder=HashEmbedder(), clock=clock)


def test_export_then_import_into_an_empty_store_round_trips_every_field(filled, tmp_path, settings, clock):
    [doc] = archive.export(filled).values()
    assert (doc["format"], doc["version"], doc["counts"]["memories"]) == ("memvault-archive", 1, 5)
    path = tmp_path / "a.json"
    archive.write({"archive.json": doc}, path)
    other = _fresh(tmp_path, settings, clock)
    try:
        report = archive.import_file(other, path)
        assert report.counts.imported == 5 and report.counts.verified == 5
        assert _all(other) == _all(filled)
        threads = "SELECT id, title, system_prompt, archived, created_at, last_active_at FROM threads"
        prompts = "SELECT * FROM global_prompts"
        for sql in (threads, prompts):
            assert other.db.conn.execute(sql).fetchall() == filled.db.conn.execute(sql).fetchall()
        assert other.db.conn.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0] == 5
        assert (other.settings.files_dir / "daily").is_dir()  # the curation log came along
        # the same archive again: nothing new
        again = archive.import_file(other, path)
        assert (again.counts.imported, again.counts.already_present, again.counts.verified) == (0, 5, 5)
        assert _all(other) == _all(filled)
    finally:
        other.close()


def test_a_compressed_memory_restores_exactly_after_an_import(filled, tmp_path, settings, clock):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    other = _fresh(tmp_path, settings, clock)
    try:
        archive.import_file(other, path)
        [(memory_id,)] = other.db.conn.execute("SELECT id FROM memories WHERE compression IS NOT NULL").fetchall()
        Curator(other).run("restore", ids=[memory_id], dry_run=False)
        assert other.get(memory_id).content == LONG
    finally:
        other.close()


def test_importing_into_the_same_store_adds_nothing(filled, tmp_path):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    before = _all(filled)
    assert archive.import_file(filled, path).counts.imported == 0
    assert _all(filled) == before


def test_ids_taken_by_other_memories_get_new_ids_and_links_follow(filled, tmp_path, settings, clock):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    other = _fresh(tmp_path, settings, clock)
    try:
        for i in range(3):
            other.remember(f"unrelated {i}")
        report = archive.import_file(other, path)
        assert report.counts.new_ids == 5 and report.counts.verified == 5
        celery = other.db.conn.execute("SELECT superseded_by FROM memories WHERE content = 'Jobs run on Celery'").fetchone()[0]
        assert other.get(celery).content == "Jobs run on Dramatiq"
        assert archive.import_file(other, path).counts.imported == 0
    finally:
        other.close()


def _tamper(path, change):
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["payload"]["memories"][0].update(content="edited"), "checksum"),
        (lambda d: d.update(version=2), "newer memvault"),
        (lambda d: d.update(format="something-else"), "not a memvault archive"),
        (lambda d: d.update(version="1"), "version"),
    ],
)
def test_damaged_or_newer_archives_are_refused_and_nothing_is_imported(filled, tmp_path, settings, clock, change, message):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    _tamper(path, change)
    other = _fresh(tmp_path, settings, clock)
    try:
        memory_md = (other.settings.files_dir / "MEMORY.md").read_text()  # the fresh store's own
        with pytest.raises(ArchiveError, match=message):
            archive.import_file(other, path)
        assert _all(other) == [] and (other.settings.files_dir / "MEMORY.md").read_text() == memory_md
    finally:
        other.close()


def test_a_bad_record_with_a_recomputed_checksum_is_still_refused_whole(filled, tmp_path, settings, clock):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)

    def break_last(d):
        d["payload"]["memories"][-1]["kind"] = "gossip"
        d["sha256"] = archive.checksum(d["payload"])

    _tamper(path, break_last)
    other = _fresh(tmp_path, settings, clock)
    try:
        with pytest.raises(ArchiveError, match=r"memories\.4\.kind: .*gossip"):
            archive.import_file(other, path)
        assert _all(other) == []
    finally:
        other.close()


def test_a_possible_update_with_a_probability_outside_0_to_1_is_refused_whole(filled, tmp_path, settings, clock):
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)

    def overclaim(d):
        d["payload"]["memories"][-1]["possible_update"] = {"older": d["payload"]["memories"][0]["id"], "probability": 5.0}
        d["sha256"] = archive.checksum(d["payload"])

    _tamper(path, overclaim)
    other = _fresh(tmp_path, settings, clock)
    try:
        with pytest.raises(ArchiveError, match=r"memories\.4\.possible_update\.probability"):
            archive.import_file(other, path)
        assert _all(other) == []
    finally:
        other.close()


def test_truncated_json_is_refused(service, tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"format": "memvault-archive", "version": 1, "payl')
    with pytest.raises(ArchiveError, match="not valid JSON"):
        archive.import_file(service, path)


def test_a_subset_by_thread_and_date(filled):
    [doc] = archive.export(filled, thread="api", since="2026-01-01").values()
    assert {m["thread"] for m in doc["payload"]["memories"]} == {"api"}
    assert [m["content"] for m in doc["payload"]["memories"]][-1] == "Jobs run on Dramatiq"
    assert len(doc["payload"]["memories"]) == 2 and doc["payload"]["files"] == []
    assert [t["id"] for t in doc["payload"]["threads"]] == ["api"]


def test_split_by_month_writes_one_archive_per_month(filled, tmp_path, settings, clock):
    documents = archive.export(filled, split_by_month=True)
    assert sorted(documents) == ["2025/2025-12.json", "2026/2026-02.json", "2026/2026-05.json", "shared.json"]
    archive.write(documents, tmp_path / "split")
    other = _fresh(tmp_path, settings, clock)
    try:
        for path in archive.archive_files(tmp_path / "split"):
            archive.import_file(other, path)
        assert _all(other) == _all(filled)
    finally:
        other.close()


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "a/../../b.json", "x.txt", "..json", "", "a\\b.json"])
def test_hostile_archive_names_are_refused(tmp_path, name):
    (tmp_path / "archives").mkdir()
    with pytest.raises(InvalidInput):
        archive.archive_path(tmp_path / "archives", name)


def test_a_symlink_out_of_the_archives_folder_is_refused(tmp_path):
    (tmp_path / "archives").mkdir()
    (tmp_path / "secret.json").write_text("{}")
    (tmp_path / "archives" / "link.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(InvalidInput, match="outside"):
        archive.archive_path(tmp_path / "archives", "link.json")


def test_a_changed_memory_file_is_kept_and_the_archived_copy_saved_beside(filled, tmp_path):
    Curator(filled).files.install_templates()
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    memory_md = filled.settings.files_dir / "MEMORY.md"
    memory_md.write_text("# MEMORY\n\nmy newer edit\n")
    report = archive.import_file(filled, path)
    assert memory_md.read_text() == "# MEMORY\n\nmy newer edit\n"
    [kept] = report.files.kept_existing
    assert kept.startswith("MEMORY.md (archived copy: imported/")


def test_the_cli_exports_and_imports(filled, tmp_path, monkeypatch, capsys, settings):
    from server import cli

    monkeypatch.setenv("MEMVAULT_HOME", str(settings.home))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    filled.close()
    assert cli.main(["export", "-o", str(tmp_path / "cli.json")]) == 0
    assert capsys.readouterr().out == ""  # stdout stays quiet
    assert cli.main(["export", "-o", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "memvault-archive"
    monkeypatch.setenv("MEMVAULT_HOME", str(tmp_path / "new-home"))
    assert cli.main(["import", str(tmp_path / "cli.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["imported"], report["verified"], report["verify_failed"]) == (5, 5, 0)
    (tmp_path / "bad.json").write_text("{}")
    assert cli.main(["import", str(tmp_path / "bad.json")]) == 2
    assert "not a memvault archive" in capsys.readouterr().err


def test_an_archive_over_the_size_limit_is_refused_before_it_is_read(filled, tmp_path, settings, clock):
    path = tmp_path / "big.json"
    archive.write(archive.export(filled), path)
    small = MemoryService.open(settings.with_(home=tmp_path / "small", max_archive_bytes=100), embedder=HashEmbedder(),
                               clock=clock)
    try:
        with pytest.raises(ArchiveError, match="MEMVAULT_MAX_ARCHIVE_BYTES; nothing was imported"):
            archive.import_file(small, path)
        assert small.store.count()["live"] == 0
    finally:
        small.close()


def test_the_cli_import_computes_the_vectors_unless_told_not_to(filled, tmp_path, monkeypatch, capsys, settings):
    """`memvault import` leaves no embedding backlog behind; with --no-embed the server's backfill gets it all."""
    from server import cli

    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    for flags, pending in (([], 0), (["--no-embed"], 5)):
        home = tmp_path / f"home{len(flags)}"
        monkeypatch.setenv("MEMVAULT_HOME", str(home))
        assert cli.main(["import", str(path), *flags]) == 0
        assert json.loads(capsys.readouterr().out)["imported"] == 5
        svc = MemoryService.open(settings.with_(home=home), embedder=HashEmbedder())
        try:
            assert svc.store.count()["pending_embeddings"] == pending
        finally:
            svc.close()


def test_ctrl_c_while_the_cli_imports_says_what_is_stored_and_what_waits(filled, tmp_path, monkeypatch, capsys,
                                                                        settings):
    """Ctrl-C in `memvault import` (exit 130) says how many memories are stored, that running it again is safe, and
    how many still wait for a vector; running it again stores the rest and embeds everything (issue 35)."""
    from server import cli

    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    monkeypatch.setenv("MEMVAULT_HOME", str(tmp_path / "new-home"))
    path = tmp_path / "a.json"
    archive.write(archive.export(filled), path)
    real_embed = MemoryService.embed_backlog

    def interrupted_embedding(self, progress=None, model_wait=600.0):
        self.indexer.run_once(limit=2, batch_size=2)  # two vectors made, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(MemoryService, "embed_backlog", interrupted_embedding)
    assert cli.main(["import", str(path)]) == 130
    said = capsys.readouterr()
    assert said.out == "" and said.err == (
        "memvault: interrupted while embedding: the import itself is complete (5 new memories stored from the "
        "archive). 3 memories still wait for a vector: keyword search finds them now, and the server's background "
        f"backfill embeds them when it runs. It is safe to run `memvault import {path}` again: memories already "
        "present are skipped.\n")
    monkeypatch.setattr(MemoryService, "embed_backlog", real_embed)
    assert cli.main(["import", str(path)]) == 0  # again: nothing twice, and the vectors made
    report = json.loads(capsys.readouterr().out)
    assert (report["imported"], report["already_present"]) == (0, 5)
    svc = MemoryService.open(settings.with_(home=tmp_path / "new-home"), embedder=HashEmbedder())
    try:
        counts = svc.store.count()
        assert (counts["live"] + counts["deleted"], counts["pending_embeddings"]) == (5, 0)
    finally:
        svc.close()


def test_ctrl_c_between_split_archives_names_the_one_not_stored(filled, tmp_path, monkeypatch, capsys):
    """A folder of archives is imported one archive (one transaction) at a time: Ctrl-C in the second says what the
    first stored and that nothing of the second was."""
    from server import cli

    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    monkeypatch.setenv("MEMVAULT_HOME", str(tmp_path / "new-home"))
    first, second = tmp_path / "split" / "a.json", tmp_path / "split" / "b.json"
    first.parent.mkdir()
    archive.write(archive.export(filled), first)
    second.write_text(first.read_text())
    monkeypatch.setattr(archive, "archive_files", lambda folder: [first, second])
    real_import = archive.import_file

    def interrupted_second(service, path, **kw):
        if path == second:
            raise KeyboardInterrupt
        return real_import(service, path, **kw)

    monkeypatch.setattr(archive, "import_file", interrupted_second)
    assert cli.main(["import", str(first.parent), "--no-embed"]) == 130
    assert capsys.readouterr().err == (
        "memvault: interrupted: 5 new memories stored from 1 of 2 archives; nothing from b.json (an archive is stored "
        "whole or not at all). 5 memories still wait for a vector: keyword search finds them now, and the server's "
        f"background backfill embeds them when it runs. It is safe to run `memvault import {first.parent} --no-embed` "
        "again: memories already present are skipped.\n")
