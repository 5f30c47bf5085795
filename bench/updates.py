"""Does memory stay true? Updates against what they replace, look-alikes that are not updates, dedupe.

The data (bench/data/updates/<project>.json, written by hand) holds, per invented
project: update pairs (an older memory and a later one that changes it: a
dependency or runtime upgrade, a renamed service or host, a changed command,
a reversed decision, a moved file, a changed port, limit, owner, setting or
schedule) with 1-3 questions each (direct, paraphrased, "what changed");
look-alike pairs that are NOT updates (different services, environments,
tickets, build ids, a number that is a different quantity, the negation of a
different subject, a different package) with one question aimed at one side;
true duplicates (the same fact in other words); distractors; and questions
about things the project never stored. Pairs come in styles: most updates are
reworded (the newer memory says it its own way), some are minimal edits (the
same sentence with one value changed: "... Python 3.11." -> "... Python 3.12.");
most look-alikes are reworded, some share a template ("Deployed build 7a41c9e
..." / "Deployed build 0d93b5f ..."); most duplicates are paraphrases, some
near-verbatim. Minimal edits and templates are where similarity alone fails.

Each project is one thread. Its memories are written with `remember` through
MemoryService in time order (times spread over 120 days with a fixed seed: an
update's older memory in the first 60 %, its newer one later), with no
curation: whatever links updates must happen by itself. Then:

* updates: for each question, the ranks of the newer and the older memory in
  recall(k=20) on the project's thread: newer-ranked-above-older (share),
  stale-first (the older one ranked first), R@1/R@5 of the current fact;
  per question type and per kind of update; and what a reader is shown by
  recall(k=5): *stale alone* (the older memory shown without the newer one),
  the memories and characters shown (the cost of attaching later memories);
* look-alikes: R@1/R@5 of the memory asked about;
* calibration: AUROC of the top score, answered (answer first) vs unanswerable;
* dedupe: `curate_memory dedupe` previewed at several thresholds: how many
  true duplicate pairs it merges (recall), how many of its links are true
  duplicates (precision), and how many look-alike pairs, update pairs and
  unrelated memories it merges — the curve behind the default threshold; and
  the cosine of each kind of pair, which shows what similarity alone can tell;
* after dedupe: the default dedupe applied, the questions asked again;
* a reference: the same questions answered by plain cosine similarity over the
  thread's memories (the stored vectors, nothing else), to tell what the model
  alone finds from what the ranking loses.

    python bench/updates.py                  # all projects, the real model (MiniLM, ONNX)
    python bench/updates.py --quick          # two projects (CI)
    python bench/updates.py --embedder hash  # the lexical test embedder, no model
    python bench/updates.py --projects atlas,quill  # some projects only (a development/validation split)
    python bench/updates.py --at-once --projects …  # asked right after the writes, the backlog not drained
    python bench/updates.py --at-once --burst 2 …   # the same, each project written twice (the copy in a thread
                                                    # of its own, after them all, never asked): a bigger burst
    python bench/updates.py --at-once --burst 2 --recall-embeds-nothing …  # and a machine too loaded for a
                                                    # recall to embed any of its candidates (the worst case)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from quality import Asked, ask, auroc, calibration, commit, fmt, hit, mean, quantiles  # noqa: E402
from server import ranking  # noqa: E402
from server.config import Settings  # noqa: E402
from server.curation.curator import Curator  # noqa: E402
from server.compose import open_service  # noqa: E402
from server.embedding import backfill  # noqa: E402
from server.storage.protocol import Scope  # noqa: E402

DATA = HERE / "data" / "updates"
QUICK_PROJECTS = ("shopfront", "ledgerly")
START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
SPAN = timedelta(days=120)
K = 20  # deep enough to see where the older memory went
SHOWN = 5  # recall's default k: what a reader is shown (stale alone, its cost)
THRESHOLDS = (0.70, 0.75, 0.80, 0.85, 0.88, 0.90, 0.92, 0.94, 0.96, 0.98)


@dataclass(frozen=True)
class Item:
    at: float  # position in the project's timeline, 0..1
    role: str  # old, new, a, b, dup0, dup1, distractor
    index: int
    text: str


def timeline(project: dict) -> list[Item]:
    """The project's memories in the order they are remembered (fixed seed per project)."""
    rng = np.random.default_rng(zlib.crc32(project["project"].encode()))
    items = []
    for i, u in enumerate(project["updates"]):
        old = float(rng.uniform(0.0, 0.6))
        items += [Item(old, "old", i, u["old"]), Item(float(rng.uniform(old + 0.05, 1.0)), "new", i, u["new"])]
    for i, pair in enumerate(project["lookalikes"]):
        items += [Item(float(rng.uniform(0, 1)), "a", i, pair["a"]), Item(float(rng.uniform(0, 1)), "b", i, pair["b"])]
    for i, entry in enumerate(project["duplicates"]):
        first, second = _pair(entry)
        at = float(rng.uniform(0, 0.9))
        items += [Item(at, "dup0", i, first), Item(float(rng.uniform(at, 1.0)), "dup1", i, second)]
    items += [Item(float(rng.uniform(0, 1)), "distractor", i, text) for i, text in enumerate(project["distractors"])]
    return sorted(items, key=lambda item: item.at)


