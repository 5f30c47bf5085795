"""The update rules: when a later memory replaces an earlier one, and when two say the same thing.

Pure rules over text (no store, no search, no embedder), below `server.search`, which orders what
they found: statements (what one text says), old_values (which of O's values N names as the old
one), rules (the pair rules: update, duplicate, same fact), abbreviations (a subject written by its initials),
model and coefficients (the fitted model over the rules' signals), references (a record that names the record it
replaces: the author's claim), newer_first (recall's order for a pair the rules were unsure of). The
linker that runs them on write, with search, is `server.linker`, above search.

What callers outside this folder use is re-exported here; the rest is the folder's own.
"""

from server.updates.rules import CountedWeights, Judgement, Weights, duplicate, judge, same_fact
from server.updates.statements import Statement, analyse

__all__ = ["CountedWeights", "Judgement", "Statement", "Weights", "analyse", "duplicate", "judge", "same_fact"]
