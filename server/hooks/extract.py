"""Turns and durable statements from transcript entries, without a language model.

A turn is what the person typed, or what the assistant answered between two prompts
(its text plus one line per tool it ran). Durable statements are the few things a
later session needs, found by rules that prefer missing one to storing junk:

* explicit requests: "remember that …", "note that …", "keep in mind …" (also after another
  clause: "looks good, but keep in mind I often run two sessions at once");
* decisions: "we decided …", "let's go with …", "switch X to Y", "from now on …",
  "we're moving from X to Y", a request to restructure named code ("can we move X to
  `Y`"), and an option picked by letter or number ("B.", "let's implement option 2"),
  stored as the option's text from the assistant's previous reply;
* preferences and conventions: "always …", "never …", "I prefer …", "don't …", "use X
  for Y", "we're not using X", "… cannot be changed";
* commands that worked: build, test, lint, format, type-check, run, install, clean, reload,
  restart and deploy command lines from shell tool calls whose result was not an error (never one-off looks like `ls`,
  `which`, `cat`, `git status`);
* fixes: a command that failed, then the same command passing; or an error the person
  pasted or told in words ("I'm getting a 401"), then the assistant's explanation and edits, closed by the person confirming
  ("it's working now") or moving on to something else. The note quotes the error line
  (not a "1 failed in 0.4s" tally) and what the edits wrote;
* where things are, as the assistant states it ("`parse()` is defined in `src/parser.ts`",
  "`src/index.ts` is the main entry"): facts tagged `location`, two per message at most; and as
  a summary labels them ("**Output Location**: `~/exports/`", "**Export Script** (`tools/x.py`)"),
  three per message at most; and a file it makes with what it is for ("To create an index file for
  the schemas, which exports them all …, here is the block for `schemas/index.ts`");
* compaction summaries, as notes.

Edits keep what they wrote (the added lines), in the turn and in a fix. Each statement
carries the number of the person's turn it came from; the state that spans captures (the
options on offer, an open problem, failures waiting for their fix) is a small dict the
caller keeps with the session's cursor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from server.hooks.commands import (
    command_failed, command_family, command_purpose, error_line, package_manager, salient_errors,
    shell_command,
)
from server.hooks.places import LOCATIONS_PER_MESSAGE, labelled_locations, located
from server.hooks.transcript import Entry

#: A turn longer than this is cut (at a line end, with a marker): turns are for search.
MAX_TURN_CHARS = 6000
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "edit_file", "write", "StrReplace"})


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    at: datetime | None

    @property
    def content(self) -> str:
        return f"{self.role}: {self.text}"


@dataclass(frozen=True)
class Statement:
    kind: str
    content: str
    at: datetime | None
    tags: tuple[str, ...] = field(default=())
    turn: int | None = None  # the person's turn (1-based, per session) it came from


# -- sentences ---------------------------------------------------------------
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|(?<=[。！？；])\s*|\n+")
# Han, kana and hangul: a sentence in these scripts has no spaces, so its characters are counted.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)


def sentences(text: str) -> list[str]:
    """Prose sentences of a message (code blocks and list markers removed)."""
    prose = _CODE_FENCE.sub("\n", text)
    out = []
    for piece in _SENTENCE_END.split(prose):
        piece = re.sub(r"^\s*(?:[-*+>]|\d{1,3}[.)])\s+", "", piece).strip()
        if piece:
            out.append(piece)
    return out


def _finish(sentence: str) -> str:
    sentence = sentence.strip().rstrip(",;:")
    sentence = sentence[0].upper() + sentence[1:] if sentence else sentence
    return sentence if sentence.endswith((".", "!", "?", "`", ")", "。", "！", "？")) else sentence + "."


def _words(sentence: str) -> int:
    cjk = len(_CJK.findall(sentence))
    return len(re.findall(r"[\w./@+-]+", _CJK.sub(" ", sentence))) + cjk // 2


# -- explicit requests, decisions, preferences --------------------------------
_REMEMBER = re.compile(
    r"^(?:please\s+|ok(?:ay)?,?\s+|also,?\s+)?(?:remember|note|keep in mind|don'?t forget|make a note)"
    r"(?:\s+(?:that|this))?\s*[:,-]?\s+(?P<what>.{6,})$",
    re.IGNORECASE,
)
# The same request after a clause of something else ("that works, but keep in mind I often run two
# sessions at once"): people add the standing fact to a reply about the moment. Only the unambiguous
# phrases count here ("note" or "remember" alone mid-sentence is usually "note the error").
_REMEMBER_INSIDE = re.compile(
    r"(?:,|;|—|\bbut|\band|\balso|\bjust|\bthough|\bhowever)\s+(?:please\s+)?"
    r"(?:keep in mind|bear in mind|remember that|note that|don'?t forget (?:that)?)\s*[:,-]?\s+(?P<what>.{12,})$",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? decided|(?:the )?decision(?: is)?:|let'?s go with|let'?s use|let'?s switch"
    r"|we(?:'ll| will) (?:go with|use|switch|stick with|standardi[sz]e on)|we(?:'re| are) (?:moving|migrating|switching) to"
    r"|switch(?:ed|ing)?\b.{1,60}?\bto\b|from now on|going forward|we(?:'re| are) going with|decided to"
    r"|we(?:'re| are) (?:moving|migrating|switching) from\b.{1,60}?\bto)\b",
    re.IGNORECASE,
)
# From the assistant (and compaction summaries) only the forms that report a decision made
# together: "I switched to the feature branch" or "I decided to read the tests first" are
# the assistant's own steps, not project decisions.
_DECISION_REPORTED = re.compile(
    r"\b(?:we(?:'ve| have)? decided|(?:the )?decision(?: is)?:|we(?:'ll| will) (?:go with|use|stick with|standardi[sz]e on)"
    r"|we(?:'re| are) (?:moving|migrating|switching) (?:from\b.{1,60}?\b)?to|from now on|going forward|we(?:'re| are) going with)\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"^(?:please\s+)?(?:always|never|don'?t|do not|avoid|prefer)\b"
    r"|\b(?:i|we) (?:always|never|prefer|like to|want you to always|don'?t like|hate)\b"
    r"|\bprefer(?:s|red)?\b.+\b(?:over|to|instead of|rather than)\b"
    r"|\buse \S+ (?:instead of|rather than|over) \S+",
    re.IGNORECASE,
)
# Sentences that only look like rules: momentary, hedged, or about the conversation itself.
_TRANSIENT = re.compile(
    r"\b(?:for now|right now|yet|this time|at the moment|today|worry|bother|hesitate|mind if)\b|\?$",
    re.IGNORECASE,
)
# A decision must say what was decided: "let's go with option B" / "… with that" do not.
_VAGUE_OBJECT = re.compile(
    r"\b(?:go with|use|switch to|going with)\s+(?:it|that|this|them|those|these|option \w+|the (?:first|second|third|other|last) (?:one|option)|your (?:suggestion|plan|approach))\s*[.!]?$",
    re.IGNORECASE,
)
# Conventions the person states about the project ("use the prefix X for branch names").
_CONVENTION = re.compile(
    r"\buse (?:the |a )?(?:`[^`]+`|\S+)(?: \S+){0,3} (?:for|as|when|to name)\b"
    r"|\bwe(?:'re| are) not using\b|\bwe (?:don'?t|do not|never) use\b|\bwe(?:'re| are)? (?:always )?using\b"
    r"|\b(?:cannot|can'?t|must not|mustn'?t|should not|shouldn'?t|must never) be (?:changed|renamed|modified|edited|touched|removed)\b"
    r"|\bplease (?:don'?t|do not|never|always)\b"
    # Terse rules: "X is no need", "should use div tag", "Y is not needed", "must be Z".
    r"|\b(?:is |are )?no need\b|\b(?:is|are)(?: not|n'?t) (?:needed|necessary|required|allowed)\b|\bunnecessary\b"
    r"|\b(?<!they )(?<!it )(?<!that )(?<!this )(?<!which )(?<!there )(?:should|must|shall)(?: always| never| not|n'?t)? (?:use|be|go|stay|live|keep|have|follow|start|end)\b"
    # The same in Chinese and Japanese: don't / no need / must / always / never / use … / should / from now on / forbidden.
    r"|不要|不用|不需要|无需|必须|总是|始终|永远|绝不|一律|统一|请使用|使用.{1,20}(?:来|作为|代替)|应该|以后都|禁止|默认"
    r"|しないで|必ず|使わないで|常に",
    re.IGNORECASE,
)
# A request to restructure named code: "can we move each class to a separate file", "I'd like
# to move X to the `Y` class". Only with a code name in it (a path, `code`, camelCase), else it
# is a to-do of the moment ("can we look at this").
_REQUEST = re.compile(
    r"\b(?:can we|could we|let'?s|i(?:'d| would) like to|i want (?:you )?to|we should)\b.{0,80}?"
    r"\b(?:move|rename|split|merge|replace|switch|put|keep|make|extract|convert|set ?up|initiali[sz]e|use)\b",
    re.IGNORECASE,
)
_CODE_NAME = re.compile(
    r"`[^`]+`|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|go|rs|rb|java|kt|c|h|cpp|cs|md|json|ya?ml|toml|vue|svelte|css|html|sh|sql)\b"
    r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b\w+/[\w.-]+"
)
# "wait, from now on …": a leading interjection says nothing about whether the rest holds.
_INTERJECTION = re.compile(
    r"^(?:(?:wait|ok(?:ay)?|oh|hmm+|actually|also|and|so|well|right|alright|btw|oops|one more thing)\b[\s,.!:;—–-]*)+",
    re.IGNORECASE,
)
_PREF_WORDS = re.compile(r"\b(?:always|never|prefer|don'?t|do not|avoid|instead of|rather than)\b", re.IGNORECASE)


def classify(sentence: str) -> str:
    if _DECISION.search(sentence):
        return "decision"
    if _PREF_WORDS.search(sentence):
        return "preference"
    return "fact"


def statements_in(text: str, at: datetime | None, from_user: bool) -> list[Statement]:
    """Explicit requests, decisions, preferences and conventions stated in one message.

    Preferences, conventions, requests and "remember" are taken from the person's words
    only; an assistant's "always run X" is advice, not the person's rule. Decisions are taken
    from both, from the assistant only when reported as shared ("we decided …", "from now
    on …"): an assistant's summary is often the clearest statement of one.
    """
    out: list[Statement] = []
    locations = 0
    pieces = sentences(text)
    if not from_user:
        out += [Statement("fact", line, at, ("location",)) for line in labelled_locations(pieces)]
    for sentence in pieces:
        sentence = _INTERJECTION.sub("", sentence).strip()
        if len(sentence) > 400 or _words(sentence) < 4:
            continue
        remember = (_REMEMBER.match(sentence) or _REMEMBER_INSIDE.search(sentence)) if from_user else None
        if remember:
            what = _finish(remember.group("what"))
            out.append(Statement(classify(what), what, at, ("remembered",)))
        elif ((_DECISION if from_user else _DECISION_REPORTED).search(sentence)
              and not _VAGUE_OBJECT.search(sentence) and not _TRANSIENT.search(sentence)):
            out.append(Statement("decision", _finish(sentence), at))
        elif from_user and _PREFERENCE.search(sentence) and not _TRANSIENT.search(sentence):
            out.append(Statement("preference", _finish(sentence), at))
        elif from_user and _CONVENTION.search(sentence) and not _TRANSIENT.search(sentence):
            out.append(Statement("preference", _finish(sentence), at, ("convention",)))
        elif (from_user and _REQUEST.search(sentence) and _CODE_NAME.search(sentence)
              and not _TRANSIENT.search(sentence.rstrip("?"))):
            out.append(Statement("decision", _finish(sentence), at, ("request",)))
        elif not from_user and locations < LOCATIONS_PER_MESSAGE and located(sentence):
            locations += 1
            out.append(Statement("fact", _finish(sentence.replace("**", "")), at, ("location",)))
    return out


# -- an option picked from the assistant's list ------------------------------------
# "1. **Jest** …", "B) keep both", "### Option 2: a queue" — one option per line.
_OPTION_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:#{1,4}\s*)?(?:\*\*)?(?:option\s+)?\(?([A-Ha-h]|[1-9])(?:[.):]|\*\*|\s+[-—–])\)?(?:\*\*)?\s*[:—–-]?\s*(.{3,300})$",
    re.IGNORECASE | re.MULTILINE,
)
# A whole short reply that picks one ("B.", "2", "option 2", "let's implement option 2 please").
_PICK_ALONE = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|yes|sure|great)[,.!]?\s+)?(?:(?:let'?s|i'?ll|we'?ll)\s+)?"
    r"(?:go with|do|implement|use|pick|choose|take|try)?\s*(?:option\s+|#)?([A-Ha-h]|[1-9])\s*[.!)]?\s*(?:please)?[.!]?\s*$",
    re.IGNORECASE,
)
_PICK_IN = re.compile(
    r"\b(?:go with|implement|do|use|pick|choose|take|try|prefer|like)\s+(?:option|approach|choice)\s+#?([A-Ha-h]|[1-9])\b"
    r"|\b(?:option|approach)\s+#?([A-Ha-h]|[1-9])\s+(?:it is|please|sounds (?:good|right|best)|is (?:best|better|good|fine))",
    re.IGNORECASE,
)


def options_in(text: str) -> dict[str, str]:
    """The options an assistant's reply lists, by label ("A", "2"); {} when it lists fewer than two."""
    found: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _OPTION_LINE.match(line)
        if not match:
            continue
        label, body = match.group(1).upper(), match.group(2).replace("**", "").strip()
        if len(body) < 60 and not body.endswith((".", "!", "?")):  # a title: its description is usually the next line
            rest = next((ln.strip() for ln in lines[i + 1 : i + 3] if ln.strip()), "")
            if rest and not _OPTION_LINE.match(rest) and not rest.endswith("?"):
                body = f"{body} — {rest.replace('**', '').lstrip('-* ')}"
        found.setdefault(label, body[:300])
    return found if len(found) >= 2 else {}


def picked(text: str) -> str | None:
    """The label a reply picks ("B", "2"), if it picks one."""
    alone = _PICK_ALONE.match(text) if len(text) <= 80 else None
    if alone:
        return alone.group(1).upper()
    inside = _PICK_IN.search(text)
    return (inside.group(1) or inside.group(2)).upper() if inside else None


# -- problems the person reports, and conclusions they confirm -------------------
# An error pasted into a prompt, not the word "Error" in prose ("add an Error boundary").
_PASTED_ERROR = re.compile(
    r"\b\w*(?:Error|Exception)(?:\s*\[\w+\])?:\s|\bERR_[A-Z_]{3,}|fatal error|Traceback \(most recent|\bpanic:|^FAILED\b",
    re.MULTILINE,
)
# A problem told in the person's words, not pasted ("I'm getting redirected to the admin site", "now I get a 401
# unauthorized", "the page doesn't load"): hosts like Aider keep no tool output, so this is often the only error there is.
_SYMPTOM = re.compile(
    r"(?<!can )(?<!could )(?<!would )(?<!should )(?<!will )(?<!do )(?<!to )(?<!how )"  # "can we get the errors logged" asks
    r"\b(?:i(?:'m| am)?|we(?:'re| are)?|it(?:'s| is)?|(?:the )?(?:page|site|app|server|build|request)s?) (?:still |now |just )?"
    r"(?:get|getting|see|seeing|got|gets|returns?|returning|shows?|showing)\b.{0,80}?"
    r"(?:\b(?:error|errors|unauthori[sz]ed|forbidden|not found|blank|white page|redirect(?:ed|s|ing)?|crash(?:es|ed|ing)?|timeouts?"
    r"|timed out|fail(?:s|ed|ing|ure)?|exception|bad gateway|refused)\b|\b[45]\d\d\b)"
    r"|\b(?:is|are|keeps?|was) (?:still )?(?:not working|broken|failing|crashing|hanging|empty|blank)\b"
    r"|\b(?:doesn'?t|does not|isn'?t|won'?t|can'?t|cannot|didn'?t|did not) (?:seem to )?(?:work|load|start|build|compile|connect|run"
    r"|render|show up|open|resolve)\b",
    re.IGNORECASE,
)
# A prompt that sends the assistant back at the same problem.
_RETRY = re.compile(r"\b(?:try (?:it |that |this )?again|retry|one more time|once more|again\?)", re.IGNORECASE)
_CONFIRM = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|great|yes|yep|nice|cool|thanks?|thank you)[,.!]*\s+)*"
    r"(?:(?:it'?s|that'?s|this is|it is|everything'?s|all) (?:now )?working|(?:it |that |this )?works(?: now| great| fine| perfectly)?\b"
    r"|(?:that|this) (?:fixed|did|solved) it|fixed(?: it)?!|looks? (?:really |very )?good|perfect|lgtm|excellent|awesome)",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"\b(?:the (?:issue|problem|cause|root cause|fix|error) (?:is|was)|this (?:confirms|adds|ensures|fixes|means)|turned out"
    r"|because|I(?:'ve| have) (?:fixed|moved|refactored|converted|split|added|replaced|renamed|updated)|is now|now (?:lives|uses)"
    r"|instead of|too (?:new|old)|not (?:compatible|supported))\b",
    re.IGNORECASE,
)