def _pair(entry: list[str] | dict) -> list[str]:
    return entry["pair"] if isinstance(entry, dict) else entry


def style(entry: dict | list, default: str) -> str:
    return entry.get("style", default) if isinstance(entry, dict) else default


def load(names: tuple[str, ...] | None) -> list[dict]:
    projects = [json.loads(path.read_text()) for path in sorted(DATA.glob("*.json"))]
    return [p for p in projects if names is None or p["project"] in names]


class Run:
    """One store holding every chosen project, each in its own thread."""

    def __init__(self, projects: list[dict], embedder: str, at_once: bool = False, precision: str = "auto",
                 burst: int = 1) -> None:
        self.projects = projects
        self.service = open_service(Settings(home=Path(tempfile.mkdtemp(prefix="memvault-updates-")), embedder=embedder,
                                               embed_precision=precision))
        self.ids: dict[tuple[str, str, int], int] = {}  # (project, role, index) -> memory id
        if at_once:  # a running server (its model loaded) told everything at once, then asked at once
            self.service.embedder.wait_ready(600)
        for project in projects:
            for item in timeline(project):
                stored = self.service.remember(item.text, thread=project["project"], created_at=START + SPAN * item.at)
                assert stored.status == "stored", (project["project"], item.text, stored.message)
                self.ids[(project["project"], item.role, item.index)] = stored.id
        for copy in range(2, burst + 1):  # more writes after the asked ones: what a bigger burst does to them
            for project in projects:
                for item in timeline(project):
                    self.service.remember(item.text, thread=f"{project['project']}-copy{copy}",
                                          created_at=START + SPAN * item.at)
        self.service.embedder.wait_ready(600)
        self.pending_when_asked = self.service.store.pending_count(Scope(threads=None)) if at_once else 0
        if not at_once:
            self.service.embed_backlog()
        self.vectors: dict[str, tuple[list[int], np.ndarray]] = {}  # thread -> (ids, unit vectors) for the reference
        for project in projects:
            members = [v for (name, _, _), v in self.ids.items() if name == project["project"]]
            self.vectors[project["project"]] = (
                members, self.service.embedder.embed([self.service.get(m).content for m in members]))

    def cosine_ranks(self, query: str, thread: str, *targets: int) -> list[int]:
        """Ranks (1-based) of the targets among the thread's memories by plain cosine to the query."""
        members, matrix = self.vectors[thread]
        order = [members[i] for i in np.argsort(-(matrix @ self.service.embedder.embed([query])[0]), kind="stable")]
        return [order.index(t) + 1 for t in targets]

    def possible(self, memory_id: int) -> list | None:
        """The memory's recorded possible update as [its older memory's role, probability], None without one."""
        with self.service.db.read() as conn:
            maybe = self.service.store.possible_updates(conn, [memory_id]).get(memory_id)
        if maybe is None:
            return None
        role = next((f"{r}{i}" for (_, r, i), v in self.ids.items() if v == maybe.older), "?")
        return [role, maybe.probability]

    def id(self, project: dict, role: str, index: int) -> int:
        return self.ids[(project["project"], role, index)]

    # -- questions ------------------------------------------------------------
    def ask_all(self) -> dict:
        rows_u, rows_l, nothing, held_out = [], [], [], []
        for p in self.projects:
            name = p["project"]
            for i, u in enumerate(p["updates"]):
                new, old = self.id(p, "new", i), self.id(p, "old", i)
                for qtype, query in u["q"].items():
                    got = ask(self.service, query, name, K)
                    shown = ask(self.service, query, name, SHOWN)
                    cos_new, cos_old = self.cosine_ranks(query, name, new, old)
                    rows_u.append({"cosine_new_rank": cos_new, "cosine_old_rank": cos_old, "project": name, "kind": u["kind"], "style": style(u, "reworded"), "type": qtype, "q": query,
                                   "new_rank": got.rank(new), "old_rank": got.rank(old), "top_score": round(got.top_score, 3),
                                   "old_flagged": got.flagged(old),
                                   # What a reader sees with recall's default k: the older memory without the newer.
                                   "stale_alone": old in shown.ids and new not in shown.ids,
                                   "shown_new": new in shown.ids, "shown": len(shown.ids), "shown_chars": shown.chars,
                                   "linked": self.service.get(old).superseded_by == new, "possible": self.possible(new),
                                   "top_is_file_unit": bool(got.file_units[:1] and got.file_units[0])})
            for i, pair in enumerate(p["lookalikes"]):
                other = "b" if pair["ask"] == "a" else "a"
                got = ask(self.service, pair["q"], name, K)
                shown = ask(self.service, pair["q"], name, SHOWN)
                rows_l.append({"cosine_rank": self.cosine_ranks(pair["q"], name, self.id(p, pair["ask"], i))[0], "project": name, "kind": pair["kind"], "style": style(pair, "reworded"), "q": pair["q"],
                               "rank": got.rank(self.id(p, pair["ask"], i)), "other_rank": got.rank(self.id(p, other, i)),
                               "flagged": got.flagged(self.id(p, pair["ask"], i)) or shown.flagged(self.id(p, pair["ask"], i)),
                               "shown": len(shown.ids), "shown_chars": shown.chars,
                               # The other memory of the pair shown as "newer" right after the one asked about: a
                               # look-alike taken for a later state (recall's attach, issue 32).
                               "other_attached": shown.newer(self.id(p, other, i)),
                               "top_score": round(got.top_score, 3)})
            for query in p["unanswerable"]:
                got: Asked = ask(self.service, query, name, K)
                nothing.append({"project": name, "q": query, "top_score": round(got.top_score, 3),
                                "top_is_file_unit": bool(got.file_units[:1] and got.file_units[0])})
            for query in p.get("unanswerable_held_out", []):
                got = ask(self.service, query, name, K)
                held_out.append({"project": name, "q": query, "top_score": round(got.top_score, 3)})
        return {"updates": rows_u, "lookalikes": rows_l, "unanswerable": nothing, "unanswerable_held_out": held_out}

    # -- dedupe ---------------------------------------------------------------
    def pairs(self) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {"duplicate": [], "update": [], "lookalike": []}
        for p in self.projects:
            out["duplicate"] += [(self.id(p, "dup0", i), self.id(p, "dup1", i)) for i in range(len(p["duplicates"]))]
            out["update"] += [(self.id(p, "old", i), self.id(p, "new", i)) for i in range(len(p["updates"]))]
            out["lookalike"] += [(self.id(p, "a", i), self.id(p, "b", i)) for i in range(len(p["lookalikes"]))]
        return out

    def write_links(self, pairs: dict[str, list[tuple[int, int]]]) -> dict:
        """What remember (and recall's check of earlier writes) linked by itself, before any dedupe:
        update pairs linked newer-over-older, and false supersessions -- look-alike or duplicate
        pairs linked, an update linked backwards, or any other memory superseded."""
        by = {m: self.service.get(m).superseded_by for m in self.ids.values()}
        out: dict = {}
        for kind, members in pairs.items():
            linked = sum(1 for a, b in members if by[a] == b or by[b] == a)
            out[kind] = {"pairs": len(members), "linked": linked, "rate": round(linked / max(1, len(members)), 4)}
        out["update"]["backwards"] = sum(1 for old, new in pairs["update"] if by[new] == old)
        in_pairs = {(a, b) for members in pairs.values() for a, b in members}
        out["other_links"] = sum(1 for m, s in by.items() if s is not None and (m, s) not in in_pairs and (s, m) not in in_pairs)
        wrong = out["lookalike"]["linked"] + out["update"]["backwards"] + out["other_links"]
        out["false_supersession_rate"] = round(wrong / max(1, sum(s is not None for s in by.values())), 4)
        out["lookalike_linked_rate"] = out["lookalike"]["rate"]
        return out

    def dedupe_links(self, threshold: float, apply: bool = False) -> list[tuple[int, int, float]]:
        """(older, survivor, similarity) for every memory dedupe supersedes at this threshold."""
        result = Curator(self.service).run("dedupe", dry_run=not apply, limit=1000, threshold=threshold)
        if len(result.details) != result.counts["superseded"]:
            raise RuntimeError(f"dedupe at {threshold} linked {result.counts['superseded']} memories, more than one report shows")
        return [(d["id"], d["superseded_by"], d["similarity"]) for d in result.details]

    def dedupe_curve(self) -> dict:
        pairs = self.pairs()
        ours = set(self.ids.values())
        kind_of = {frozenset(pair): kind for kind, members in pairs.items() for pair in members}
        lookalike_kind = {frozenset((self.id(p, "a", i), self.id(p, "b", i))): pair["kind"]
                          for p in self.projects for i, pair in enumerate(p["lookalikes"])}
        pair_style = self.pair_styles()
        text = {v: self.service.get(v).content for v in ours}
        curve, examples = [], []
        for threshold in THRESHOLDS:
            links = [link for link in self.dedupe_links(threshold) if link[0] in ours]
            group = _groups([(a, b) for a, b, _ in links])
            merged = {kind: sum(1 for a, b in members if group.get(a, a) == group.get(b, b)) for kind, members in pairs.items()}
            correct = sum(1 for a, b, _ in links if kind_of.get(frozenset((a, b))) == "duplicate")
            unrelated = sum(1 for a, b, _ in links if frozenset((a, b)) not in kind_of)
            by_kind: dict[str, int] = defaultdict(int)
            by_style: dict[str, list[float]] = defaultdict(list)
            for kind, members in pairs.items():
                for a, b in members:
                    by_style[f"{kind}:{pair_style[frozenset((a, b))]}"].append(1.0 if group.get(a, a) == group.get(b, b) else 0.0)
            for members in pairs["lookalike"]:
                if group.get(members[0], members[0]) == group.get(members[1], members[1]):
                    by_kind[lookalike_kind[frozenset(members)]] += 1
            row = {
                "threshold": threshold,
                "links": len(links),
                "precision": round(correct / len(links), 4) if links else None,
                "duplicate_recall": round(merged["duplicate"] / len(pairs["duplicate"]), 4),
                "lookalikes_merged": merged["lookalike"],
                "lookalike_merge_rate": round(merged["lookalike"] / len(pairs["lookalike"]), 4),
                "updates_merged_as_duplicates": merged["update"],
                "update_merge_rate": round(merged["update"] / len(pairs["update"]), 4),
                "unrelated_links": unrelated,
                "lookalikes_merged_by_kind": dict(sorted(by_kind.items())),
                "merge_rate_by_style": {key: mean(values) for key, values in sorted(by_style.items())},
            }
            curve.append(row)
            if threshold == self.service.settings.dedupe_threshold:
                examples = [{"older": text[a], "kept": text[b], "similarity": s, "pair": kind_of.get(frozenset((a, b)), "unrelated")}
                            for a, b, s in links if kind_of.get(frozenset((a, b))) != "duplicate"][:25]
        sims = self.pair_similarity(pairs, text, pair_style)
        return {"thresholds": curve, "default_threshold": self.service.settings.dedupe_threshold,
                "false_links_at_default": examples, "pair_cosine": sims}

    def pair_styles(self) -> dict[frozenset, str]:
        out = {}
        for p in self.projects:
            for i, entry in enumerate(p["duplicates"]):
                out[frozenset((self.id(p, "dup0", i), self.id(p, "dup1", i)))] = style(entry, "reworded")
            for i, u in enumerate(p["updates"]):
                out[frozenset((self.id(p, "old", i), self.id(p, "new", i)))] = style(u, "reworded")
            for i, pair in enumerate(p["lookalikes"]):
                out[frozenset((self.id(p, "a", i), self.id(p, "b", i)))] = style(pair, "reworded")
        return out

    def pair_similarity(self, pairs: dict[str, list[tuple[int, int]]], text: dict[int, str],
                        pair_style: dict[frozenset, str]) -> dict:
        """Cosine of each pair under the configured embedder: can any threshold tell duplicates apart?"""
        cos, by_style = {}, defaultdict(list)
        for kind, members in pairs.items():
            a = self.service.embedder.embed([text[x] for x, _ in members])
            b = self.service.embedder.embed([text[y] for _, y in members])
            cos[kind] = [float(v) for v in np.sum(a * b, axis=1)]
            for pair, value in zip(members, cos[kind]):
                by_style[f"{kind}:{pair_style[frozenset(pair)]}"].append(value)
        return {
            **{kind: quantiles(values) for kind, values in cos.items()},
            "by_style": {key: quantiles(values) for key, values in sorted(by_style.items())},
            "auroc_duplicate_vs_update": auroc(cos["duplicate"], cos["update"]),
            "auroc_duplicate_vs_lookalike": auroc(cos["duplicate"], cos["lookalike"]),
        }


