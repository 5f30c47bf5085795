"""`memvault doctor`: every check says what is wrong and what fixes it; the exit status says whether all is well."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from server.cli import main
from server.service import MemoryService
from server.embedding.embedders import HashEmbedder


@pytest.fixture
def doctor(settings, monkeypatch, capsys, tmp_path):
    """`memvault doctor --json` on the test's store, in a home and folder with no client configurations."""
    monkeypatch.setenv("MEMVAULT_HOME", str(settings.home))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (tmp_path / "user" / "project").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "user" / "project")

    def run(*extra: str) -> tuple[int, dict]:
        code = main(["doctor", "--json", *extra])
        report = json.loads(capsys.readouterr().out)
        return code, {c["name"]: c for c in report["checks"]}

    return run


def _store(settings):
    svc = MemoryService.open(settings, embedder=HashEmbedder())
    svc.remember("a memory to check", thread="shop")
    return svc


def test_a_healthy_store_is_all_well(doctor, settings):
    _store(settings).close()
    os.chmod(settings.home, 0o700)
    code, checks = doctor()
    assert code == 0
    for name in ("install", "sqlite", "data directory", "free disk", "database", "index"):
        assert checks[name]["status"] == "ok", checks[name]
    assert "1 live memories" in checks["database"]["detail"]
    assert checks["vectors"]["status"] == "info" and checks["vectors"]["fix"].endswith("memvault doctor --fix")
    assert checks["hooks"]["status"] == "info" and checks["hooks"]["fix"].startswith("memvault hooks install")
    assert checks["MCP client"]["status"] == "warn"  # none configured here: worth knowing, not broken


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_a_new_store_is_private_from_the_start_and_doctor_has_nothing_to_say(doctor, settings, tmp_path):
    """The data directory (and any folder made above it) is 0700; memvault.db, -wal and -shm are 0600."""
    from server.config import Settings

    home = tmp_path / "made" / "home"
    svc = MemoryService.open(Settings(home=home, embedder="hash"), embedder=HashEmbedder())
    try:
        svc.remember("a private memory", thread="shop")
        made = [tmp_path / "made", home, *home.glob("memvault.db*"), *home.glob("memvault.db-vectors/*")]
        modes = {p.name: oct(p.stat().st_mode & 0o777) for p in made}
    finally:
        svc.close()
    assert {"memvault.db", "memvault.db-wal", "memvault.db-shm"} <= set(modes)
    assert modes == {name: "0o700" if (home / name).is_dir() or name in ("made", "home") else "0o600" for name in modes}
    os.environ["MEMVAULT_HOME"] = str(home)  # restored by the fixture's monkeypatch
    assert doctor()[1]["data directory"]["status"] == "ok"


def test_a_store_not_made_yet_is_a_warning_that_names_the_command(doctor, settings):
    code, checks = doctor()
    assert code == 0
    assert checks["database"]["status"] == "warn" and checks["database"]["fix"].startswith("memvault info")


def test_problems_fail_the_exit_status_and_each_names_its_fix(doctor, settings, monkeypatch):
    _store(settings).close()
    os.chmod(settings.home, 0o755)
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "minilm")  # the store's vectors are the hash embedder's
    code, checks = doctor()
    assert code == 1
    assert checks["vectors"]["status"] == "fail" and checks["vectors"]["fix"].startswith("memvault reembed")
    assert checks["data directory"]["status"] == "warn" and checks["data directory"]["fix"] == f"chmod 700 {settings.home}"


def test_index_drift_is_found_and_fix_repairs_it(doctor, settings):
    svc = _store(settings)
    with svc.db.write() as conn:
        svc.store.fts_delete(conn, 1)  # the keyword index loses a live memory
    svc.close()
    code, checks = doctor()
    assert checks["index"]["status"] == "warn" and "missing text: 1" in checks["index"]["detail"]
    assert checks["index"]["fix"].startswith("memvault doctor --fix")
    code, checks = doctor("--fix")
    assert (code, checks["index"]["status"], checks["vectors"]["status"]) == (0, "ok", "ok")


