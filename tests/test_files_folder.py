"""The memory files: templates, daily log, units, change detection, safe writes."""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # so the tests also run without an installed package
    sys.path.insert(0, str(ROOT))

from server.budget import bounded  # noqa: E402
from server.errors import InvalidInput, MissingFile, SetupError  # noqa: E402
from server.errors import NotFound as MemvaultNotFound  # noqa: E402
from server.files import atomic, folder  # noqa: E402
from server.files.atomic import atomic_write, backup  # noqa: E402
from server.files.changes import fingerprint  # noqa: E402
from server.files.dailylog import DailyEntry, format_daily_line, parse_daily  # noqa: E402
from server.files.days import safe_day  # noqa: E402
from server.files.folder import MemoryFiles  # noqa: E402
from server.files.markdown import parse_markdown_units, strip_comments  # noqa: E402

TEMPLATES = ROOT / "memory-files"


@pytest.fixture
def files(tmp_path: Path) -> MemoryFiles:
    mf = MemoryFiles(tmp_path / "files", TEMPLATES)
    mf.install_templates()
    return mf


# --------------------------------------------------------------------------- templates


def test_templates_are_copied_once_and_never_overwritten(tmp_path: Path) -> None:
    mf = MemoryFiles(tmp_path / "files", TEMPLATES)
    assert mf.install_templates() == ["SOUL.md", "MEMORY.md", "daily/"]
    assert mf.read_soul() == (TEMPLATES / "SOUL.md").read_text(encoding="utf-8")
    assert mf.read_memory() == (TEMPLATES / "MEMORY.md").read_text(encoding="utf-8")
    assert mf.daily_dir.is_dir()
    assert sorted(p.name for p in mf.root.iterdir()) == ["MEMORY.md", "SOUL.md", "daily"]  # no temp files

    mf.soul_path.write_text("# Mine\n\n- my own values\n", encoding="utf-8")
    mf.memory_path.write_text("", encoding="utf-8")  # even an emptied file is the user's
    assert mf.install_templates() == []
    assert mf.read_soul() == "# Mine\n\n- my own values\n"
    assert mf.read_memory() == ""

    mf.memory_path.unlink()
    assert mf.install_templates() == ["MEMORY.md"]
    assert mf.read_soul() == "# Mine\n\n- my own values\n"


@pytest.mark.skipif(os.name != "posix", reason="symlinks need privileges on Windows")
def test_templates_never_replace_a_dangling_symlink(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "SOUL.md").symlink_to(tmp_path / "dotfiles" / "SOUL.md")
    assert MemoryFiles(root, TEMPLATES).install_templates() == ["MEMORY.md", "daily/"]
    assert (root / "SOUL.md").is_symlink()


def test_missing_template_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="reinstall memvault"):
        MemoryFiles(tmp_path / "files", tmp_path / "nowhere").install_templates()


def test_templates_have_the_promised_shape() -> None:
    soul = (TEMPLATES / "SOUL.md").read_text(encoding="utf-8")
    memory = (TEMPLATES / "MEMORY.md").read_text(encoding="utf-8")
    for heading in ("Core Values", "Communication Style", "Learned Preferences", "Boundaries"):
        assert f"## {heading}\n" in soul
    sections = ["User Facts", "Project Context", "Preferences", "Important Decisions"]
    for heading in sections:
        assert re.search(rf"## {heading}\n\n<!-- .+ -->\n", memory), heading
    assert re.search(r"^Last updated: ", memory, re.M)
    assert len(soul.splitlines()) < 60 and len(memory.splitlines()) < 60
    # The empty template indexes to nothing: comments and the last-updated line are skipped.
    assert parse_markdown_units(memory, "MEMORY.md") == []
    assert {u.section for u in parse_markdown_units(soul, "SOUL.md")} == {"Core Values", "Communication Style", "Boundaries"}
    assert (TEMPLATES / "daily" / ".gitkeep").exists()


# --------------------------------------------------------------------------- reading


def test_missing_files_raise_not_found_that_says_what_to_do(tmp_path: Path) -> None:
    mf = MemoryFiles(tmp_path / "files", TEMPLATES)
    with pytest.raises(MissingFile, match="install_templates"):
        mf.read_soul()
    with pytest.raises(FileNotFoundError):
        mf.read_memory()
    with pytest.raises(MemvaultNotFound, match="list_days"):
        mf.read_daily(date(2026, 1, 2))
    assert mf.list_days() == []