def _groups(links: list[tuple[int, int]]) -> dict[int, int]:
    """Union-find over dedupe's links: memory id -> its group's root (merged = same root)."""
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in links:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        parent[root(a)] = root(b)
    return {x: root(x) for x in parent}


# -- summaries ----------------------------------------------------------------
def summarise_updates(rows: list[dict]) -> dict:
    def block(part: list[dict]) -> dict:
        return {
            "n": len(part),
            "newer_above_older": mean([1.0 if r["new_rank"] and (r["old_rank"] is None or r["new_rank"] < r["old_rank"]) else 0.0
                                       for r in part]),
            "stale_first": mean([1.0 if r["old_rank"] == 1 else 0.0 for r in part]),
            "R@1": mean([hit(r["new_rank"], 1) for r in part]),
            "R@5": mean([hit(r["new_rank"], 5) for r in part]),
            "both@5": mean([hit(r["new_rank"], 5) * hit(r["old_rank"], 5) for r in part]),
            "cosine R@5": mean([hit(r["cosine_new_rank"], 5) for r in part]),
            "cosine newer_above_older": mean([1.0 if r["cosine_new_rank"] < r["cosine_old_rank"] else 0.0 for r in part]),
            # The older memory shown, not superseded, labelled "possibly outdated" under the newer.
            "older_flagged": mean([1.0 if r.get("old_flagged") else 0.0 for r in part]),
            # Shown recall(k=5): the superseded memory without its replacement (issue 32's "stale alone").
            "stale_alone": mean([1.0 if r.get("stale_alone") else 0.0 for r in part]),
            "R@5 shown": mean([1.0 if r.get("shown_new") else 0.0 for r in part]),
            "memories_shown": mean([float(r.get("shown", 0)) for r in part]),
            "chars_shown": mean([float(r.get("shown_chars", 0)) for r in part]),
        }

    by = defaultdict(list)
    for r in rows:
        by[("type", r["type"])].append(r)
        by[("kind", r["kind"])].append(r)
        by[("style", r["style"])].append(r)
    return {
        "all": block(rows),
        "by_question_type": {t: block(by[("type", t)]) for t in ("direct", "paraphrase", "changed")},
        "by_style": {s: block(by[("style", s)]) for s in sorted({r["style"] for r in rows})},
        "by_kind": {k: block(by[("kind", k)]) for k in sorted({r["kind"] for r in rows})},
    }


