"""Recall@10 of the recommended two-step bit filter on REAL MiniLM vectors (realvecs.py).

Step 1 keeps the `wide` share of rows nearest by Hamming distance of sign bits; step 2 keeps the
`narrow` share of all rows (out of those) by the asymmetric score (query - mean) . sign(row - mean);
those are scored exactly. recall@10 = |exact top 10 within the kept rows| / 10. Measured at a quarter,
half and all of the corpus, as quant_recall.py (the share that holds at the largest size holds above
it: recall at a fixed share grows with the corpus here).

    python twostep_recall.py
"""

from __future__ import annotations

import numpy as np

from common import real, write_result

PLANS = ((0.02, 0.002), (0.02, 0.005), (0.05, 0.002), (0.05, 0.005), (0.01, 0.002))


def main() -> None:
    corpus, queries, meta = real()
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(corpus))
    unit_all = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    out = {"corpus": meta, "plans": [f"wide {w:.1%} -> narrow {n:.1%}" for w, n in PLANS], "sizes": {}}
    for size in sorted({len(corpus) // 4, len(corpus) // 2, len(corpus)}):
        unit = unit_all[perm[:size]]
        mu = unit[rng.choice(size, min(size, 20_000), replace=False)].mean(axis=0)
        bits = np.packbits(unit > mu, axis=1).view(np.uint64)
        signs = np.where(unit > mu, 1.0, -1.0).astype(np.float32)
        exact = np.argsort(-(queries @ unit.T), axis=1, kind="stable")[:, :10]
        found = dict.fromkeys(PLANS, 0)
        for qi, q in enumerate(queries):
            ham = np.bitwise_count(bits ^ np.packbits(q > mu).view(np.uint64)).sum(axis=1)
            order = np.lexsort((rng.random(size), ham))
            truth = set(exact[qi].tolist())
            for wide, narrow in PLANS:
                first = order[: max(10, int(np.ceil(wide * size)))]
                keep = max(10, int(np.ceil(narrow * size)))
                score = signs[first] @ (q - mu)
                kept = first[np.argsort(-score, kind="stable")[:keep]]
                found[(wide, narrow)] += len(truth & set(kept.tolist()))
        row = {f"wide {w:.1%} -> narrow {n:.1%}": round(found[(w, n)] / (10 * len(queries)), 4) for w, n in PLANS}
        out["sizes"][str(size)] = row
        print(size, row, flush=True)
    print(write_result(f"twostep_recall-{len(corpus)}", out))


if __name__ == "__main__":
    main()