def test_reading_drops_a_bom_and_survives_other_encodings(files: MemoryFiles) -> None:
    files.soul_path.write_bytes(b"\xef\xbb\xbf# Soul\ncaf\xe9\n")
    assert files.read_soul() == "# Soul\ncaf\ufffd\n"


def test_list_days_ignores_everything_but_real_day_files(files: MemoryFiles) -> None:
    for name in ("2026-01-02.md", "2025-12-31.md", "notes.md", "2026-13-01.md", "2026-01-03.txt", ".2026-01-04.md.tmp"):
        (files.daily_dir / name).write_text("x", encoding="utf-8")
    (files.daily_dir / "2026-01-05.md").mkdir()
    assert files.list_days() == [date(2025, 12, 31), date(2026, 1, 2)]


# --------------------------------------------------------------------------- safe_day


def test_safe_day_accepts_real_dates() -> None:
    assert safe_day("2026-01-31") == date(2026, 1, 31)
    assert safe_day("2024-02-29") == date(2024, 2, 29)


@pytest.mark.parametrize(
    "text",
    [
        "", "..", "../2026-01-01", "2026-01-01/..", "..\\2026-01-01", "%2e%2e", "%2e%2e%2f2026-01-01",
        "2026%2d01%2d01", "2026/01/01", "2026\\01\\01", "/etc/passwd", "2026-01-01\x00", "\x002026-01-01",
        "2026-01-01\x00.md", "２０２６-01-01", "2026-０１-01", "٢٠٢٦-٠١-٠١", "2026-01-0１", " 2026-01-01",
        "2026-01-01 ", "2026-01-01\n", "2026-01-01.md", "20260101", "2026-1-1", "2026-01-01T00:00",
        "+2026-01-01", "2026-W01-1", "2026-02-30", "2026-13-01", "2026-00-10", "0000-01-01", "2026_01_01",
        "~/2026-01-01", "2026-01-01/", "C:2026-01-01",
    ],
)
def test_safe_day_rejects_everything_else(text: str) -> None:
    with pytest.raises(ValueError, match="2026-01-31|calendar date"):
        safe_day(text)


@pytest.mark.parametrize("value", [None, 20260101, b"2026-01-01", date(2026, 1, 1)])
def test_safe_day_rejects_non_strings(value: object) -> None:
    with pytest.raises(InvalidInput):
        safe_day(value)  # type: ignore[arg-type]


@given(st.text(max_size=20))
def test_anything_safe_day_accepts_is_a_plain_iso_date(text: str) -> None:
    try:
        day = safe_day(text)
    except ValueError:
        return
    assert text == day.isoformat() and re.fullmatch(r"[0-9-]{10}", text)


def test_day_paths_are_built_from_dates_only(files: MemoryFiles) -> None:
    assert files.day_path(date(2026, 1, 2)) == files.daily_dir / "2026-01-02.md"
    assert files.day_path(datetime(2026, 1, 2, 23, 59)) == files.daily_dir / "2026-01-02.md"
    with pytest.raises(TypeError, match="safe_day"):
        files.day_path("../../etc/passwd")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- daily log


def test_daily_append_format_and_round_trip(files: MemoryFiles) -> None:
    when = datetime(2026, 1, 2, 9, 5)
    path, offset = files.append_daily(when, DailyEntry("decision", "Use SQLite for the index", "memvault", 42))
    assert (path, offset) == (files.daily_dir / "2026-01-02.md", len("# 2026-01-02\n\n"))
    second = files.append_daily(when + timedelta(minutes=2), DailyEntry("fact", "Prefers pytest", None, 43))[1]
    third = files.append_daily(when, DailyEntry("note", "no id yet"))[1]
    data = path.read_bytes()
    assert [data[o:].split(b"\n")[0][:13] for o in (offset, second, third)] == [
        b"- 09:05 [deci", b"- 09:07 [fact", b"- 09:05 [note"]
    assert path.read_text(encoding="utf-8") == (
        "# 2026-01-02\n"
        "\n"
        "- 09:05 [decision] (memvault) Use SQLite for the index  <!-- id:42 -->\n"
        "- 09:07 [fact] Prefers pytest  <!-- id:43 -->\n"
        "- 09:05 [note] no id yet\n"
    )
    entries = files.daily_entries(date(2026, 1, 2))
    assert [(e.line, e.id, e.kind, e.thread, e.content) for e in entries] == [
        (3, 42, "decision", "memvault", "Use SQLite for the index"),
        (4, 43, "fact", None, "Prefers pytest"),
        (5, None, "note", None, "no id yet"),
    ]
    assert entries[1].at == datetime(2026, 1, 2, 9, 7).time()
    assert files.list_days() == [date(2026, 1, 2)]


