"""Session 34's held-out corpora: their shape, and that no bench scores them unless asked by name.

No detector runs here: the corpora are held out (bench/data/secrets_public/README.md), so the
tests read their fields and counts only, and check the benches' selection with the scoring
replaced by a recorder.
"""

from __future__ import annotations

import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402

SECRETS = ROOT / "bench" / "data" / "secrets_public" / "held_out_s34.json"
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+$")  # owner/repo@commit path


def test_the_secrets_part_has_enough_cases_each_with_its_source_licence_and_secret():
    data = json.loads(SECRETS.read_text(encoding="utf-8"))
    assert data["source"]["license"] and "held-out" in data["source"]["split"]
    cases = data["cases"]
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    assert len(secrets) >= 100 and len(benign) >= 60
    assert len({c["group"] for c in secrets}) >= 30
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["label"] in ("secret", "benign") and c["group"] and c["text"]
        assert SOURCE.match(c["source"]), c["id"]
        assert c["license"] in ("MIT", "Apache-2.0"), c["id"]
    assert all(c["secret"] and c["secret"] in c["text"] for c in secrets)
    assert not any("secret" in c for c in benign)


def test_no_text_of_the_secrets_part_is_in_a_corpus_tuned_on():
    texts = {c["text"] for c in json.loads(SECRETS.read_text(encoding="utf-8"))["cases"]}
    for part, name in secrets_public.CORPORA.items():
        if part == "held-out-s34":
            continue
        other = {c["text"] for c in secrets_public.load(part)["cases"]}
        assert not texts & other, part


def _parts_scored(monkeypatch, tmp_path, argv):
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


def test_the_secrets_bench_leaves_the_s34_part_out_unless_asked_for_it_by_name(monkeypatch, tmp_path):
    for argv in ([], ["--held-out"], ["--show-held-out"]):
        scored, result = _parts_scored(monkeypatch, tmp_path, argv)
        assert "held-out-s34" not in scored and "held-out-s34" not in result, argv
    scored, result = _parts_scored(monkeypatch, tmp_path, ["--held-out-s34"])
    assert "held-out-s34" in scored and result["held-out-s34"]["misses_hidden"] is True
    assert "missed" not in result["held-out-s34"]
