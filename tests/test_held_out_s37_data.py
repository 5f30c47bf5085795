"""Session 37's held-out corpora: their shape, and that only their own flag makes a bench score them.

Built while session 36's held-out sets were being tuned on, so that the session's final figure comes from text
nobody tuned on. No detector runs here: the tests read the corpora's fields and counts only, and check the benches'
selection with the scoring replaced by a recorder. Both corpora are held out: the lead runs each once
(``python bench/secrets_public.py --held-out-s37``, ``python bench/poisoning.py --held-out-s37``).
"""

from __future__ import annotations

import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402

SECRETS = ROOT / "bench" / "data" / "secrets_public" / "held_out_s37.json"
SOURCE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+$")  # owner/repo@commit path


def _secret_cases() -> list[dict]:
    return json.loads(SECRETS.read_text(encoding="utf-8"))["cases"]


def test_the_secrets_part_has_enough_cases_of_enough_kinds_each_with_its_source_licence_and_secret():
    data = json.loads(SECRETS.read_text(encoding="utf-8"))
    assert data["source"]["license"] and "held-out" in data["source"]["split"]
    cases = data["cases"]
    secrets = [c for c in cases if c["label"] == "secret"]
    benign = [c for c in cases if c["label"] == "benign"]
    assert len(secrets) >= 100 and len(benign) >= 100
    assert len({c["group"] for c in secrets}) >= 25
    assert len({c["source"].split("@")[0] for c in cases}) >= 2
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) <= {"id", "group", "label", "text", "source", "license", "secret"}, c["id"]
        assert c["label"] in ("secret", "benign") and c["group"] and c["text"], c["id"]
        assert c["id"].startswith("held-out-s37/") and SOURCE.match(c["source"]), c["id"]
        assert c["license"] in ("MIT", "Apache-2.0"), c["id"]
    assert all(c["secret"] and c["secret"] in c["text"] for c in secrets)
    assert not any("secret" in c for c in benign)


def test_no_text_or_secret_value_of_the_secrets_part_is_in_another_part():
    mine = _secret_cases()
    texts = {c["text"] for c in mine}
    values = {c["secret"] for c in mine if c["label"] == "secret" and len(c["secret"]) >= 12}
    for part in secrets_public.CORPORA:
        if part == "held-out-s37":
            continue
        other = secrets_public.load(part)["cases"]
        assert not texts & {c["text"] for c in other}, part
        blob = "\n".join(c["text"] for c in other)
        assert not [v for v in values if v in blob], part


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


def test_the_secrets_bench_scores_the_s37_part_only_with_its_flag_and_hides_its_misses(monkeypatch, tmp_path):
    assert secrets_public.HELD_OUT.get("held-out-s37") == "held_out_s37"
    for argv in ([], ["--held-out-s36"]):  # a tuning run, or the other held-out part's run, never reads it
        scored, result = _parts_scored(monkeypatch, tmp_path, argv)
        assert "held-out-s37" not in scored and "held-out-s37" not in result, argv
    for argv in (["--held-out-s37"], ["--held-out"]):
        scored, result = _parts_scored(monkeypatch, tmp_path, argv)
        assert "held-out-s37" in scored, argv
        r = result["held-out-s37"]
        assert r["misses_hidden"] is True and "missed" not in r and "per_group" not in r, argv