def test_tricky_content_stays_on_one_line_and_round_trips() -> None:
    when = datetime(2026, 1, 2, 23, 59)
    entry = DailyEntry(
        "odd]kind",
        "(not a thread) line one\nline two\r\n\ttab \\n literal <!-- id:7 --> \u2028 \x00 end\\",
        "th(read) x",
        9,
    )
    line = format_daily_line(when, entry)
    assert "\n" not in line and "\r" not in line and "\u2028" not in line and "\x00" not in line
    assert line.endswith("  <!-- id:9 -->") and line.count("<!--") == 1
    (parsed,) = parse_daily("# 2026-01-02\n\n" + line + "\n")
    assert (parsed.kind, parsed.content, parsed.thread, parsed.id, parsed.line) == (
        entry.kind, entry.content, entry.thread, 9, 3)


@given(
    kind=st.text(max_size=12),
    content=st.text(max_size=80),
    thread=st.none() | st.text(max_size=12),
    id_=st.none() | st.integers(0, 10**12),
)
def test_any_entry_round_trips_through_the_log_format(kind: str, content: str, thread: str | None, id_: int | None) -> None:
    line = format_daily_line(datetime(2026, 1, 2, 7, 8), DailyEntry(kind, content, thread, id_))
    assert len(line.split("\n")) == 1 and len(line.splitlines()) == 1
    (parsed,) = parse_daily(line)
    assert (parsed.kind, parsed.content, parsed.thread, parsed.id) == (kind, content.strip(), thread, id_)


def test_parse_daily_skips_foreign_lines_and_helps_reconcile() -> None:
    text = (
        "# 2026-01-02\n\n"
        "Some notes a person typed.\n"
        "- 10:00 [fact] kept  <!-- id:1 -->\n"
        "- a bullet of their own\n"
        "- 25:61 [fact] not a time  <!-- id:2 -->\n"
        "- 10:01 [fact] hand-edited but fine <!-- id:3 -->\n"
        "- 10:02 [fact] logged twice  <!-- id:1 -->\n"
    )
    entries = parse_daily(text)
    assert [(e.line, e.id) for e in entries] == [(4, 1), (7, 3), (8, 1)]
    logged = {e.id for e in entries}
    in_db = {1, 3, 4}
    assert (in_db - logged, logged - in_db) == ({4}, set())


def test_append_after_a_hand_edit_without_final_newline(files: MemoryFiles) -> None:
    path = files.day_path(date(2026, 1, 2))
    path.write_text("# 2026-01-02\n\nmy note", encoding="utf-8")
    _, offset = files.append_daily(datetime(2026, 1, 2, 8, 0), DailyEntry("fact", "x", None, 1))
    assert offset == len("# 2026-01-02\n\nmy note\n")
    assert path.read_text(encoding="utf-8").split("\n")[3] == "- 08:00 [fact] x  <!-- id:1 -->"
    assert [e.line for e in parse_daily(path.read_text(encoding="utf-8"))] == [4]


def _append_many(root: str, worker: int, count: int) -> list[tuple[int, int]]:
    """Run in a child process: append ``count`` long lines, return (id, line number) pairs."""
    mf = MemoryFiles(Path(root), TEMPLATES)
    out = []
    for i in range(count):
        ident = worker * 10_000 + i
        content = f"w{worker} i{i} " + f"{worker}" * 3000 + " end"
        _, offset = mf.append_daily(datetime(2026, 1, 2, 12, worker), DailyEntry("fact", content, f"t{worker}", ident))
        out.append((ident, offset))
    return out


