"""The issue-14 benchmarks: their hand-written data holds what the figures claim, and the scripts run.

The data checks keep the sets honest as people add to them: the sizes the issue
asks for, every relevant id and every piece of evidence resolvable, identifiers
verbatim where a question claims so. The runs use the hash embedder (seconds,
no model); the suite test runs them with the real model at quick size.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from spawn import ROOT

BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
from quality import auroc, recall_at  # noqa: E402

UPDATES = [json.loads(p.read_text()) for p in sorted((BENCH / "data" / "updates").glob("*.json"))]
CODING = json.loads((BENCH / "data" / "coding_set.json").read_text())
LONG = json.loads((BENCH / "data" / "longtext.json").read_text())


def test_auroc_counts_ties_half_and_orders_by_score():
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.1], [0.9]) == 0.0
    assert auroc([0.5, 0.9], [0.5]) == 0.75  # one tie (half), one win
    assert auroc([], [0.3]) is None


def test_recall_at_is_the_share_of_relevant_found():
    assert recall_at(["a", "x", "b"], ["a", "b"], 1) == 0.5
    assert recall_at(["a", "x", "b"], ["a", "b"], 3) == 1.0


def test_update_set_has_the_sizes_the_issue_asks_for():
    updates = [u for p in UPDATES for u in p["updates"]]
    lookalikes = [pair for p in UPDATES for pair in p["lookalikes"]]
    assert len(updates) >= 150 and len(lookalikes) >= 150
    assert len(UPDATES) >= 5  # several projects, one thread each
    assert all(1 <= len(u["q"]) <= 3 and set(u["q"]) <= {"direct", "paraphrase", "changed"} for u in updates)
    assert all(pair["ask"] in ("a", "b") and pair["q"] for pair in lookalikes)
    assert {u.get("style", "reworded") for u in updates} == {"reworded", "minimal"}
    assert {pair.get("style", "reworded") for pair in lookalikes} == {"reworded", "template"}
    assert all(p["unanswerable"] and p["distractors"] and p["duplicates"] for p in UPDATES)


def test_update_texts_are_distinct_within_a_project():
    """remember() would fold a repeated text into one memory and silently merge two pairs."""
    for p in UPDATES:
        texts = [u[side] for u in p["updates"] for side in ("old", "new")]
        texts += [pair[side] for pair in p["lookalikes"] for side in ("a", "b")]
        texts += [t for entry in p["duplicates"] for t in (entry["pair"] if isinstance(entry, dict) else entry)]
        texts += p["distractors"]
        assert len(texts) == len(set(texts)), p["project"]


def test_coding_set_categories_ids_and_identifiers():
    memories = {m["id"]: m for m in CODING["memories"]}
    queries = CODING["queries"]
    assert len(queries) >= 150 and len(memories) == len(CODING["memories"])
    categories = {q["category"] for q in queries}
    assert {"paraphrase", "identifier", "cross-project", "preference", "what-changed"} <= categories
    assert {q["subtype"] for q in queries if q["category"] == "identifier"} >= {"hex", "ticket", "case", "path", "version"}
    for q in queries:
        assert all(r in memories for r in q["relevant"]), q
        first = memories[q["relevant"][0]]
        if q["thread"] != "*":
            assert first["thread"] in (q["thread"], "global"), q  # answerable from the thread it is asked in
        if q["category"] == "what-changed":
            assert first.get("supersedes") == q["relevant"][1], q
    identifiers = [q for q in queries if q["category"] == "identifier"]
    # the identifier (the longest token with a digit, '_', '/', '-', '.' or inner capital) occurs verbatim
    for q in identifiers:
        tokens = [t.strip("?,") for t in q["q"].split()]
        marked = [t for t in tokens if any(c.isdigit() or c in "_/-." for c in t) or t[1:] != t[1:].lower()]
        assert marked and max(marked, key=len) in memories[q["relevant"][0]]["content"], q
    assert len(CODING["unanswerable"]) >= 20


def test_longtext_evidence_is_verbatim_and_memories_are_long():
    notes = {n["id"]: n["content"] for n in LONG["notes"]}
    turns = {t["id"]: t["content"] for chat in LONG["chats"] for t in chat["turns"]}
    texts = {**notes, **turns}
    for q in LONG["questions"]:
        assert len(q["relevant"]) == len(q["evidence"]), q
        for key, evidence in zip(q["relevant"], q["evidence"]):
            assert evidence in texts[key], (q["q"], key, evidence)
    assert all(len(text.split()) > 250 for text in notes.values())  # well over 256 word pieces
    types = {q["type"] for q in LONG["questions"]}
    assert {"note-middle", "note-end", "chat-preference", "chat-spread"} <= types
    assert len(LONG["unanswerable"]) >= 10


def run(script: str, out, *args: str) -> dict:
    proc = subprocess.run([sys.executable, str(BENCH / script), "--quick", "--embedder", "hash", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.e2e
@pytest.mark.slow  # a benchmark script at its --quick size
def test_updates_quick_reports_every_part(tmp_path):
    result = run("updates.py", tmp_path / "u.json")
    quick = [p for p in UPDATES if p["project"] in result["projects"]]
    assert len(quick) == 2
    assert result["pairs"]["update"] == sum(len(p["updates"]) for p in quick)
    assert result["updates"]["all"]["n"] == sum(len(u["q"]) for p in quick for u in p["updates"])
    assert result["lookalikes"]["all"]["n"] == sum(len(p["lookalikes"]) for p in quick)
    assert result["calibration"]["top_score"]["nothing_relevant"]["n"] == sum(len(p["unanswerable"]) for p in quick)
    curve = result["dedupe"]["thresholds"]
    assert [row["threshold"] for row in curve] == sorted(row["threshold"] for row in curve) and len(curve) >= 5
    assert result["dedupe"]["default_threshold"] in [row["threshold"] for row in curve]
    assert {"superseded", "updates", "lookalikes"} <= set(result["after_dedupe"])


@pytest.mark.e2e
@pytest.mark.slow  # a benchmark script at its --quick size
def test_longtext_quick_finds_answers_past_the_window(tmp_path):
    result = run("longtext.py", tmp_path / "l.json")
    assert result["answers_beyond_window"] > 0 and result["long_memories"] > 0
    assert result["questions"] == len(result["rows"])
    assert set(result["by_position"]) == {"within the first 254 word pieces", "beyond the first 254 word pieces"}
    row = result["all"]
    assert {"memvault R@5", "cosine R@5", "passage_cosine R@5"} <= set(row)
