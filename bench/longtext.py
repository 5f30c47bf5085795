"""Long memories: is a fact in the middle or at the end of a long note or chat turn found?

all-MiniLM-L6-v2 reads the first 256 word pieces of a text, so a fact stated
later in a long memory is invisible to the semantic half of recall; only the
keyword half can find it. The data (bench/data/longtext.json, written by hand):
ten long engineering notes of one invented project among short notes of the
same project, and two long chats over several sessions, with questions whose
answer sits at the start (control), in the middle or at the end of a long note,
preferences mentioned in passing inside a long turn, facts inside long turns,
and facts spread over several sessions (every turn holding a part is relevant).
Each question carries its evidence verbatim, so the benchmark computes where it
starts in word pieces (beyond 254 = past what the model reads, with its two
special tokens).

Everything is stored with `remember` through MemoryService (notes as kind note,
chat turns as kind turn "<speaker>: <text>", at their times) and asked with
`recall` on the thread. Reported per question type and by whether the answer
lies past the model's window: R@5 (share of the relevant memories in the first
five), hit@5 (any of them), R@1 — for memvault and, over the same memories, for
plain cosine similarity of whole texts (what the stored vectors give) and, as a
reference only, for the best cosine over overlapping 100-word passages of each
text. Plus calibration: AUROC of the top score, answered vs unanswerable.

    python bench/longtext.py            # everything
    python bench/longtext.py --quick    # five notes and one chat (CI)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from quality import ask, calibration, commit, fmt, mean, quantiles, recall_at  # noqa: E402
from server import ranking  # noqa: E402
from server.config import Settings  # noqa: E402
from server.compose import open_service  # noqa: E402

DATA = HERE / "data" / "longtext.json"
NOTES_THREAD = "tidewater"
QUICK_NOTES = ("n1", "n2", "n3", "n4", "n5")
QUICK_CHATS = ("chat-routing",)
WINDOW = 254  # word pieces the model reads besides [CLS] and [SEP] (max_seq_length 256)
PASSAGE_WORDS, PASSAGE_STRIDE = 100, 50  # the passage reference: fixed, not tuned on this set
SHORT_NOTES_FROM = datetime(2025, 1, 10, 9, 0, tzinfo=timezone.utc)
TYPES = ("note-start", "note-middle", "note-end", "chat-preference", "chat-fact", "chat-spread")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def word_pieces():  # noqa: ANN201 - tokenizers.Tokenizer
    """The model's own tokenizer without truncation, to count word pieces."""
    from tokenizers import Tokenizer

    from server.embedding.export import source_dir

    tok = Tokenizer.from_file(str(source_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def choose(spec: dict, quick: bool) -> dict:
    if not quick:
        return spec
    notes = [n for n in spec["notes"] if n["id"] in QUICK_NOTES]
    chats = [c for c in spec["chats"] if c["thread"] in QUICK_CHATS]
    keep = {n["id"] for n in notes} | {t["id"] for c in chats for t in c["turns"]}
    threads = {NOTES_THREAD, *QUICK_CHATS}
    return {**spec, "notes": notes, "chats": chats,
            "questions": [q for q in spec["questions"] if set(q["relevant"]) <= keep],
            "unanswerable": [q for q in spec["unanswerable"] if q["thread"] in threads]}


def memories(spec: dict) -> list[dict]:
    """Every memory to store, in time order: {key, thread, kind, content, at}."""
    out = [{"key": n["id"], "thread": NOTES_THREAD, "kind": "note", "content": n["content"], "at": utc(n["created_at"])}
           for n in spec["notes"]]
    out += [{"key": f"s{i}", "thread": NOTES_THREAD, "kind": "note", "content": text,
             "at": SHORT_NOTES_FROM + timedelta(days=7 * i)} for i, text in enumerate(spec["short_notes"])]
    out += [{"key": t["id"], "thread": chat["thread"], "kind": "turn", "content": f"{t['speaker']}: {t['content']}",
             "at": utc(t["at"])} for chat in spec["chats"] for t in chat["turns"]]
    return sorted(out, key=lambda m: m["at"])


def passages(text: str) -> list[str]:
    words = text.split()
    starts = range(0, max(1, len(words) - PASSAGE_WORDS + PASSAGE_STRIDE), PASSAGE_STRIDE)
    return [" ".join(words[s : s + PASSAGE_WORDS]) for s in starts]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="five notes and one chat (CI)")
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "hash"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out or HERE / "results" / ("longtext.quick.json" if args.quick else "longtext.json"))
    started = time.perf_counter()
    spec = choose(json.loads(DATA.read_text()), args.quick)
    stored = memories(spec)
    content = {m["key"]: m["content"] for m in stored}

    tok = word_pieces()
    pieces = {key: len(tok.encode(text, add_special_tokens=False).ids) for key, text in content.items()}

    def offset(key: str, evidence: str) -> int:
        at = content[key].find(evidence)
        if at < 0:
            raise ValueError(f"evidence {evidence!r} is not in memory {key}")
        return len(tok.encode(content[key][:at], add_special_tokens=False).ids)

    service = open_service(Settings(home=Path(tempfile.mkdtemp(prefix="memvault-longtext-")), embedder=args.embedder))
    ids = {}
    for m in stored:
        ids[m["key"]] = service.remember(m["content"], kind=m["kind"], thread=m["thread"], created_at=m["at"]).id
    service.embedder.wait_ready(600)
    service.embed_backlog()
    key_of = {v: k for k, v in ids.items()}

    # The references: every memory of a thread ranked by cosine, whole text (the model's truncation) and best passage.
    by_thread: dict[str, list[str]] = defaultdict(list)
    for m in stored:
        by_thread[m["thread"]].append(m["key"])
    whole = {k: v for k, v in zip(content, service.embedder.embed(list(content.values())))}
    split = {k: service.embedder.embed(passages(text)) for k, text in content.items()}

    def reference(query_vector: np.ndarray, thread: str, passage: bool) -> list[str]:
        keys = by_thread[thread]
        scores = [float(np.max(split[k] @ query_vector)) if passage else float(whole[k] @ query_vector) for k in keys]
        return [keys[i] for i in np.argsort(scores)[::-1]]

    rows, found, missed = [], [], []
    for q in spec["questions"]:
        got = ask(service, q["q"], q["thread"], 10)
        ranked = [key_of.get(i, f"other:{i}") for i in got.ids]
        vector = service.embedder.embed([q["q"]])[0]
        cosine, passage = reference(vector, q["thread"], False), reference(vector, q["thread"], True)
        offsets = [offset(key, ev) for key, ev in zip(q["relevant"], q["evidence"])]
        row = {
            "q": q["q"], "type": q["type"], "thread": q["thread"],
            "evidence_offsets": offsets, "beyond_window": any(o >= WINDOW for o in offsets),
            "memvault": {"R@1": recall_at(ranked, q["relevant"][:1], 1), "R@5": recall_at(ranked, q["relevant"], 5),
                         "hit@5": 1.0 if set(ranked[:5]) & set(q["relevant"]) else 0.0},
            "cosine": {"R@1": recall_at(cosine, q["relevant"][:1], 1), "R@5": recall_at(cosine, q["relevant"], 5),
                       "hit@5": 1.0 if set(cosine[:5]) & set(q["relevant"]) else 0.0},
            "passage_cosine": {"R@1": recall_at(passage, q["relevant"][:1], 1), "R@5": recall_at(passage, q["relevant"], 5),
                               "hit@5": 1.0 if set(passage[:5]) & set(q["relevant"]) else 0.0},
            "top_score": round(got.top_score, 3), "got_first": ranked[0] if ranked else None,
        }
        rows.append(row)
        (found if ranked[:1] and ranked[0] in q["relevant"] else missed).append(got.top_score)
    nothing = [ask(service, q["q"], q["thread"], 10).top_score for q in spec["unanswerable"]]
    service.close()

    def block(part: list[dict]) -> dict:
        return {"n": len(part), **{f"{method} {metric}": mean([r[method][metric] for r in part])
                                   for method in ("memvault", "cosine", "passage_cosine") for metric in ("R@1", "R@5", "hit@5")}}

    long_keys = [k for k, n in pieces.items() if n > WINDOW]
    res = {
        "embedder": service.embedder.model_id,
        "memories": len(stored),
        "long_memories": len(long_keys),
        "word_pieces_of_long_memories": quantiles([float(pieces[k]) for k in long_keys]),
        "questions": len(rows),
        "answers_beyond_window": sum(r["beyond_window"] for r in rows),
        "all": block(rows),
        "by_type": {t: block([r for r in rows if r["type"] == t]) for t in TYPES if any(r["type"] == t for r in rows)},
        "by_position": {"within the first 254 word pieces": block([r for r in rows if not r["beyond_window"]]),
                        "beyond the first 254 word pieces": block([r for r in rows if r["beyond_window"]])},
        "calibration": calibration(found, missed, nothing, ranking.WEAK_MATCH),
        "unanswerable_top_scores": [round(s, 3) for s in nothing],
        "rows": rows,
        "settings": {"window_word_pieces": WINDOW, "passage_words": PASSAGE_WORDS, "passage_stride": PASSAGE_STRIDE},
        "commit": commit(),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(f"Long texts: {res['questions']} questions, {res['memories']} memories ({res['long_memories']} over "
          f"{WINDOW} word pieces: {res['word_pieces_of_long_memories']}); answers past the window: "
          f"{res['answers_beyond_window']}; embedder {res['embedder']}")
    print(f"{'':36}{'n':>4}{'mv R@5':>8}{'cos R@5':>9}{'pass R@5':>10}{'mv R@1':>8}{'cos R@1':>9}")
    table = [("all", res["all"]), *res["by_type"].items(), *res["by_position"].items()]
    for name, b in table:
        print(f"{name:36}{b['n']:>4}{fmt(b['memvault R@5'], 8)}{fmt(b['cosine R@5'], 9)}{fmt(b['passage_cosine R@5'], 10)}"
              f"{fmt(b['memvault R@1'], 8)}{fmt(b['cosine R@1'], 9)}")
    c = res["calibration"]
    print(f"calibration: AUROC found vs nothing relevant {c['auroc_found_vs_nothing']}, answerable vs nothing "
          f"{c['auroc_answerable_vs_nothing']}; top score found {c['top_score']['found']}, nothing relevant "
          f"{c['top_score']['nothing_relevant']}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {out} in {res['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