def test_concurrent_appends_from_processes_never_interleave(tmp_path: Path) -> None:
    workers, count = 4, 100
    root = tmp_path / "files"
    ctx = multiprocessing.get_context("spawn")  # real, separate interpreters on every OS
    with ctx.Pool(workers) as pool:
        results = pool.starmap(_append_many, [(str(root), w, count) for w in range(workers)])
    text = (root / "daily" / "2026-01-02.md").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[:2] == ["# 2026-01-02", ""] and text.count("# 2026") == 1
    assert len(lines) == 2 + workers * count + 1 and lines[-1] == ""
    entries = parse_daily(text)
    assert len(entries) == workers * count
    data = text.encode("utf-8")
    for worker, pairs in enumerate(results):
        for ident, offset in pairs:
            # the reported offset is where the line really is
            (entry,) = parse_daily(data[offset:].split(b"\n", 1)[0].decode("utf-8"))
            i = ident - worker * 10_000
            assert entry.id == ident and entry.thread == f"t{worker}"
            assert entry.content == f"w{worker} i{i} " + f"{worker}" * 3000 + " end"


# --------------------------------------------------------------------------- units

DOC = """\
# My memory

Intro paragraph before any section,
spanning two lines.

## User Facts
<!-- what goes here -->

- Works on a Mac
  with an M2 chip.
- Likes tea
lazily continued line
- Team:
  - Alice reviews SQL
  - Bob owns CI

  Indented paragraph still about the team.
- ...
- (none yet)
-

Paragraph after the list.

### Tools

1. ruff
2. mypy

```python
# not a heading
- not a bullet
```

## Important Decisions

<!--
multi-line comment
- hidden bullet
-->
- 2026-01-15: chose SQLite over Postgres because it ships with Python.

---

Last updated: 2026-01-20
"""


def test_units_have_sections_lines_and_whole_bullets() -> None:
    units = parse_markdown_units(DOC, "MEMORY.md")
    got = [(u.section, u.line, u.end_line, u.text) for u in units]
    assert got == [
        ("", 3, 4, "Intro paragraph before any section,\nspanning two lines."),
        ("User Facts", 9, 10, "- Works on a Mac\n  with an M2 chip."),
        ("User Facts", 11, 12, "- Likes tea\nlazily continued line"),
        ("User Facts", 13, 17, "- Team:\n  - Alice reviews SQL\n  - Bob owns CI\n  Indented paragraph still about the team."),
        ("User Facts", 22, 22, "Paragraph after the list."),
        ("User Facts > Tools", 26, 26, "1. ruff"),
        ("User Facts > Tools", 27, 27, "2. mypy"),
        ("User Facts > Tools", 29, 32, "```python\n# not a heading\n- not a bullet\n```"),
        ("Important Decisions", 40, 40, "- 2026-01-15: chose SQLite over Postgres because it ships with Python."),
    ]
    assert all(u.source == "MEMORY.md" for u in units)
    assert len({u.key for u in units}) == len(units)


def test_unit_keys_survive_unrelated_edits_and_deleted_bullets_disappear() -> None:
    before = {u.text: u for u in parse_markdown_units(DOC, "MEMORY.md")}
    edited = (
        DOC.replace("# My memory\n", "# My memory\n\nA new first paragraph.\n")
        .replace("- Likes tea\nlazily continued line\n", "")  # deleted
        .replace("2. mypy", "3. mypy")  # renumbered: same item
        .replace("Works on a Mac", "Works   on a Mac")  # whitespace only
        .replace("Last updated: 2026-01-20", "Last updated: 2026-02-01")
    )
    after = {u.key: u for u in parse_markdown_units(edited, "MEMORY.md")}
    assert before["- Likes tea\nlazily continued line"].key not in after
    for text, unit in before.items():
        if "tea" in text:
            continue
        assert unit.key in after, text
    moved = after[before["- 2026-01-15: chose SQLite over Postgres because it ships with Python."].key]
    assert moved.line == 40 + 2 - 2  # two lines added above, two deleted
    assert sum(1 for u in after.values() if u.text == "A new first paragraph.") == 1

    changed_text = edited.replace("Likes", "Loves").replace("M2 chip", "M3 chip")
    changed = {u.key for u in parse_markdown_units(changed_text, "MEMORY.md")}
    assert before["- Works on a Mac\n  with an M2 chip."].key not in changed


