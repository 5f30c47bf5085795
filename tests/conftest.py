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
    return Settings(home=tmp_path / "home", embedder="hash", model_wait_seconds=5)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(T0)


@pytest.fixture
def service(settings: Settings, clock: FrozenClock) -> Iterator[MemoryService]:
    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    yield svc
    svc.close()
