"""Long texts as overlapping passages, so a fact in the middle of a long memory has a vector.

all-MiniLM-L6-v2 reads the first 256 word pieces of a text: a fact stated later in
a long note or conversation turn is invisible to vector search (issue 14, item 8). A
text longer than SINGLE_MAX_WORDS is therefore embedded as several passages: the
whole text (what the model reads of it: its opening, the vector a short text gets
too) plus windows of PASSAGE_WORDS words every PASSAGE_STRIDE words (half
overlapping, so a sentence cut by one window is whole in the next). Search ranks a
memory by its best passage. A short text is one passage, itself: its vector is
exactly what it was before passages existed.

A short statement of several sentences (a note, a decision, a fact: not a conversation
turn) also gets one passage per sentence. A later note says the new state and then why
("Prod gateway log level is WARN. INFO was costing about 3 us per order."): read whole,
its reason dilutes the vector, and the older memory it updates, one plain sentence, came
first for "what log level does the gateway use?" (bench/updates.py: the newer memory
ranked above the older 0.833 -> 0.845, R@5 of the current fact 0.806 -> 0.817). Not
for turns: on LoCoMo's chats, sentence passages cost R@5 (0.664 -> 0.656) and 3.7x the
embedding time.

Words, not word pieces: no tokenizer is needed here (the store and the hook process
never load one), and 100 words of prose or code are 120-200 word pieces, inside the
model's window. The reference in bench/longtext.py uses the same 100/50 split.
"""

from __future__ import annotations

import re

from server.models import CONVERSATION_KIND

#: Texts of at most this many words are one passage (about 200 word pieces: the model reads all of it).
SINGLE_MAX_WORDS = 150
PASSAGE_WORDS = 100
PASSAGE_STRIDE = 50
#: At most this many vector rows per memory (the whole text included). The SQLite store numbers
#: a memory's rows memory_id * MAX_PASSAGES + n; a longer text gets a wider stride.
MAX_PASSAGES = 64
WINDOW_MAX_WORDS = 180

#: A sentence shorter than this is no passage of its own ("Done.", "See GOD-118.").
SENTENCE_MIN_WORDS = 3
#: At most this many sentence passages per statement (the whole text besides).
MAX_SENTENCES = 8

_WORDS = re.compile(r"\S+")
#: A sentence or clause ends at . ! ? or ; followed by a space ("v1.2" and "config.toml" stay whole).
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")


def passages(text: str, kind: str | None = None) -> list[str]:
    """The texts to embed for one memory: [text] when short (plus its sentences when it is a
    statement of several), else text + overlapping windows."""
    spans = [m.span() for m in _WORDS.finditer(text)]
    if len(spans) <= SINGLE_MAX_WORDS:
        if kind == CONVERSATION_KIND:
            return [text]
        sentences = [s for s in _SENTENCE_END.split(text) if len(_WORDS.findall(s)) >= SENTENCE_MIN_WORDS]
        return [text, *sentences[:MAX_SENTENCES]] if len(sentences) > 1 else [text]
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