def test_unit_keys_depend_on_source_and_section_and_duplicates_differ() -> None:
    text = "## A\n\n- same\n- same\n\n## B\n\n- same\n"
    units = parse_markdown_units(text, "SOUL.md")
    assert len({u.key for u in units}) == 3
    assert units[1].key.startswith(units[0].key) and units[1].key.endswith(".2")
    other = parse_markdown_units(text, "MEMORY.md")
    assert not {u.key for u in units} & {u.key for u in other}


def test_units_tolerate_odd_markdown() -> None:
    assert parse_markdown_units("", "x.md") == []
    assert parse_markdown_units("<!-- never closed\n- hidden", "x.md") == []
    assert [u.text for u in parse_markdown_units("```\nopen fence\n- inside", "x.md")] == ["```\nopen fence\n- inside"]
    units = parse_markdown_units("## S\r\n\r\n- windows line\r\n* star bullet\r\n", "x.md")
    assert [(u.section, u.text) for u in units] == [("S", "- windows line"), ("S", "* star bullet")]
    assert [u.text for u in parse_markdown_units("- **Last updated:** today\n- Last updated the schema", "x.md")] == [
        "- Last updated the schema"
    ]


# --------------------------------------------------------------------------- change detection


def test_changed_notices_edits_appearance_and_removal(files: MemoryFiles) -> None:
    assert files.changed("SOUL.md") is True  # first look
    assert files.changed(files.soul_path) is False
    with open(files.soul_path, "a", encoding="utf-8") as f:
        f.write("- new value\n")
    assert files.changed("SOUL.md") is True
    assert files.changed("SOUL.md") is False
    files.soul_path.unlink()
    assert files.changed("SOUL.md") is True
    assert files.changed("SOUL.md") is False
    files.soul_path.write_text("back\n", encoding="utf-8")
    assert files.changed("SOUL.md") is True
    files.forget("SOUL.md")
    assert files.changed("SOUL.md") is True


def test_changed_notices_a_same_size_same_mtime_edit(files: MemoryFiles) -> None:
    path = files.memory_path
    path.write_text("- fact A\n", encoding="utf-8")
    assert files.changed(path) is True
    assert files.changed(path) is False
    before = os.stat(path)
    with open(path, "r+b") as f:  # in place: same inode, same size
        f.write(b"- fact B\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same mtime tick
    after = os.stat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert files.changed(path) is True
    assert files.changed(path) is False


def test_changed_only_stats_a_file_that_has_been_quiet(files: MemoryFiles, monkeypatch: pytest.MonkeyPatch) -> None:
    path = files.memory_path
    old = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(old, old))
    hashed = []
    real = folder.hash_file
    monkeypatch.setattr(folder, "hash_file", lambda p: hashed.append(p) or real(p))
    assert files.changed(path) is True
    assert files.changed(path) is False
    assert hashed == []
    # The documented trade-off: a same-size edit whose mtime is set back to an old value.
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("User Facts", "User Fa.ts"), encoding="utf-8")
    os.utime(path, ns=(old, old))
    assert files.changed(path) is False
    # Replaced by a new file (another inode) with the old size and mtime: noticed.
    atomic_write(path, text)
    os.utime(path, ns=(old, old))
    assert files.changed(path) is True


