"""Tests under tests/pg run on PostgreSQL: `settings` points at the session's server, a fresh tenant per test."""

from __future__ import annotations

import pytest

from server.config import Settings


@pytest.fixture
def settings(settings: Settings, pg_url: str) -> Settings:
    from pgharness import tenant_settings

    return tenant_settings(settings, pg_url)
