"""Shared fixtures: a store on a temporary directory, a frozen clock and the instant hash embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from server.clock import FrozenClock
from server.config import Settings
from server.embeddings import HashEmbedder
from server.service import MemoryService

T0 = datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc)


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
