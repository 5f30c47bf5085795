"""A small linear model over words, for prompt injections the phrase rules have no pattern for.

The rules in server.guard.instructions name the shapes of known attacks; wrappers around a payload
keep changing their words ("this is a test", "debug mode", "new task:"). This model scores the
text's lower-cased word unigrams and bigrams with weights learned by logistic regression from
public labelled attacks and benign notes about prompts (bench/train_injection_model.py writes
injection_model.json beside this file; the file is reproducible from that script). Inference is
plain Python: one regex pass, a set, a dict lookup per feature: linear in the text's length.

The weights are read on first use, not at import: a process that never flags text never pays.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from server.guard.lazyre import LazyRe as _LazyRe

MODEL = Path(__file__).with_name("injection_model.json")
_WORD = _LazyRe(r"[^\W_]+(?:'[^\W_]+)?")
#: texts longer than this are scored on their start and end (where wrappers sit): bounded cost
_SCAN = 8192
#: added to the feature count before the square root: a note of five words needs stronger words than
#: a page to reach the threshold (short notes are where one unlucky word would decide)
SMOOTH = 16
#: below this many words the model stays silent: in cross-validation on the training notes its false
#: positives were mostly short questions and rules ("What is your function?", "You are allowed to
#: refactor tests freely"), and the short attacks are the ones the phrase rules already name
MIN_WORDS = 12


def words(text: str) -> list[str]:
    """The lower-cased words of ``text`` (of its first and last 8 KB when it is longer)."""
    low = text.lower() if len(text) <= 2 * _SCAN else text[:_SCAN].lower() + " " + text[-_SCAN:].lower()
    return _WORD.findall(low)


def features(text: str, words_: list[str] | None = None) -> set[str]:
    """The distinct lower-cased words and word pairs of ``text`` (training and scoring share this)."""
    ws = words(text) if words_ is None else words_
    out = set(ws)
    out.update(f"{a} {b}" for a, b in zip(ws, ws[1:]))
    return out


@cache
def _model() -> tuple[dict[str, float], float, float]:
    data = json.loads(MODEL.read_text(encoding="utf-8"))
    return data["weights"], float(data["bias"]), float(data["threshold"])


def score(text: str, words_: list[str] | None = None) -> float:
    """The model's decision value for ``text``: above the threshold it reads like an injection."""
    weights, bias, _ = _model()
    fs = features(text, words_)
    get = weights.get
    return bias + sum(get(f, 0.0) for f in fs) / (len(fs) + SMOOTH) ** 0.5


def injection_like(text: str) -> bool:
    """True when ``text`` has at least MIN_WORDS words and the model scores it above its threshold
    (the score 1 % of the benign training notes of that length reach in cross-validation)."""
    ws = words(text)
    return len(ws) >= MIN_WORDS and score(text, ws) > _model()[2]
