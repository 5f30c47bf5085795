"""Session 34's held-out corpora: their shape, and which bench run scores them.

No detector runs here: the tests read the corpora's fields and counts only, and check the benches'
selection with the scoring replaced by a recorder. Both were run once in session 34 and are tuning parts
since (``tuning-s34``; the injections corpus for the rules — it stays out of the word model's training).
"""

from __future__ import annotations

import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import secrets_public  # noqa: E402
from secrets_bench_selection import parts_scored  # noqa: E402

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
        if part == "tuning-s34":
            continue
        other = {c["text"] for c in secrets_public.load(part)["cases"]}
        assert not texts & other, part




def test_the_secrets_bench_scores_the_spent_s34_part_as_a_tuning_part_with_its_misses_shown(monkeypatch, tmp_path):
    # run once as held out at the end of session 34; its misses are read since, so no run hides them
    assert secrets_public.CORPORA["tuning-s34"] == "held_out_s34.json" and "tuning-s34" not in secrets_public.HELD_OUT
    assert "held-out-s34" not in secrets_public.CORPORA
    for argv in ([], ["--held-out"]):
        scored, result = parts_scored(monkeypatch, tmp_path, argv)
        assert "held-out-s34" in scored, argv  # the cases keep their ids
        assert "misses_hidden" not in result["tuning-s34"] and "missed" in result["tuning-s34"], argv


def test_a_held_out_part_is_still_scored_only_when_asked_for_and_its_misses_hidden(monkeypatch, tmp_path):
    # the mechanism stays for the next fresh part: the s34 part stands in for one here
    monkeypatch.setattr(secrets_public, "HELD_OUT", {"tuning-s34": "held_out"})
    scored, result = parts_scored(monkeypatch, tmp_path, [])
    assert "tuning-s34" not in result
    scored, result = parts_scored(monkeypatch, tmp_path, ["--held-out"])
    assert result["tuning-s34"]["misses_hidden"] is True and "missed" not in result["tuning-s34"]


INJECTIONS = ROOT / "bench" / "data" / "injections_held_out_s34.json"


def test_the_injections_corpus_has_enough_attacks_from_two_sources_and_benign_notes_each_with_a_licence():
    data = json.loads(INJECTIONS.read_text(encoding="utf-8"))
    assert set(data) == {"attacks", "benign"}  # the shape of bench/data/injections_agents.json
    attacks, benign = data["attacks"], data["benign"]
    assert len(attacks) >= 120 and len(benign) >= 150
    assert {a["source"].split()[0] for a in attacks} >= {"agentdojo", "BIPIA"}
    for row in attacks + benign:
        assert set(row) == {"source", "text", "split"} and row["text"].strip()
        assert row["split"] == "held-out" and row["source"].endswith("(MIT)")
    texts = [r["text"] for r in attacks + benign]
    assert len(set(texts)) == len(texts)


def test_no_text_of_the_injections_corpus_is_in_another_public_corpus():
    mine = {r["text"] for part in ("attacks", "benign") for r in json.loads(INJECTIONS.read_text(encoding="utf-8"))[part]}
    for name in ("injections_public", "injections_fresh", "injections_bastion", "injections_agents"):
        other = json.loads((ROOT / "bench" / "data" / f"{name}.json").read_text(encoding="utf-8"))
        assert not mine & {r["text"] for part in ("attacks", "benign") for r in other[part]}, name


def test_the_poisoning_bench_scores_the_spent_s34_corpus_every_run_as_a_tuning_corpus(monkeypatch, tmp_path):
    import poisoning  # bench/poisoning.py; imported here so the secrets tests above do not load the guards' model

    scored: list = []

    def fake_corpus(path=poisoning.PUBLIC, splits=("dev", "held-out")):
        scored.append(path)
        one = {"attacks": 1, "caught": 0, "catch_rate": 0.0, "benign": 1, "flagged": 0, "false_positive_rate": 0.0,
               "per_source": {}, "benign_per_source": {}}
        return {s: dict(one) for s in splits}

    # no detector runs: the flags and the model are stubbed, the corpora's scoring recorded. The corpus was run
    # once held out (session 34) and the rules have been tuned on it since: it is reported as a tuning corpus
    monkeypatch.setattr(poisoning, "public_corpus", fake_corpus)
    monkeypatch.setattr(poisoning, "instruction_flags", lambda text: ())
    monkeypatch.setattr(poisoning.instruction_model, "score", lambda text: 0.0)
    out = tmp_path / "p.json"
    for argv in ([], ["--held-out-s34"]):  # the old flag is still accepted, and changes nothing
        scored.clear()
        poisoning.main(["--out", str(out), *argv])
        assert poisoning.HELD_OUT_S34 in scored, argv
        result = json.loads(out.read_text())
        assert result["public_s34"]["held-out"]["reported_as"] == "tuning (held out once, tuned on since)"
        assert "public_s34" in result["rules_only"] and "public_held_out_s34" not in result


def test_the_s34_corpus_is_spent_and_may_be_trained_on():
    import train_injection_model  # bench/; reads the corpora's texts only, trains nothing

    kept_out = set(train_injection_model.held_out_texts())
    data = json.loads(INJECTIONS.read_text(encoding="utf-8"))
    assert not {r["text"] for part in ("attacks", "benign") for r in data[part]} & kept_out
