"""Fit the update model (server/updates/model.py) on the update benchmark's pairs, and say how well it links.

Every project of bench/data/updates/ but HELD_OUT is written in its timeline's order (as
bench/updates.py writes it); for each memory, its CANDIDATES nearest earlier memories of the project
(by the real model's cosine, as the linker's vector matches, from the graph the product embeds with:
--precision: float32 by default, the graph the shipped weights were fitted on — an int8 fit, session 33,
made one wrong link more on development and held-out projects alike) are the pairs: the update's older memory
is a positive, everything else (its look-alike, duplicates, unrelated memories) a negative. Each pair's
signals are model.signals, with term weights counted over the project. A logistic regression
with an L2 penalty (Newton's method; NumPy only) is fitted on the signals scaled to unit variance; the
scaling is folded into the coefficients written to server/updates/coefficients.py.

How well it links is measured as a write would use it -- each newer memory linked to its most probable
candidate when that is at least model.THRESHOLD, or a minimal edit -- in two ways: leave projects
out (FOLDS folds, each fitted without its projects). HELD_OUT is neither fitted nor measured here: it is
measured once, by bench/updates.py, after the fit is chosen. Counted: right links (the update's older memory), wrong ones (anything else but a
duplicate), duplicates linked.

    python bench/fit_update_model.py            # fit, report, write server/updates/coefficients.py
    python bench/fit_update_model.py --dry-run  # report only
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

import updates as bench  # noqa: E402
from quality import commit  # noqa: E402
from server.embedding.embedders import make_embedder  # noqa: E402
from server.updates import CountedWeights, model  # noqa: E402
from server.updates.statements import analyse  # noqa: E402

#: The update benchmark's held-out projects (written fresh from WRITING.md): never
#: fitted nor measured here, so that bench/updates.py on them says what the fit does on text it never saw.
HELD_OUT = ("egret", "teal", "smew", "scoter", "eider", "crake")
CANDIDATES = 30  # server.linker.CANDIDATES
FOLDS = 6
C = 0.3  # inverse L2 strength (sum of log losses + |w|^2 / 2C)
WEIGHTS_FILE = HERE.parent / "server" / "updates" / "coefficients.py"


def pairs(projects: list[dict], embedder) -> list[dict]:  # noqa: ANN001 - an Embedder
    out = []
    for project in projects:
        items = bench.timeline(project)
        texts = [item.text for item in items]
        vectors = embedder.embed(texts)
        statements = [analyse(t) for t in texts]
        counts = Counter(word for s in statements for word in set(s.fts.values()))
        weights = CountedWeights(lambda word: counts.get(word, 0), len(texts))
        at = {(item.role, item.index): k for k, item in enumerate(items)}
        updates = {(at[("old", i)], at[("new", i)]) for i in range(len(project["updates"]))}
        dups = {frozenset((at[("dup0", i)], at[("dup1", i)])) for i in range(len(project["duplicates"]))}
        for n in range(1, len(items)):
            cosines = vectors[:n] @ vectors[n]
            for o in np.argsort(-cosines, kind="stable")[:CANDIDATES].tolist():
                found = model.signals(statements[o], statements[n], float(cosines[o]), weights)
                if found is None:
                    continue
                signals, rule = found
                out.append({"project": project["project"], "newer": n, "older": o, "signals": signals,
                            "minimal": bool(signals["minimal"] and rule is not None and rule.score >= 2.0),
                            "label": "update" if (o, n) in updates else "duplicate" if frozenset((o, n)) in dups else "other"})
    return out


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Coefficients (for unscaled x) and intercept of an L2 logistic regression, by Newton's method."""
    mu, sd = x.mean(0), x.std(0)
    sd[sd == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mu) / sd])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], 1.0 / C)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    coef = w[1:] / sd
    return coef, float(w[0] - (coef * mu).sum())


def links(rows: list[dict], prob: np.ndarray) -> dict:
    """Each newer memory linked to its most probable candidate at or above the threshold (the lower one when a
    rule links the pair too; minimal edits always), as model.verdict and best_link decide."""
    best: dict[tuple[str, int], tuple[float, str]] = {}
    for row, p in zip(rows, prob):
        score = 2.0 + p if row["minimal"] else p
        key = (row["project"], row["newer"])
        if score >= model.least(row["signals"]) and score > best.get(key, (-1.0, ""))[0]:
            best[key] = (score, row["label"])
    got = Counter(label for _, label in best.values())
    made = sum(got.values())
    return {"right": got["update"], "wrong": got["other"], "duplicates": got["duplicate"],
            "wrong_share": round(got["other"] / made, 4) if made else 0.0}


