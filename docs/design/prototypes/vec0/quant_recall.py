"""Recall@10 of coarse scans + exact re-scoring on REAL MiniLM vectors (realvecs.py), by share passed on.

A coarse scan ranks every row cheaply; the best `share` of the rows are re-scored exactly (float32
cosine), so recall@10 = |exact top 10 within the candidates| / 10. A true neighbour's rank in a
coarse order grows with the number of rows, so the share that holds recall at these sizes is what
1M rows need; measured at three corpus sizes to show it does hold.

Coarse scans compared (all computable by NumPy at 1M, see accel.py for their speed):
  sign        sign bits of the vector, Hamming distance (384 bits = 48 B a row)
  sign_c      sign bits of the vector minus the corpus mean (fitted on a sample), Hamming
  sign_c_asym (query - mean) . sign(row - mean): float query against the bits (the ceiling of bits)
  proj96      today's pre-scan: float32 projection on 96 principal directions (384 B a row)
  proj96_i8   the same projection quantised to int8 (96 B a row)
  proj128_i8  128 principal directions, int8 (128 B a row)
  int8        every dimension quantised to int8 (384 B a row)
  vec0_bit    vec0's own bit[384] column: vec_quantize_binary = sign bits, Hamming (same as `sign`)

    python quant_recall.py
"""

from __future__ import annotations

import numpy as np

from common import real, write_result

SHARES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
SAMPLE = 20_000


def main() -> None:
    corpus, queries, meta = real()
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(corpus))  # subsets mix conversation turns and docstrings alike
    unit_all = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    sizes = sorted({len(corpus) // 4, len(corpus) // 2, len(corpus)})
    out = {"corpus": meta, "sizes": {}}
    for n in sizes:
        unit = unit_all[perm[:n]]
        sample = unit[rng.choice(n, min(n, SAMPLE), replace=False)]
        mu = sample.mean(axis=0)
        _, vecs = np.linalg.eigh(sample.T @ sample)
        basis = np.ascontiguousarray(vecs[:, ::-1][:, :128])
        proj = unit @ basis  # 128 dims; the 96-dim variants use the first 96 columns
        scale_p = np.abs(proj).max(axis=0) / 127
        proj_i8 = np.round(proj / scale_p).astype(np.int8)
        scale = np.abs(unit).max(axis=0) / 127
        q8 = np.round(unit / scale).astype(np.int8)
        bits = np.packbits(unit > 0, axis=1).view(np.uint64)
        bits_c = np.packbits(unit > mu, axis=1).view(np.uint64)
        signs_c = np.where(unit > mu, 1.0, -1.0).astype(np.float32)
        exact_top = np.argsort(-(queries @ unit.T), axis=1, kind="stable")[:, :10]

        def coarse(method: str, q: np.ndarray) -> np.ndarray:  # higher = nearer
            if method == "sign":
                return -np.bitwise_count(bits ^ np.packbits(q > 0).view(np.uint64)).sum(axis=1).astype(np.float32)
            if method == "sign_c":
                return -np.bitwise_count(bits_c ^ np.packbits(q > mu).view(np.uint64)).sum(axis=1).astype(np.float32)
            if method == "sign_c_asym":
                return signs_c @ (q - mu)
            if method == "proj96":
                return proj[:, :96] @ (q @ basis[:, :96])
            if method == "proj96_i8":
                return proj_i8[:, :96].astype(np.float32) @ ((q @ basis[:, :96]) * scale_p[:96])
            if method == "proj128_i8":
                return proj_i8.astype(np.float32) @ ((q @ basis) * scale_p)
            if method == "int8":
                return q8.astype(np.float32) @ (q * scale)
            raise ValueError(method)

        rows = {}
        for method in ("sign", "sign_c", "sign_c_asym", "proj96", "proj96_i8", "proj128_i8", "int8"):
            found = {s: 0 for s in SHARES}
            for qi, q in enumerate(queries):
                score = coarse(method, q)
                # Ties (Hamming distances are small integers) are broken at random, not by row order.
                order = np.lexsort((rng.random(n), -score))
                truth = set(exact_top[qi].tolist())
                for s in SHARES:
                    keep = max(10, int(np.ceil(s * n)))
                    found[s] += len(truth & set(order[:keep].tolist()))
            rows[method] = {f"{s:.3%}": round(found[s] / (10 * len(queries)), 4) for s in SHARES}
            print(n, method, rows[method], flush=True)
        out["sizes"][str(n)] = rows
    print(write_result(f"quant_recall-{len(corpus)}", out))


if __name__ == "__main__":
    main()
