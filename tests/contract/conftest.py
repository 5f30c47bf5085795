"""Fixtures of the contract tests: every test runs once per backend (SQLite, PostgreSQL)."""

from __future__ import annotations

import pytest

from server.embedding.embedders import HashEmbedder
from server.service import MemoryService


@pytest.fixture(params=["sqlite", "postgres"])
def backend_settings(request, settings):
    if request.param == "postgres":
        return request.getfixturevalue("pg_settings")
    return settings


@pytest.fixture
def svc(backend_settings, clock):
    service = MemoryService.open(backend_settings, embedder=HashEmbedder(), clock=clock)
    yield service
    service.close()


@pytest.fixture
def other_settings(svc, tmp_path):
    """Settings of another empty store of svc's backend (a new SQLite home, or a new PostgreSQL tenant)."""
    settings = svc.settings.with_(home=tmp_path / "other")
    if settings.database_url:
        from pgharness import tenant_settings

        return tenant_settings(settings, settings.database_url)
    settings.files_dir.mkdir(parents=True)
    return settings
