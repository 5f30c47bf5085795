"""Memory files in the data directory: templates, the daily log, and MEMORY.md/SOUL.md kept in the index."""

from __future__ import annotations

import os

import pytest

from server.config import Settings, templates_dir
from server.embedding.embedders import HashEmbedder
from server.errors import StoreBusy
from server.files.dailylog import parse_daily
from server.service import MemoryService
from server.thread_prompt import build_thread_prompt


def _open(home, clock):
    return MemoryService.open(Settings(home=home, embedder="hash"), embedder=HashEmbedder(), clock=clock)


def test_templates_are_copied_once_and_never_overwritten(tmp_path, clock):
    svc = _open(tmp_path, clock)
    files = svc.files
    assert files.read_soul() == (templates_dir() / "SOUL.md").read_text()
    assert "## Important Decisions" in files.read_memory()
    assert files.daily_dir.is_dir()
    files.memory_path.write_text("# MEMORY\n\n## Preferences\n\n- my own words\n")
    svc.close()
    again = _open(tmp_path, clock)  # a restart (or an upgrade) keeps the person's edit
    try:
        assert again.files.read_memory() == "# MEMORY\n\n## Preferences\n\n- my own words\n"
    finally:
        again.close()


def test_every_remember_appends_a_readable_line_to_todays_log(service, clock):
    a = service.remember("Use httpx, not requests", kind="preference", thread="api")
    b = service.remember("Line one\nline two", kind="fact")
    day = clock().astimezone().date()
    text = service.files.read_daily(day)
    assert text.startswith(f"# {day.isoformat()}\n")
    entries = parse_daily(text)
    assert [(e.id, e.kind, e.thread, e.content) for e in entries] == [
        (a.id, "preference", "api", "Use httpx, not requests"),
        (b.id, "fact", None, "Line one\nline two"),
    ]
    assert "- 09:30 [preference] (api) Use httpx, not requests  <!-- id:1 -->" in text.splitlines()
    assert service.db.conn.execute("SELECT count(*) FROM daily_log_queue").fetchone()[0] == 0


