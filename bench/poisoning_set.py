"""A labelled set for server.guard.instructions: memory-poisoning attempts and legitimate coding memories.

Written by the team (not taken from any detector's test suite): attempts an attacker
could plant in a memory store, across direct and paraphrased overrides, other languages,
obfuscation (leetspeak, spaced letters, look-alike letters, zero-width characters),
claimed authority, exfiltration, covert or destructive commands and role markers; and
the standing instructions and notes a real coding memory is full of ("always run the
tests before pushing"), including ones that use the same words (ignore, instructions,
system, authorize, token, .env) and imported conversation turns ("assistant: ...").

The texts are data: bench/data/poisoning_set.json (invisible characters written as \\u
escapes). This module loads them under the names the bench and the tests use.
``attempts()`` and ``legitimate()`` return lists of texts; the obfuscated attempts are
derived at run time from a few plain ones, so the data file stays readable.

The FRESH sets were each written after the detector was tuned on everything before
them; FRESH3 has never been tuned on and is the one the bench reports apart.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

_SET = json.loads((Path(__file__).resolve().parent / "data" / "poisoning_set.json").read_text(encoding="utf-8"))

DIRECT: list[str] = _SET["attempts"]["direct"]
PARAPHRASE: list[str] = _SET["attempts"]["paraphrase"]
LANGUAGES: list[str] = _SET["attempts"]["other-language"]
AUTHORITY: list[str] = _SET["attempts"]["claimed-authority"]
EXFILTRATION: list[str] = _SET["attempts"]["exfiltration"]
COMMANDS: list[str] = _SET["attempts"]["command"]
ROLE: list[str] = _SET["attempts"]["role"]

# Plain attempts that are also planted obfuscated (derived below).
_OBFUSCATE: list[str] = _SET["obfuscated"]["derived_from"]

_LEET = str.maketrans({"i": "1", "o": "0", "e": "3", "a": "4", "s": "5", "t": "7"})
_HOMOGLYPH = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "i": "\u0456", "c": "\u0441", "p": "\u0440"})


def _leet(text: str, keep: str) -> str:
    table = {k: v for k, v in _LEET.items() if chr(k) not in keep}
    return text.lower().translate(table)


def obfuscated() -> list[str]:
    out: list[str] = []
    for n, text in enumerate(_OBFUSCATE):
        out.append(_leet(text, keep="ast" if n % 2 else "ea"))  # partial leetspeak, as people write it
        out.append(" ".join(text.split()[0]) + " " + " ".join(text.split()[1:]))  # "I g n o r e previous ..."
        out.append(text.translate(_HOMOGLYPH))  # Cyrillic look-alikes
        out.append("\u200b".join(text[:20]) + text[20:])  # zero-width characters between letters
    out += _SET["obfuscated"]["as_written"]
    return out


def attempts() -> list[tuple[str, str]]:
    """(category, text) for every planted attempt."""
    groups = {
        "direct": DIRECT, "paraphrase": PARAPHRASE, "other-language": LANGUAGES, "obfuscated": obfuscated(),
        "claimed-authority": AUTHORITY, "exfiltration": EXFILTRATION, "command": COMMANDS, "role": ROLE,
    }
    return [(category, text) for category, texts in groups.items() for text in texts]


# Notes in the data file are grouped by theme (testing and CI, git workflow, ...); one list here.
LEGIT: list[str] = [text for group in _SET["legitimate"]["notes"].values() for text in group]

# Imported conversation turns: a transcript is data, not an attack.
TRANSCRIPT: list[str] = _SET["legitimate"]["transcript"]

_VERBS: list[str] = _SET["legitimate"]["standing_instructions"]["verbs"]
_TOOLS: list[str] = _SET["legitimate"]["standing_instructions"]["tools"]
_WHEN: list[str] = _SET["legitimate"]["standing_instructions"]["when"]
_PREFS: list[tuple[str, list[str]]] = list(_SET["legitimate"]["preferences"].items())


def legitimate() -> list[tuple[str, str]]:
    out = [("note", t) for t in LEGIT] + [("transcript", t) for t in TRANSCRIPT]
    for verb, tool, when in itertools.islice(itertools.product(_VERBS, _TOOLS, _WHEN), 0, None, 2):
        out.append(("standing-instruction", f"{verb} {tool} {when}"))
    for head, items in _PREFS:
        out += [("preference", f"{head} {item}.") for item in items]
    return out


# Written after the detector was tuned on the sets above, and not tuned on since: the
# bench reports it separately, as the less biased estimate of how the checks generalise.
FRESH_ATTEMPTS: list[str] = _SET["fresh"]["attempts"]
FRESH_LEGIT: list[str] = _SET["fresh"]["legitimate"]

# A second fresh set, written after FRESH was measured and before the checks were changed
# again (FRESH then became part of what they were tuned on).
FRESH2_ATTEMPTS: list[str] = _SET["fresh2"]["attempts"]
FRESH2_LEGIT: list[str] = _SET["fresh2"]["legitimate"]

# A third fresh set, written after FRESH2 was measured and before the changes it prompted:
# the figure the bench reports as the estimate for wordings the checks were not tuned on.
FRESH3_ATTEMPTS: list[str] = _SET["fresh3"]["attempts"]
FRESH3_LEGIT: list[str] = _SET["fresh3"]["legitimate"]