def test_a_database_that_is_not_one_fails(doctor, settings):
    settings.home.mkdir(parents=True, exist_ok=True)
    settings.db_path.write_bytes(b"this is not SQLite" * 100)
    code, checks = doctor()
    assert code == 1 and checks["database"]["status"] == "fail"
    assert "restore it from a backup" in checks["database"]["fix"]


def test_memory_files_the_server_refuses_fail_with_their_fix(doctor, settings, tmp_path):
    _store(settings).close()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("not memvault's")
    (settings.files_dir / "MEMORY.md").unlink()
    (settings.files_dir / "MEMORY.md").symlink_to(outside)
    code, checks = doctor()
    assert code == 1
    assert checks["MEMORY.md"]["status"] == "fail" and "neither reads nor writes it" in checks["MEMORY.md"]["detail"]
    assert "SOUL.md" not in checks  # a regular file: nothing to report
    os.link(outside, settings.files_dir / "SOUL.md.new")
    os.replace(settings.files_dir / "SOUL.md.new", settings.files_dir / "SOUL.md")
    code, checks = doctor()
    assert checks["SOUL.md"]["status"] == "fail" and "is a hard link (2 names of one file)" in checks["SOUL.md"]["detail"]
    shutil.rmtree(settings.files_dir)
    settings.files_dir.write_text("a file where the folder belongs")
    code, checks = doctor()
    assert code == 1
    assert checks["memory files"]["status"] == "fail" and "is a file, not a folder" in checks["memory files"]["detail"]
    assert checks["memory files"]["fix"].startswith(f"mv {settings.files_dir} ")


def test_hooks_and_client_configurations_naming_a_missing_memvault_fail(doctor, settings, tmp_path):
    _store(settings).close()
    home = tmp_path / "user"
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": '"/gone/bin/memvault" hook session-start --host claude-code'}]}]}}))
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"memvault": {"command": "/gone/bin/memvault",
                                                                                       "args": ["serve"]}}}))
    (home / "project" / ".mcp.json").write_text(json.dumps({"mcpServers": {"memvault": {"command": sys.executable}}}))
    code, checks = doctor()
    assert code == 1
    assert checks["hooks (claude-code)"]["status"] == "fail"
    assert checks["hooks (claude-code)"]["fix"] == "memvault hooks install"
    report = json.loads(subprocess.run(
        [sys.executable, "-m", "server", "doctor", "--json"], capture_output=True, text=True, cwd=home / "project",
        env={**os.environ, "HOME": str(home)}, timeout=60).stdout)
    clients = [c for c in report["checks"] if c["name"] == "MCP client"]
    assert {(c["status"], c["detail"].split(":")[0]) for c in clients} == {
        ("fail", str(home / ".cursor" / "mcp.json")), ("ok", str(home / "project" / ".mcp.json"))}


def test_a_bad_setting_is_reported_as_a_failed_check(doctor, monkeypatch, capsys):
    monkeypatch.setenv("MEMVAULT_WINDOW", "lots")
    code, checks = doctor()
    assert code == 1 and checks["settings"]["status"] == "fail" and "MEMVAULT_WINDOW" in checks["settings"]["detail"]


def test_doctor_loads_no_model_and_prints_a_table_piped(settings, tmp_path):
    """Fast: neither torch nor ONNX Runtime is imported, whatever the configured embedder."""
    env = {**os.environ, "MEMVAULT_HOME": str(settings.home), "MEMVAULT_EMBEDDER": "minilm", "HOME": str(tmp_path)}
    code = ("import sys; from server.cli import main; rc = main(['doctor']); "
            "print('loaded', 'torch' in sys.modules, 'onnxruntime' in sys.modules, file=sys.stderr); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert "loaded False False" in done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0][0] == "install" and all(len(r) == 4 for r in rows)
    assert done.returncode in (0, 1) and ("all well" in done.stderr) == (done.returncode == 0)
