"""bench/secrets_contexts.py re-embeds the tuning parts' values in other syntaxes: it must never read a held-out
part (those are read once, by the lead), and its contexts must render a value verbatim (or encoded where named)."""

from __future__ import annotations

import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_contexts  # noqa: E402
import secrets_public  # noqa: E402


def test_no_held_out_part_is_read(monkeypatch):
    read: list[str] = []
    real = secrets_contexts.load

    def recording_load(part):
        read.append(part)
        return {"cases": [c for c in real(part)["cases"][:3]]}

    monkeypatch.setattr(secrets_contexts, "load", recording_load)
    monkeypatch.setattr(secrets_contexts, "caught", lambda text, value, encoded=None: True)
    secrets_contexts.secret_values()
    assert read and not set(read) & set(secrets_public.HELD_OUT)
    assert set(read) == set(secrets_public.CORPORA) - set(secrets_public.HELD_OUT)


def test_every_context_holds_the_value_or_its_encoding():
    value = "q7Zk2mWp9xL4vR8tY3nB6cJ1"
    for name, render in secrets_contexts.CONTEXTS.items():
        text = render("api_token", "API_TOKEN", value)
        shown = secrets_contexts.ENCODED[name](value) if name in secrets_contexts.ENCODED else value
        assert shown in text, name
