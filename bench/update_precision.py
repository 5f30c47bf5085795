"""How the embedding graph's precision (int8 or float32) moves the update links, on the projects the model is fitted on.

New stores embed with the int8 graph (MEMVAULT_EMBED_PRECISION=auto); the update model's weights were fitted on
float32 cosines. On the six held-out update projects false supersession was 6.9 % with int8 against 3.5 % with
float32 (4 wrong links against 2). This asks, on the other 36 projects of bench/data/updates/ (never the held-out
six: fit_update_model.HELD_OUT), where that comes from: each project's candidate pairs (as bench/fit_update_model.py
gathers them) are embedded by both graphs, and it reports

* how far the int8 cosine of a pair is from the float32 one, by cosine band (mean and spread);
* with the shipped weights, the links each graph makes (right / wrong / duplicate) and how many newer memories
  link differently (another older memory, or none) -- and the same when a pair must clear its threshold with its
  cosine lowered by a margin (a pair near a threshold needing more than the cosine: does it stop the flips?);
* leave projects out (fit_update_model.FOLDS folds), fitted on float32 pairs, on int8 pairs, or on both, and
  measured on each graph's pairs: is it the weights or the vectors;
* on int8 pairs, the links whose probability is within 0.1 of their threshold, right and wrong.

    python bench/update_precision.py          # ~4 min (embeds the 36 projects twice); bench/results/update_precision.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import fit_update_model as fum  # noqa: E402
import updates as bench  # noqa: E402
from server.embedding.embedders import make_embedder  # noqa: E402
from server.updates import model  # noqa: E402

PRECISIONS = ("float32", "int8")
BANDS = ((0.0, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 1.01))
MARGINS = (0.0, 0.01, 0.02, 0.03, 0.05)


def at_cosine(signals: dict[str, float], cosine: float) -> dict[str, float]:
    """The signals with another cosine (and the interactions that hold it)."""
    out = dict(signals, cos=cosine)
    for a, b in model.INTERACTIONS:
        out[f"{a}*{b}"] = out[a] * out[b]
    return out


def decisions(rows: list[dict], prob: list[float]) -> dict[tuple[str, int], tuple[int, str, float, float]]:
    """Each newer memory's link as a write makes it (fit_update_model.links): (older, label, score, least)."""
    best: dict[tuple[str, int], tuple[int, str, float, float]] = {}
    for row, p in zip(rows, prob):
        score = 2.0 + p if row["minimal"] else p
        least = model.least(row["signals"])
        key = (row["project"], row["newer"])
        if score >= least and score > best.get(key, (0, "", -1.0, 0.0))[2]:
            best[key] = (row["older"], row["label"], score, least)
    return best


def tally(best: dict) -> dict:
    got = Counter(label for _, label, _, _ in best.values())
    return {"right": got["update"], "wrong": got["other"], "duplicates": got["duplicate"]}


def differing(a: dict, b: dict) -> int:
    return sum(1 for k in set(a) | set(b) if (a.get(k) or (None,))[0] != (b.get(k) or (None,))[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "results" / "update_precision.json"))
    args = ap.parse_args(argv)
    projects = [p for p in bench.load(None) if p["project"] not in fum.HELD_OUT]
    rows = {prec: fum.pairs(projects, make_embedder("minilm", precision=prec)) for prec in PRECISIONS}
    result: dict = {"projects": len(projects), "pairs": {k: len(v) for k, v in rows.items()}}

    by = {prec: {(r["project"], r["newer"], r["older"]): r for r in rs} for prec, rs in rows.items()}
    common = sorted(set(by["float32"]) & set(by["int8"]))
    f32 = np.array([by["float32"][k]["signals"]["cos"] for k in common])
    delta = np.array([by["int8"][k]["signals"]["cos"] for k in common]) - f32
    result["cosine_int8_minus_float32"] = [
        {"band": f"{lo}-{hi}", "pairs": int(m.sum()), "mean": round(float(delta[m].mean()), 4),
         "sd": round(float(delta[m].std()), 4), "beyond_0.03": round(float((abs(delta[m]) > 0.03).mean()), 4)}
        for lo, hi in BANDS for m in [(f32 >= lo) & (f32 < hi)]]

    result["shipped_weights"] = []
    for margin in MARGINS:
        made = {prec: decisions(rs, [model.probability(at_cosine(r["signals"], r["signals"]["cos"] - margin))
                                     for r in rs]) for prec, rs in rows.items()}
        result["shipped_weights"].append({"cosine_margin": margin, **{p: tally(made[p]) for p in PRECISIONS},
                                          "newer_memories_linked_differently": differing(made["float32"], made["int8"])})

    names = sorted(rows["float32"][0]["signals"])
    groups = sorted({r["project"] for r in rows["float32"]})
    fold_of = {g: i % fum.FOLDS for i, g in enumerate(groups)}
    x = {k: fum.matrix(v, names) for k, v in rows.items()}
    y = {k: np.array([r["label"] == "update" for r in v], dtype=float) for k, v in rows.items()}
    folds = {k: np.array([fold_of[r["project"]] for r in v]) for k, v in rows.items()}
    result["leave_projects_out"] = []
    held_f32: dict[str, np.ndarray] = {}
    for train in (("float32",), ("int8",), ("float32", "int8")):
        held = {k: np.zeros(len(v)) for k, v in rows.items()}
        for f in range(fum.FOLDS):
            coef, b = fum.fit(np.vstack([x[t][folds[t] != f] for t in train]),
                              np.concatenate([y[t][folds[t] != f] for t in train]))
            for k in rows:
                m = folds[k] == f
                held[k][m] = 1.0 / (1.0 + np.exp(-np.clip(x[k][m] @ coef + b, -60, 60)))
        if train == ("float32",):
            held_f32 = held
        result["leave_projects_out"].append({"fitted_on": "+".join(train),
                                             **{p: fum.links(rows[p], held[p]) for p in PRECISIONS}})
    near = Counter()
    for _, label, score, least in decisions(rows["int8"], list(held_f32["int8"])).values():
        if score < 2.0:
            near[f"least {least}: {'within 0.1' if score < least + 0.1 else 'above'}, {label}"] += 1
    result["int8_links_by_margin_to_threshold"] = dict(sorted(near.items()))

    print(json.dumps({k: v for k, v in result.items()}, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