def summarise_lookalikes(rows: list[dict]) -> dict:
    def block(part: list[dict]) -> dict:
        return {"n": len(part), "R@1": mean([hit(r["rank"], 1) for r in part]), "R@5": mean([hit(r["rank"], 5) for r in part]),
                "other_first": mean([1.0 if r["other_rank"] == 1 else 0.0 for r in part]),
                "cosine R@5": mean([hit(r["cosine_rank"], 5) for r in part]),
                # The memory asked about labelled "possibly outdated": a false hint (both are true).
                "flagged_outdated": mean([1.0 if r.get("flagged") else 0.0 for r in part]),
                "memories_shown": mean([float(r.get("shown", 0)) for r in part]),
                "chars_shown": mean([float(r.get("shown_chars", 0)) for r in part]),
                "other_attached_as_newer": mean([1.0 if r.get("other_attached") else 0.0 for r in part])}

    kinds = sorted({r["kind"] for r in rows})
    styles = sorted({r["style"] for r in rows})
    return {"all": block(rows), "by_style": {s: block([r for r in rows if r["style"] == s]) for s in styles},
            "by_kind": {k: block([r for r in rows if r["kind"] == k]) for k in kinds}}


def calibrate(asked: dict) -> dict:
    found, missed = [], []
    for r in asked["updates"]:
        (found if r["new_rank"] == 1 else missed).append(r["top_score"])
    for r in asked["lookalikes"]:
        (found if r["rank"] == 1 else missed).append(r["top_score"])
    nothing = [r["top_score"] for r in asked["unanswerable"]]
    out = calibration(found, missed, nothing, ranking.WEAK_MATCH)
    out["nothing_relevant_top_is_file_unit"] = mean([1.0 if r["top_is_file_unit"] else 0.0 for r in asked["unanswerable"]])
    # Questions written after recall's confidence was fitted (ranking.CONFIDENCE_WEIGHTS): does the
    # fit tell answered from unanswerable questions it never saw?
    held_out = [r["top_score"] for r in asked.get("unanswerable_held_out", [])]
    out["held_out"] = {"auroc_found_vs_nothing": auroc(found, held_out), "nothing_relevant": quantiles(held_out),
                       "nothing_relevant_at_or_above_weak": mean([1.0 if v >= ranking.WEAK_MATCH else 0.0 for v in held_out])}
    return out