def test_fingerprint_hashes_only_recent_files(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_text("x", encoding="utf-8")
    mtime = os.stat(path).st_mtime_ns
    assert fingerprint(path, now_ns=mtime + 1_000_000_000).digest is not None
    assert fingerprint(path, now_ns=mtime + 3_000_000_000).digest is None
    assert fingerprint(path, now_ns=mtime - 5_000_000_000).digest is not None  # clock skew: distrust
    assert fingerprint(tmp_path / "missing.md") is None


# --------------------------------------------------------------------------- writing


def test_atomic_write_replaces_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    atomic_write(path, "first\n")
    assert path.read_text(encoding="utf-8") == "first\n"
    if os.name == "posix":
        assert os.stat(path).st_mode & 0o777 == 0o600
        os.chmod(path, 0o640)
    atomic_write(path, "second\r\nünïcode\n")
    assert path.read_bytes() == "second\r\nünïcode\n".encode()
    if os.name == "posix":
        assert os.stat(path).st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_atomic_write_failure_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("old\n", encoding="utf-8")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write(path, "new\n")
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_backup_writes_dated_copies_that_never_collide(files: MemoryFiles) -> None:
    when = datetime(2026, 1, 2, 3, 4, 5)
    first = backup(files.memory_path, when)
    second = backup(files.memory_path, when)
    assert first == files.root / "backups" / "MEMORY.2026-01-02T030405.md"
    assert second == files.root / "backups" / "MEMORY.2026-01-02T030405-2.md"
    assert first.read_bytes() == second.read_bytes() == files.memory_path.read_bytes()
    with pytest.raises(MissingFile):
        backup(files.root / "nope.md", when)


# --------------------------------------------------------------------------- bounded and friends


def test_bounded_leaves_short_text_alone() -> None:
    assert bounded("short\ntext\n", 100, "ask for more") == "short\ntext\n"


def test_bounded_cuts_at_a_line_and_says_what_is_left() -> None:
    text = "".join(f"line {i:02d}\n" for i in range(1, 41))  # 40 lines of 8 characters
    out = bounded(text, 200, "call read_memory(offset=...)")
    assert len(out) <= 200
    kept, marker = out.rsplit("\n", 1)
    assert text.startswith(kept + "\n")
    m = re.fullmatch(r"\[… (\d+) more characters in (\d+) more lines not shown, from line (\d+); call read_memory\(offset=\.\.\.\)\]", marker)
    assert m, marker
    shown_lines = kept.count("\n") + 1
    assert int(m[1]) == len(text) - len(kept) - 1
    assert int(m[2]) == 40 - shown_lines
    assert int(m[3]) == shown_lines + 1


def test_bounded_with_one_long_line_or_no_room() -> None:
    text = "word " * 100
    out = bounded(text, 150, "see more")
    assert len(out) <= 150 and "middle of line 1" in out and out.startswith("word word")
    assert not out.split("\n")[0].endswith(" wor")
    tiny = bounded(text, 5, "see more")
    assert tiny.startswith("[… ") and "see more" in tiny


@given(st.text(max_size=600), st.integers(min_value=160, max_value=700))
def test_bounded_never_exceeds_and_keeps_a_prefix(text: str, limit: int) -> None:
    out = bounded(text, limit, "ask again with offset")
    assert len(out) <= limit
    if out != text:
        kept = out.rsplit("\n[… ", 1)[0] if "\n[… " in out else ""
        assert text.startswith(kept) and out.endswith("ask again with offset]")


def test_strip_comments_for_prompts() -> None:
    memory = (TEMPLATES / "MEMORY.md").read_text(encoding="utf-8")
    stripped = strip_comments(memory)
    assert "<!--" not in stripped and "\n\n\n" not in stripped and "## Preferences" in stripped
    assert strip_comments("<!-- only -->") == ""


@settings(max_examples=50)
@given(st.text(alphabet="ab-<!>\n ", max_size=60))
def test_unit_parsing_never_crashes_and_lines_are_in_range(text: str) -> None:
    n = len(text.split("\n"))
    for unit in parse_markdown_units(text, "x.md"):
        assert 1 <= unit.line <= unit.end_line <= n and unit.text.strip()


def test_removing_daily_lines_keeps_the_rest_of_the_log_and_skips_earlier_days(tmp_path):
    """Only memvault's lines of the given ids go (a person's notes and other ids stay); days before `since` are not read."""
    from datetime import date, datetime

    from server.files.dailylog import DailyEntry
    from server.files.folder import MemoryFiles

    files = MemoryFiles(tmp_path / "files", tmp_path / "templates")
    for day, ids in ((1, (1, 2)), (2, (3, 4))):
        for i in ids:
            files.append_daily(datetime(2026, 3, day, 9, i), DailyEntry(kind="decision", content=f"memory {i}", id=i))
    with open(files.day_path(date(2026, 3, 2)), "a") as handle:
        handle.write("my own note about memory 3\n")
    assert files.remove_daily_lines({1, 3}, since=date(2026, 3, 2)) == [files.day_path(date(2026, 3, 2))]
    assert [e.id for e in files.daily_entries(date(2026, 3, 1))] == [1, 2]
    assert [e.id for e in files.daily_entries(date(2026, 3, 2))] == [4]
    assert files.read_daily(date(2026, 3, 2)).endswith("my own note about memory 3\n")
