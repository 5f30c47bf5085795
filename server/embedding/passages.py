"""Long texts as overlapping passages, so a fact in the middle of a long memory has a vector.

all-MiniLM-L6-v2 reads the first 256 word pieces of a text: a fact stated later in
a long note or conversation turn is invisible to vector search (issue 14, item 8). A
text longer than SINGLE_MAX_WORDS is therefore embedded as several passages: the
whole text (what the model reads of it: its opening, the vector a short text gets
too) plus windows of PASSAGE_WORDS words every PASSAGE_STRIDE words (half
overlapping, so a sentence cut by one window is whole in the next). Search ranks a
memory by its best passage. A short text is one passage, itself: its vector is
exactly what it was before passages existed.

Words, not word pieces: no tokenizer is needed here (the store and the hook process
never load one), and 100 words of prose or code are 120-200 word pieces, inside the
model's window. The reference in bench/longtext.py uses the same 100/50 split.
"""

from __future__ import annotations

import re

#: Texts of at most this many words are one passage (about 200 word pieces: the model reads all of it).
SINGLE_MAX_WORDS = 150
PASSAGE_WORDS = 100
PASSAGE_STRIDE = 50
#: At most this many vector rows per memory (the whole text included). The SQLite store numbers
#: a memory's rows memory_id * MAX_PASSAGES + n; a longer text gets a wider stride.
MAX_PASSAGES = 64
WINDOW_MAX_WORDS = 180

_WORDS = re.compile(r"\S+")


def passages(text: str) -> list[str]:
    """The texts to embed for one memory: [text] when short, else text + overlapping windows."""
    spans = [m.span() for m in _WORDS.finditer(text)]
    if len(spans) <= SINGLE_MAX_WORDS:
        return [text]
    # Windows needed to reach the end: 1 + ceil((n - window) / stride). A text too long for
    # MAX_PASSAGES at the usual stride gets a wider stride and window (up to WINDOW_MAX_WORDS,
    # about what the model reads; past that, windows leave gaps: texts of over ~11,000 words).
    stride, window = PASSAGE_STRIDE, PASSAGE_WORDS
    while 1 + -(-(len(spans) - window) // stride) > MAX_PASSAGES - 1:
        stride += PASSAGE_STRIDE // 2
        window = min(max(PASSAGE_WORDS, 2 * stride), WINDOW_MAX_WORDS)
    out = [text]
    for start in range(0, len(spans), stride):
        end = min(start + window, len(spans))
        out.append(text[spans[start][0] : spans[end - 1][1]])
        if end == len(spans) or len(out) == MAX_PASSAGES:
            break
    return out