def matrix(rows: list[dict], names: list[str]) -> np.ndarray:
    return np.array([[row["signals"][n] for n in names] for row in rows], dtype=float)


def write_weights(names: list[str], coef: np.ndarray, intercept: float, fitted: list[str], model_id: str,
                  precision: str) -> None:
    lines = ['"""Generated by `python bench/fit_update_model.py`; do not edit (refit instead).',
             "", f"Fitted on {len(fitted)} projects of bench/data/updates/ (all but {', '.join(HELD_OUT)}).", '"""', "",
             # The linker asks for the model without its precision (server/linker.py): both graphs' cosines are
             # the same model's, and a float32 store keeps the model; PRECISION says which graph's they were.
             "#: The embedder whose cosines the weights were fitted on, and the graph (its precision) that made them.",
             f"MODEL_ID = {model_id.partition('@')[0]!r}", f"PRECISION = {precision!r}",
             f"INTERCEPT = {intercept:.6g}", "COEFFICIENTS: dict[str, float] = {"]
    lines += [f"    {name!r}: {value:.6g}," for name, value in zip(names, coef)]
    WEIGHTS_FILE.write_text("\n".join(lines + ["}", ""]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report; do not write server/updates/coefficients.py")
    parser.add_argument("--out", default=str(HERE / "results" / "update_model.json"))
    parser.add_argument("--precision", default="float32", choices=("auto", "float32", "int8"),
                        help="the ONNX graph whose cosines are fitted: as MEMVAULT_EMBED_PRECISION (auto: int8, a new "
                             "store's); float32 is what the shipped weights were fitted on")
    args = parser.parse_args(argv)
    embedder = make_embedder("minilm", precision=args.precision)
    projects = bench.load(None)
    fitted = [p for p in projects if p["project"] not in HELD_OUT]
    rows = pairs(fitted, embedder)
    names = sorted(rows[0]["signals"])
    x, y = matrix(rows, names), np.array([row["label"] == "update" for row in rows], dtype=float)
    groups = sorted({row["project"] for row in rows})
    fold_of = {name: i % FOLDS for i, name in enumerate(groups)}
    folds = np.array([fold_of[row["project"]] for row in rows])
    held = np.zeros(len(rows))
    for k in range(FOLDS):
        coef, b = fit(x[folds != k], y[folds != k])
        held[folds == k] = 1.0 / (1.0 + np.exp(-np.clip(x[folds == k] @ coef + b, -60, 60)))
    coef, b = fit(x, y)
    # What the rules alone linked (a rule's verdict, its highest score per newer memory), for comparison.
    rules = np.array([row["signals"]["rule"] * (1.0 + row["signals"]["rule_score"]) for row in rows])
    model_alone = {"leave_projects_out": links([dict(r, signals=dict(r["signals"], rule=0.0)) for r in rows], held)}
    result = {
        "fitted_projects": len(groups), "pairs": len(rows), "update_pairs": int(y.sum()),
        "update_pairs_total": sum(len(p["updates"]) for p in fitted), "threshold": model.THRESHOLD,
        "leave_projects_out": links(rows, held), "model_alone": model_alone, "rules_alone_in_sample": links(rows, rules),
        "held_out": list(HELD_OUT), "precision": embedder.precision,
        "commit": commit(),
    }
    print(f"{len(rows)} candidate pairs over {len(groups)} projects ({result['update_pairs']} of "
          f"{result['update_pairs_total']} updates among the candidates)")
    print(f"leave projects out ({FOLDS} folds), threshold {model.THRESHOLD}: {result['leave_projects_out']}")
    print(f"the model alone (no lower threshold for a rule's links): {model_alone}")
    print(f"rules alone (in sample: the rules were written on these projects): {result['rules_alone_in_sample']}")
    Path(args.out).write_text(json.dumps(result, indent=1))
    if not args.dry_run:
        write_weights(names, coef, b, groups, embedder.model_id, embedder.precision)
        print(f"wrote {WEIGHTS_FILE.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