_CAUSE = re.compile(
    r"\b(?:because|caused|cause|due to|means that|comes? (?:directly )?from|coming (?:directly )?from|missing|needs?|needed|the (?:issue|problem|fix|error) (?:is|was)|fixed|fix(?:ed)? (?:it|this|that)|"
    r"was (?:using|pointing|set)|should (?:be|use)|instead|wrong|typo|forgot|renamed|changed|added|updated|pinned"
    r"|not (?:supported|compatible|always)|too (?:new|old))\b",
    re.IGNORECASE,
)


# -- the whole transcript ----------------------------------------------------
@dataclass
class Extraction:
    turns: list[Turn] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # what the person typed, for #nomem
    carry: dict = field(default_factory=dict)  # state for the next chunk of the same transcript


@dataclass
class _Failure:
    command: str
    error: str
    at: datetime | None
    said: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)


#: At most this many failures or a problem's sentences and edits are carried between captures.
_CARRY_LIMIT = 8
#: A compaction summary kept as a note is cut here (turns hold the whole of it for search).
SUMMARY_CHARS = 2000


def extract(entries: list[Entry], root: str | None = None, carry: dict | None = None, final: bool = False) -> Extraction:
    """Turns and statements of `entries`; file paths under `root` (the project) are shown relative to it.

    `carry` is the previous chunk's `Extraction.carry` for the same transcript (None at its start).
    `final` (the session ended): a problem still open is stored — as its fix so far when the
    assistant explained or edited something, else as an open problem (a `task`)."""
    carry = dict(carry or {})
    out = Extraction()
    prefix = root.rstrip("/\\").replace("\\", "/") + "/" if root else None
    reply: list[str] = []
    reply_at: datetime | None = None
    calls: dict[str, tuple[str, str | None]] = {}  # tool id -> (command, purpose)
    ran: dict[str, int] = {}  # tool id -> its "[ran]" line in the reply (a failure's output is added to it)
    failures: dict[str, _Failure] = {k: _Failure(**v) for k, v in (carry.get("failures") or {}).items()}
    seen_commands: set[str] = set(carry.get("commands") or [])
    options: dict[str, str] = dict(carry.get("options") or {})
    problem: dict | None = carry.get("problem")
    turn = int(carry.get("turn") or 0)
    last_reply: str = carry.get("last_reply") or ""

    def state(statement: Statement) -> None:
        out.statements.append(Statement(statement.kind, statement.content, statement.at, statement.tags, turn or None))

    def close_reply() -> None:
        nonlocal reply, reply_at, options, last_reply
        if reply:
            text = "\n".join(reply)
            out.turns.append(Turn("assistant", _cut(text), reply_at))
            options = options_in(text) or options
            last_reply = text[-3000:]
        reply, reply_at = [], None

    def close_problem(confirmed: bool) -> None:
        nonlocal problem
        if problem and (problem["said"] or problem["edited"]):
            state(_reported_fix(problem, confirmed))
        problem = None

    for entry in entries:
        if entry.kind in ("user", "summary"):
            close_reply()
            if entry.kind == "summary":  # a compaction summary: the assistant's own digest; decisions in it count
                for statement in statements_in(entry.text, entry.at, from_user=False):
                    state(statement)
                if entry.text.strip():
                    state(Statement("note", "Compaction summary: " + _cut(entry.text, SUMMARY_CHARS), entry.at, ("compaction",)))
                continue
            turn += 1
            text = entry.text
            out.prompts.append(text)
            label = picked(text) if options else None
            chose = bool(label and label in options)
            if chose:
                state(Statement("decision", _finish(f"Chose option {label}: {options[label]}"), entry.at, ("option",)))
                text = f"{text} [option {label}: {options[label]}]"
            out.turns.append(Turn("user", _cut(text), entry.at))
            options = {}
            confirmed = bool(_CONFIRM.match(entry.text))
            error = error_line(entry.text) if _PASTED_ERROR.search(entry.text) else _symptom(entry.text)
            if problem is not None and error and _same_error(error, problem["error"]) and not confirmed:
                pass  # the same error again ("similar error, different macro"): the problem stays open
            elif problem is not None and not error and not confirmed and _RETRY.search(entry.text):
                pass  # "I fixed the permissions, can you try again?": the fix is still to come
            else:
                close_problem(confirmed)
                if error:
                    problem = {"error": error, "at": entry.at.isoformat() if entry.at else None, "said": [], "edited": []}
                elif confirmed and last_reply:
                    conclusion = [s for s in sentences(last_reply) if _CONCLUSION.search(s) and 20 <= len(s) <= 300]
                    if conclusion:
                        state(Statement("note", "Confirmed: " + " ".join(_finish(s.replace("**", "")) for s in conclusion[:2]), entry.at,
                                        ("conclusion",)))
            for statement in statements_in(entry.text, entry.at, from_user=True):
                if not (chose and statement.kind == "decision" and picked(statement.content)):
                    state(statement)  # "let's go with option B" is the pick above, already resolved
        elif entry.kind == "assistant":
            reply.append(entry.text)
            reply_at = reply_at or entry.at
            for statement in statements_in(entry.text, entry.at, from_user=False):
                state(statement)
            causes = [s for s in sentences(entry.text) if _CAUSE.search(s) and len(s) <= 300]
            for failure in failures.values():
                failure.said.extend(causes)
            if problem is not None:
                problem["said"] = (problem["said"] + [s for s in sentences(entry.text)
                                                      if (_CAUSE.search(s) or _CONCLUSION.search(s)) and len(s) <= 300])[:_CARRY_LIMIT]
        elif entry.kind == "tool_call":
            reply_at = reply_at or entry.at
            command = shell_command(entry)
            if command:
                ran[entry.tool_id or ""] = len(reply)
                reply.append(f"[ran] {command}")
                calls[entry.tool_id or ""] = (command, command_purpose(command))
            elif entry.tool in EDIT_TOOLS and entry.file_path:
                path = entry.file_path.replace("\\", "/")
                if prefix and path.startswith(prefix):
                    path = path[len(prefix):]
                edited = f"{path} ({_clip(entry.change, 200)})" if entry.change else path
                reply.append(f"[edited] {path}" + (f": {entry.change}" if entry.change else ""))
                for failure in failures.values():
                    if edited not in failure.edited:
                        failure.edited.append(edited)
                if problem is not None and edited not in problem["edited"]:
                    problem["edited"] = (problem["edited"] + [edited])[:_CARRY_LIMIT]
        elif entry.kind == "tool_result" and entry.tool_id in calls:
            command, purpose = calls.pop(entry.tool_id or "")
            if command_failed(entry):
                # What failed and why, in the turn: an error code, a hint or a version is often the
                # only place a later session can find why something was done the way it was.
                salient = salient_errors(entry.text)
                at = ran.get(entry.tool_id or "")
                if salient and at is not None and at < len(reply):
                    reply[at] += f" → failed: {salient}"
            manager = None if command_failed(entry) else package_manager(command)
            if manager and f"manager:{manager}" not in seen_commands:
                # Which package manager the project uses is asked in later sessions, and said only by the commands.
                seen_commands.add(f"manager:{manager}")
                state(Statement("fact", f"The project uses {manager} as its package manager (`{_clip(command, 80)}` worked).",
                                entry.at, ("package-manager",)))
            if purpose is None:
                continue
            family = command_family(command)
            if command_failed(entry):
                failures[family] = _Failure(command, error_line(entry.text), entry.at)
                continue
            if command not in seen_commands:
                seen_commands.add(command)
                state(Statement(
                    "snippet", f"{purpose.capitalize()} command that worked: `{command}`", entry.at, ("command", purpose)
                ))
            failure = failures.pop(family, None)
            if failure is not None and (failure.said or failure.edited):
                state(_fix(failure, command, entry.at))
    close_reply()
    if final and problem is not None:
        if problem["said"] or problem["edited"]:
            close_problem(False)
        else:
            state(Statement("task", f'Open problem: "{_short_paths(problem["error"])}" (not fixed when the session ended).',
                            _problem_at(problem), ("open-problem",)))
            problem = None
    out.carry = {
        "turn": turn, "options": options, "problem": problem, "last_reply": last_reply,
        "commands": sorted(seen_commands)[-200:],
        "failures": {k: {"command": f.command, "error": f.error, "at": None, "said": f.said[:_CARRY_LIMIT],
                         "edited": f.edited[:_CARRY_LIMIT]}
                     for k, f in list(failures.items())[-_CARRY_LIMIT:]},
    }
    return out


