"""How exact is float16 re-scoring? Real MiniLM vectors (realvecs.py): top-10 agreement with float32
and the largest cosine error, over every query.

    python half_exact.py
"""

from __future__ import annotations

import numpy as np

from common import real, write_result


def main() -> None:
    corpus, queries, meta = real()
    unit = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    half = unit.astype(np.float16)
    agree, same_order, worst = 0, 0, 0.0
    for q in queries / np.linalg.norm(queries, axis=1, keepdims=True):
        exact = unit @ q
        approx = half.astype(np.float32) @ q.astype(np.float16).astype(np.float32)
        worst = max(worst, float(np.abs(exact - approx).max()))
        a, b = np.argsort(-exact, kind="stable")[:10], np.argsort(-approx, kind="stable")[:10]
        agree += len(set(a.tolist()) & set(b.tolist()))
        same_order += int((a == b).all())
    result = {"vectors": len(unit), "queries": len(queries), "top10_agreement": round(agree / (10 * len(queries)), 4),
              "identical_top10_order_share": round(same_order / len(queries), 4), "max_abs_cosine_error": worst}
    print(result)
    print(write_result("half_exact", result))


if __name__ == "__main__":
    main()