def test_a_failed_daily_append_is_reported_and_written_later(service, clock, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(service.files, "append_daily", broken)
    result = service.remember("stored even though the log failed")
    assert result.status == "stored"
    assert "daily log line could not be written (OSError: disk full)" in result.message
    assert service.db.conn.execute("SELECT memory_id FROM daily_log_queue").fetchall() == [(result.id,)]
    monkeypatch.undo()
    assert service.write_daily_backlog(older_than_ms=0) == 1
    entries = parse_daily(service.files.read_daily(clock().astimezone().date()))
    assert [e.id for e in entries] == [result.id]


@pytest.mark.parametrize("next_day", [False, True])
def test_a_line_written_before_a_kill_is_not_written_again(service, clock, monkeypatch, next_day):
    """kill -9 between the append and the unqueue: the retry finds the line, and the log holds the memory once."""
    monkeypatch.setattr(service.store, "unqueue_daily", lambda memory_id: None)  # the process died here
    first = service.remember("written, but its queue row survived the kill")
    monkeypatch.undo()
    day = clock().astimezone().date()
    if next_day:  # the next start is the day after: the line is in yesterday's log
        clock.advance(days=1)
    assert service.write_daily_backlog(older_than_ms=0) == 0
    second = service.remember("a later memory")  # also retries the backlog, now empty
    assert service.db.conn.execute("SELECT count(*) FROM daily_log_queue").fetchone()[0] == 0
    logged = [e.id for d in service.files.list_days() for e in parse_daily(service.files.read_daily(d))]
    assert logged == [first.id, second.id]
    assert [e.id for e in parse_daily(service.files.read_daily(day))][0] == first.id


def test_a_retried_append_of_a_line_already_in_the_log_appends_nothing(service, clock):
    """Two processes retrying one queued line at once: the second finds it under the append lock."""
    from server.files.dailylog import DailyEntry

    when = clock().astimezone()
    entry = DailyEntry("fact", "retried twice", None, 42)
    _, first = service.files.append_daily(when, entry, once=True)
    _, second = service.files.append_daily(when, entry, once=True)
    assert first == second
    assert [e.id for e in service.files.daily_entries(when.date())] == [42]


def _write_memory_md(service, bullets: list[str]) -> None:
    body = "\n".join(f"- {b}" for b in bullets)
    service.files.memory_path.write_text(f"# MEMORY\n\n## Important Decisions\n\n{body}\n\nLast updated: today\n")
    # editors can save twice within one mtime tick; make the change visible to stat as a person's would be
    st = service.files.memory_path.stat()
    os.utime(service.files.memory_path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_edits_to_memory_md_are_recalled_without_a_restart_with_file_and_line(service):
    service.recall("warm up")  # the index has seen the file once
    _write_memory_md(service, ["Chose Dramatiq over Celery for background jobs", "Deploys happen on Tuesdays"])
    hit = service.recall("dramatiq background jobs", k=1).memories[0]
    assert hit.content == "Chose Dramatiq over Celery for background jobs"
    assert (hit.source, hit.kind, hit.location) == ("file:MEMORY.md", "decision", "MEMORY.md:5 (Important Decisions)")


def test_a_deleted_bullet_disappears_from_recall(service):
    _write_memory_md(service, ["Chose Dramatiq over Celery", "Deploys happen on Tuesdays"])
    assert service.recall("dramatiq celery").memories[0].content == "Chose Dramatiq over Celery"
    _write_memory_md(service, ["Deploys happen on Tuesdays"])
    assert "Chose Dramatiq over Celery" not in [m.content for m in service.recall("dramatiq celery", k=50).memories]
    hit = service.recall("deploys tuesdays").memories[0]
    assert (hit.content, hit.location) == ("Deploys happen on Tuesdays", "MEMORY.md:5 (Important Decisions)")
    rows = service.db.conn.execute("SELECT count(*) FROM memories WHERE source = 'file:MEMORY.md'").fetchone()
    assert rows == (1,)


def test_soul_md_is_identity_not_recalled_and_not_counted(service):
    """SOUL.md is delivered whole by thread_prompt; recall and the counts never see its bullets."""
    service.files.soul_path.write_text("# SOUL\n\n## Boundaries\n\n- Never force-push to main\n")
    service.remember("Releases are cut from main on Thursdays")
    hits = service.recall("never force push main", k=10).memories
    assert [h.content for h in hits] == ["Releases are cut from main on Thursdays"]
    assert service.store.count()["live"] == 1 and service.store.count()["file_units"] == 0
    context = build_thread_prompt(service, None, None, None)
    assert "Never force-push to main" in context.text


def test_soul_md_units_an_older_version_indexed_are_removed(service, clock):
    """A store whose SOUL.md bullets were indexed by an older memvault loses them at the first recall."""
    from server.files.index import unit_hash
    from server.storage.protocol import GLOBAL, NewMemory

    with service.db.write() as conn:
        service.store.insert_memory(conn, NewMemory(
            thread=GLOBAL, content="Never force-push to main", kind="note", source="file:SOUL.md", origin=None,
            importance=0.7, tags=(), content_hash=unit_hash("file:SOUL.md", "k"), created_at=0, updated_at=0,
            index_text="Never force-push to main", file_key="k", file_line=5, file_section="Boundaries", log_daily=False,
        ))
    fresh = MemoryService.open(service.settings, embedder=service.embedder, clock=clock)
    try:
        assert fresh.recall("force push main").memories == []
        assert fresh.store.count()["file_units"] == 0
    finally:
        fresh.close()


def test_a_persons_own_notes_in_a_daily_log_are_searchable_but_memvault_lines_are_not_doubled(service, clock):
    stored = service.remember("The flaky test is test_upload_retry")
    path = service.files.day_path(clock().astimezone().date())
    with open(path, "a") as f:
        f.write("\nRemember to ask Dana about the quarterly budget spreadsheet.\n")
    hits = service.recall("quarterly budget spreadsheet").memories
    assert hits[0].location == f"daily/{path.name}:5" and hits[0].content.startswith("Remember to ask Dana")
    flaky = service.recall("flaky test_upload_retry", thread="*", k=50).memories
    assert [h.content for h in flaky].count("The flaky test is test_upload_retry") == 1  # not indexed twice
    assert flaky[0].id == stored.id


def test_a_recall_after_a_burst_of_remembers_does_not_parse_the_log_of_memvaults_own_lines(service, monkeypatch):
    service.remember("The deploy of build 0 went fine")
    service.recall("anything")  # the index has looked at today's log
    for n in range(1, 6):
        service.remember(f"The deploy of build {n} went fine")
    synced: list[str] = []
    sync_file = service.file_index._sync_file
    monkeypatch.setattr(service.file_index, "_sync_file", lambda name, *a, **k: synced.append(name) or sync_file(name, *a, **k))
    service.recall("deploy build")
    assert synced == []  # only memvault's own lines were added: nothing to index, nothing parsed


def test_a_persons_line_among_memvaults_own_is_indexed(service, clock):
    service.remember("The deploy of build 0 went fine")
    service.recall("anything")
    service.remember("The deploy of build 1 went fine")
    path = service.files.day_path(clock().astimezone().date())
    with open(path, "a") as f:
        f.write("\nAsk Dana about the quarterly budget spreadsheet.\n")
    service.remember("The deploy of build 2 went fine")  # memvault appends after the person's line
    hits = service.recall("quarterly budget spreadsheet").memories
    assert hits and hits[0].content.startswith("Ask Dana")


def test_a_log_edit_that_a_failed_index_update_left_behind_is_indexed_after_more_remembers(service, clock, monkeypatch):
    service.remember("The deploy of build 0 went fine")
    service.recall("anything")
    path = service.files.day_path(clock().astimezone().date())
    with open(path, "a") as f:
        f.write("\nAsk Dana about the quarterly budget spreadsheet.\n")
    service.remember("The deploy of build 1 went fine")
    sync_file = service.file_index._sync_file

    def busy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise StoreBusy("busy")

    monkeypatch.setattr(service.file_index, "_sync_file", busy)
    service.recall("deploy")  # the store was busy: the log stays to be indexed
    monkeypatch.setattr(service.file_index, "_sync_file", sync_file)
    service.remember("The deploy of build 2 went fine")
    hits = service.recall("quarterly budget spreadsheet").memories
    assert hits and hits[0].content.startswith("Ask Dana")


@pytest.mark.parametrize("day", ["2026-02-30", "26-01-01", "２０２６-01-01", "2026-01-01.md", "..", "%2e%2e"])
def test_bad_daily_names_never_become_paths(service, day):
    from server.errors import InvalidInput

    with pytest.raises(InvalidInput):
        from server.files.days import safe_day

        safe_day(day)