def _symptom(text: str) -> str:
    """The sentence of a prompt that tells a problem in words (_SYMPTOM), cut to an error line's length; "" if none."""
    if _CONFIRM.match(text):
        return ""
    for sentence in sentences(text):
        if _SYMPTOM.search(sentence) and not _CONFIRM.match(sentence):
            return _clip(" ".join(sentence.split()), 160)
    return ""


def _problem_at(problem: dict) -> datetime | None:
    return datetime.fromisoformat(problem["at"]) if problem.get("at") else None


def _same_error(one: str, other: str) -> bool:
    """Two reports of one error: the same message once file names, line numbers and quotes are set aside."""
    def core(text: str) -> str:
        text = re.sub(r"\(?[\w./\\-]+:\d+(?::\d+)?\)?|\bat \S+", "", text)
        return " ".join(text.split())[:80].lower()

    return core(one) == core(other)


def _reported_fix(problem: dict, confirmed: bool) -> Statement:
    parts = [f'Fix for "{_short_paths(problem["error"])}":']
    if problem["edited"]:
        parts.append("changed " + "; ".join(problem["edited"][:3]) + ".")
    parts.extend(_finish(s) for s in problem["said"][:2])
    if confirmed:
        parts.append("The person confirmed it works.")
    return Statement("note", " ".join(parts), _problem_at(problem), ("fix",))


def _fix(failure: _Failure, command: str, at: datetime | None) -> Statement:
    # What changed comes before what was said: a brief that clips the note keeps its start.
    parts = [f"Fix: `{_clip(failure.command, 60)}` failed"]
    if failure.error:
        parts[0] += f' with "{_short_paths(failure.error)}"'
    parts[0] += "."
    if failure.edited:
        parts.append("Changed: " + ", ".join(failure.edited[:5]) + ".")
    parts.extend(_finish(s) for s in failure.said[:2])
    parts.append(f"Then `{_clip(command, 60)}` passed.")
    return Statement("note", " ".join(parts), at, ("fix",))


def _short_paths(text: str) -> str:
    """Absolute paths in an error shortened to their last part: the file name says it, the home folder does not."""
    return re.sub(r"(?<![\w.])(?:[A-Za-z]:)?(?:[/\\][\w.@~+-]+){3,}[/\\]([\w.@+-]+)", r"…/\1", text)


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def _cut(text: str, limit: int = MAX_TURN_CHARS) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = head.rfind("\n")
    head = head[: end if end > limit // 2 else limit]
    return f"{head}\n[… {len(text) - len(head)} characters not kept …]"
