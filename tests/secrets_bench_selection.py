"""Which parts bench/secrets_public.py would score for a command line, without running a detector (the held-out
data tests share it): score() is replaced by a recorder of the parts it is handed."""

from __future__ import annotations

import json
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402


def parts_scored(monkeypatch, tmp_path, argv):
    """Run the bench's selection with score() replaced: which parts would reach redact(), and what is written."""
    seen: list[set[str]] = []

    def fake_score(cases):
        seen.append({c["id"].split("/")[0] for c in cases})
        return {"secrets": 0, "caught": 0, "catch_rate": None, "distinct_secrets": 0, "distinct_caught": 0,
                "benign": 0, "false_positives": 0, "false_positive_rate": None, "misses_by_group": {},
                "per_group": {}, "missed": [], "false_positive_examples": []}

    monkeypatch.setattr(secrets_public, "score", fake_score)
    out = tmp_path / "r.json"
    secrets_public.main([*argv, "--out", str(out)])
    return set().union(*seen), json.loads(out.read_text())