def print_report(res: dict) -> None:
    u = res["updates"]
    print(f"\nUpdates: {u['all']['n']} questions over {res['pairs']['update']} pairs, {len(res['projects'])} projects "
          f"({res['memories']} memories), embedder {res['embedder']}")
    print(f"{'':20}{'n':>5}{'newer>older':>13}{'stale#1':>9}{'R@1':>7}{'R@5':>7}{'both@5':>8}   cosine: {'R@5':>5}{'newer>older':>13}")
    rows = [("all", u["all"]), *u["by_question_type"].items(), *[(f"{k} (style)", v) for k, v in u["by_style"].items()],
            *[(f"  {k}", v) for k, v in u["by_kind"].items()]]
    for name, b in rows:
        print(f"{name:20}{b['n']:>5}{fmt(b['newer_above_older'], 13)}{fmt(b['stale_first'], 9)}{fmt(b['R@1'])}{fmt(b['R@5'])}"
              f"{fmt(b['both@5'], 8)}{'':11}{fmt(b['cosine R@5'], 5)}{fmt(b['cosine newer_above_older'], 13)}")
    print(f"older memory shown labelled 'possibly outdated' (not superseded): {u['all']['older_flagged']}")
    print(f"recall(k={SHOWN}) as a reader sees it: stale alone (the older shown without the newer) "
          f"{u['all']['stale_alone']}, R@{SHOWN} {u['all']['R@5 shown']}; memories shown {u['all']['memories_shown']}, "
          f"characters {u['all']['chars_shown']} (look-alike questions: {res['lookalikes']['all']['memories_shown']}, "
          f"{res['lookalikes']['all']['chars_shown']})")
    look = res["lookalikes"]
    print(f"\nLook-alikes (not updates): {look['all']['n']} questions; the one asked about labelled 'possibly outdated': "
          f"{look['all']['flagged_outdated']}; the other shown as 'newer' after it (recall k={SHOWN}): "
          f"{look['all']['other_attached_as_newer']}")
    print(f"{'':20}{'n':>5}{'R@1':>7}{'R@5':>7}{'other#1':>9}{'cosine R@5':>12}")
    for name, b in [("all", look["all"]), *[(f"{k} (style)", v) for k, v in look["by_style"].items()],
                    *[(f"  {k}", v) for k, v in look["by_kind"].items()]]:
        print(f"{name:20}{b['n']:>5}{fmt(b['R@1'])}{fmt(b['R@5'])}{fmt(b['other_first'], 9)}{fmt(b['cosine R@5'], 12)}")
    c = res["calibration"]
    print(f"\nCalibration: AUROC found vs nothing relevant {c['auroc_found_vs_nothing']}, answerable vs nothing "
          f"{c['auroc_answerable_vs_nothing']}; top score found {c['top_score']['found']}, nothing relevant "
          f"{c['top_score']['nothing_relevant']}; unanswerable at or above {c['weak_match_line']}: "
          f"{c['nothing_relevant_at_or_above_weak']}")
    h = c["held_out"]
    print(f"Held-out unanswerable questions (written after the confidence was fitted): AUROC found vs nothing "
          f"{h['auroc_found_vs_nothing']}; top score {h['nothing_relevant']}; at or above {c['weak_match_line']}: "
          f"{h['nothing_relevant_at_or_above_weak']}")
    w = res["on_write"]
    print(f"\nLinked on write (no curation): updates {w['update']['linked']}/{w['update']['pairs']} "
          f"({w['update']['rate']:.2f}, {w['update']['backwards']} backwards); look-alikes {w['lookalike']['linked']}/"
          f"{w['lookalike']['pairs']} ({w['lookalike']['rate']:.3f}); duplicates {w['duplicate']['linked']}/"
          f"{w['duplicate']['pairs']}; other memories superseded {w['other_links']}; "
          f"share of links that are wrong {w['false_supersession_rate']:.3f}")
    if "dedupe" not in res:
        return
    d = res["dedupe"]
    print(f"\nDedupe (preview; default threshold {d['default_threshold']})")
    print(f"{'threshold':>10}{'links':>7}{'precision':>11}{'dup recall':>12}{'look-alikes':>13}{'updates':>9}{'unrelated':>11}")
    for r in d["thresholds"]:
        print(f"{r['threshold']:>10.2f}{r['links']:>7}{fmt(r['precision'], 11)}{fmt(r['duplicate_recall'], 12)}"
              f"{r['lookalikes_merged']:>8} ({r['lookalike_merge_rate']:.2f}){r['updates_merged_as_duplicates']:>4} "
              f"({r['update_merge_rate']:.2f}){r['unrelated_links']:>6}")
    s = d["pair_cosine"]
    styles = d["thresholds"][[r["threshold"] for r in d["thresholds"]].index(d["default_threshold"])]["merge_rate_by_style"]
    print(f"merged at the default, by pair style: {styles}")
    print(f"pair cosine p50: duplicates {s['duplicate'].get('p50')}, updates {s['update'].get('p50')}, look-alikes "
          f"{s['lookalike'].get('p50')}; AUROC duplicate vs update {s['auroc_duplicate_vs_update']}, vs look-alike "
          f"{s['auroc_duplicate_vs_lookalike']}")
    a = res["after_dedupe"]
    print(f"After dedupe at {d['default_threshold']} (applied): updates newer>older {a['updates']['newer_above_older']}, "
          f"R@5 {a['updates']['R@5']}; look-alikes R@1 {a['lookalikes']['R@1']} R@5 {a['lookalikes']['R@5']}, "
          f"asked memory superseded in {a['lookalike_targets_superseded']} of {look['all']['n']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK_PROJECTS)} (CI)")
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "hash"))
    ap.add_argument("--precision", default=Settings.embed_precision, choices=("auto", "float32", "int8"),
                    help="the ONNX graph that embeds: MEMVAULT_EMBED_PRECISION (auto: int8 for the bench's new store)")
    ap.add_argument("--projects", default=None,
                    help="comma-separated project names (default: every file in bench/data/updates/)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-dedupe", action="store_true", help="skip the dedupe curve and the questions after it")
    ap.add_argument("--burst", type=int, default=1,
                    help="write every project this many times (copies in threads of their own, after them all, never "
                         "asked): a burst of that many times the writes")
    ap.add_argument("--recall-embeds-nothing", action="store_true",
                    help="a recall embeds none of its candidates (backfill.CANDIDATE_LIMIT = 0): a machine too loaded "
                         "to afford any; what ranks is what the writes computed and stored")
    ap.add_argument("--at-once", action="store_true",
                    help="ask right after the writes, the embedding backlog not drained (no backfill thread runs: "
                         "only what a write or a recall does itself); implies --no-dedupe")
    args = ap.parse_args(argv)
    out = Path(args.out or HERE / "results" / ("updates.quick.json" if args.quick else "updates.json"))
    started = time.perf_counter()
    projects = load(QUICK_PROJECTS if args.quick else tuple(args.projects.split(",")) if args.projects else None)
    if not projects:
        ap.error(f"no such project in {DATA}: {args.projects}")
    if args.recall_embeds_nothing:
        backfill.CANDIDATE_LIMIT = 0
    run = Run(projects, args.embedder, at_once=args.at_once, precision=args.precision, burst=args.burst)
    asked = run.ask_all()
    pairs = run.pairs()
    res: dict = {
        "embedder": run.service.embedder.model_id,
        "projects": [p["project"] for p in projects],
        "memories": len(run.ids),
        "burst": args.burst,
        "recall_embeds_nothing": args.recall_embeds_nothing,
        "pairs": {kind: len(members) for kind, members in pairs.items()},
        "updates": summarise_updates(asked["updates"]),
        "lookalikes": summarise_lookalikes(asked["lookalikes"]),
        "calibration": calibrate(asked),
        "on_write": run.write_links(pairs),
    }
    res["at_once"] = {"pending_when_asked": run.pending_when_asked} if args.at_once else None
    if not (args.no_dedupe or args.at_once):
        _dedupe(run, projects, res)
    res["questions"] = asked
    res["settings"] = {"k": K, "SUPERSEDED_FACTOR": ranking.SUPERSEDED_FACTOR, "WEAK_MATCH": ranking.WEAK_MATCH,
                       "dedupe_threshold": run.service.settings.dedupe_threshold}
    res["commit"] = commit()
    res["seconds"] = round(time.perf_counter() - started, 1)
    run.service.close()
    print_report(res)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {out} in {res['seconds']} s")
    return 0


def _dedupe(run: Run, projects: list[dict], res: dict) -> None:
    """The dedupe curve, then the default dedupe applied and the questions asked again."""
    res["dedupe"] = run.dedupe_curve()
    run.dedupe_links(run.service.settings.dedupe_threshold, apply=True)
    again = run.ask_all()
    superseded = {m for m in run.ids.values() if run.service.get(m).superseded_by is not None}
    res["after_dedupe"] = {
        "superseded": len(superseded),
        "updates": summarise_updates(again["updates"])["all"],
        "lookalikes": summarise_lookalikes(again["lookalikes"])["all"],
        "lookalike_targets_superseded": sum(
            1 for p in projects for i, pair in enumerate(p["lookalikes"]) if run.id(p, pair["ask"], i) in superseded),
    }


if __name__ == "__main__":
    sys.exit(main())
