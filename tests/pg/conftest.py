"""Tests under tests/pg run on PostgreSQL: `settings` points at the session's server, a fresh tenant per test."""

from __future__ import annotations

import itertools
import os

import pytest

from server.config import Settings

_tenant = itertools.count()


@pytest.fixture
def settings(settings: Settings, pg_url: str) -> Settings:
    pg = settings.with_(database_url=pg_url, namespace=f"pg{os.getpid()}n{next(_tenant)}")
    # The namespace has a folder of its own: empty SOUL.md and MEMORY.md as the base fixture makes.
    pg.files_dir.mkdir(parents=True)
    for name in ("SOUL", "MEMORY"):
        (pg.files_dir / f"{name}.md").write_text(f"# {name}\n")
    return pg
