"""Turns and durable statements from transcript entries, without a language model.

A turn is what the person typed, or what the assistant answered between two prompts
(its text plus one line per tool it ran). Durable statements are the few things a
later session needs, found by rules that prefer missing one to storing junk:

* explicit requests: "remember that …", "note that …", "keep in mind …";
* decisions: "we decided …", "let's go with …", "switch X to Y", "from now on …";
* preferences: "always …", "never …", "I prefer …", a sentence starting "don't …";
* commands that worked: build, test, lint, format and type-check command lines from
  shell tool calls whose result was not an error;
* an error followed by its fix: a command that failed, then the same command passing,
  with what the assistant said caused it and the files changed in between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from server.hooks.transcript import Entry

#: A turn longer than this is cut (at a line end, with a marker): turns are for search.
MAX_TURN_CHARS = 6000
# Shell tools of the hosts (Claude Code's Bash, Cursor's Shell / run_terminal_cmd).
SHELL_TOOLS = frozenset({"Bash", "Shell", "run_terminal_cmd", "bash", "shell"})
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


# -- sentences ---------------------------------------------------------------
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|\n+")
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
    return sentence if sentence.endswith((".", "!", "?", "`", ")")) else sentence + "."


def _words(sentence: str) -> int:
    return len(re.findall(r"[\w./@+-]+", sentence))


# -- explicit requests, decisions, preferences --------------------------------
_REMEMBER = re.compile(
    r"^(?:please\s+|ok(?:ay)?,?\s+|also,?\s+)?(?:remember|note|keep in mind|don'?t forget|make a note)"
    r"(?:\s+(?:that|this))?\s*[:,-]?\s+(?P<what>.{6,})$",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? decided|(?:the )?decision(?: is)?:|let'?s go with|let'?s use|let'?s switch"
    r"|we(?:'ll| will) (?:go with|use|switch|stick with|standardi[sz]e on)|we(?:'re| are) (?:moving|migrating|switching) to"
    r"|switch(?:ed|ing)?\b.{1,60}?\bto\b|from now on|going forward|we(?:'re| are) going with|decided to)\b",
    re.IGNORECASE,
)
# From the assistant (and compaction summaries) only the forms that report a decision made
# together: "I switched to the feature branch" or "I decided to read the tests first" are
# the assistant's own steps, not project decisions.
_DECISION_REPORTED = re.compile(
    r"\b(?:we(?:'ve| have)? decided|(?:the )?decision(?: is)?:|we(?:'ll| will) (?:go with|use|stick with|standardi[sz]e on)"
    r"|we(?:'re| are) (?:moving|migrating|switching) to|from now on|going forward|we(?:'re| are) going with)\b",
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
    r"\b(?:for now|right now|yet|this time|at the moment|today|worry|bother|hesitate|mind if|wait)\b|\?$",
    re.IGNORECASE,
)
# A decision must say what was decided: "let's go with option B" / "… with that" do not.
_VAGUE_OBJECT = re.compile(
    r"\b(?:go with|use|switch to|going with)\s+(?:it|that|this|them|those|these|option \w+|the (?:first|second|third|other|last) (?:one|option)|your (?:suggestion|plan|approach))\s*[.!]?$",
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
    """Explicit requests, decisions and preferences stated in one message.

    Preferences and "remember" requests are taken from the person's words only; an
    assistant's "always run X" is advice, not the person's rule. Decisions are taken
    from both, from the assistant only when reported as shared ("we decided …", "from now
    on …"): an assistant's summary is often the clearest statement of one.
    """
    out: list[Statement] = []
    for sentence in sentences(text):
        if len(sentence) > 400 or _words(sentence) < 4:
            continue
        remember = _REMEMBER.match(sentence) if from_user else None
        if remember:
            what = _finish(remember.group("what"))
            out.append(Statement(classify(what), what, at, ("remembered",)))
        elif ((_DECISION if from_user else _DECISION_REPORTED).search(sentence)
              and not _VAGUE_OBJECT.search(sentence) and not _TRANSIENT.search(sentence)):
            out.append(Statement("decision", _finish(sentence), at))
        elif from_user and _PREFERENCE.search(sentence) and not _TRANSIENT.search(sentence):
            out.append(Statement("preference", _finish(sentence), at))
    return out


# -- commands ----------------------------------------------------------------
_PURPOSES = (
    ("test", re.compile(r"\b(?:pytest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|unittest|go test|cargo (?:test|nextest)"
                        r"|(?:npm|pnpm|yarn|bun) (?:run )?test\S*|make (?:test|check)\S*|gradle\w* test|mvn\S* test|dotnet test|mix test|rake test|bundle exec rspec)\b")),
    ("lint", re.compile(r"\b(?:ruff(?: check)?|flake8|pylint|eslint|golangci-lint|cargo clippy|rubocop|shellcheck|(?:npm|pnpm|yarn|bun) (?:run )?lint\S*|make lint)\b")),
    ("format", re.compile(r"\b(?:ruff format|black|prettier|gofmt|rustfmt|cargo fmt|(?:npm|pnpm|yarn|bun) (?:run )?format\S*)\b")),
    ("type-check", re.compile(r"\b(?:mypy|pyright|tsc|(?:npm|pnpm|yarn|bun) (?:run )?typecheck\S*)\b")),
    ("build", re.compile(r"\b(?:make(?: \w+)?|cargo build|go build|(?:npm|pnpm|yarn|bun) (?:run )?build\S*|gradle\w* build|mvn\S* (?:package|install)"
                         r"|dotnet build|docker(?: compose)? build|cmake --build|pip install -e|uv sync|poetry install|(?:npm|pnpm|yarn) install|bazel build)\b")),
)
_CD_PREFIX = re.compile(r"^cd\s+\S+\s*&&\s*")
_EXIT_CODE = re.compile(r"^Exit code (\d+)")


def command_purpose(command: str) -> str | None:
    for purpose, pattern in _PURPOSES:
        if pattern.search(command):
            return purpose
    return None


def _command(entry: Entry) -> str | None:
    """The shell command of a tool call, without a leading `cd DIR &&` (the repository is the thread)."""
    if entry.tool not in SHELL_TOOLS or not entry.command:
        return None
    command = _CD_PREFIX.sub("", entry.command.strip())
    if "\n" in command or len(command) > 200:
        return None
    return command


def _failed(result: Entry) -> bool:
    code = _EXIT_CODE.match(result.text)
    return result.is_error or (code is not None and code.group(1) != "0")


def _family(command: str) -> str:
    """What counts as "the same command" when it passes after failing: its first two words."""
    return " ".join(command.split()[:2])


_ERROR_LINE = re.compile(r"\b(?:error|Error|ERROR|FAILED|Failed|failed|Exception|exception|not found|cannot|Cannot|No module)\b")
_CAUSE = re.compile(
    r"\b(?:because|caused|cause|missing|needs?|needed|the (?:issue|problem|fix|error) (?:is|was)|fixed|fix(?:ed)? (?:it|this|that)|"
    r"was (?:using|pointing|set)|should (?:be|use)|instead|wrong|typo|forgot|renamed|changed|added|updated|pinned)\b",
    re.IGNORECASE,
)


def _error_line(output: str) -> str:
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not _EXIT_CODE.match(ln.strip())]
    hits = [ln for ln in lines if _ERROR_LINE.search(ln)]
    line = (hits[-1] if hits else (lines[-1] if lines else "")).strip()
    return line[:200]


# -- the whole transcript ----------------------------------------------------
@dataclass
class Extraction:
    turns: list[Turn] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # what the person typed, for #nomem


@dataclass
class _Failure:
    command: str
    error: str
    at: datetime | None
    said: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)


def extract(entries: list[Entry], root: str | None = None) -> Extraction:
    """Turns and statements of `entries`; file paths under `root` (the project) are shown relative to it."""
    out = Extraction()
    prefix = root.rstrip("/\\") + "/" if root else None
    reply: list[str] = []
    reply_at: datetime | None = None
    calls: dict[str, tuple[str, str | None]] = {}  # tool id -> (command, purpose)
    failures: dict[str, _Failure] = {}  # command family -> the failure waiting for its fix
    seen_commands: set[str] = set()

    def close_reply() -> None:
        nonlocal reply, reply_at
        if reply:
            out.turns.append(Turn("assistant", _cut("\n".join(reply)), reply_at))
        reply, reply_at = [], None

    for entry in entries:
        if entry.kind in ("user", "summary"):
            close_reply()
            if entry.kind == "user":
                out.prompts.append(entry.text)
                out.turns.append(Turn("user", _cut(entry.text), entry.at))
                out.statements.extend(statements_in(entry.text, entry.at, from_user=True))
            else:  # a compaction summary: the assistant's own digest; decisions in it count
                out.statements.extend(statements_in(entry.text, entry.at, from_user=False))
        elif entry.kind == "assistant":
            reply.append(entry.text)
            reply_at = reply_at or entry.at
            out.statements.extend(statements_in(entry.text, entry.at, from_user=False))
            for failure in failures.values():
                failure.said.extend(s for s in sentences(entry.text) if _CAUSE.search(s) and len(s) <= 300)
        elif entry.kind == "tool_call":
            reply_at = reply_at or entry.at
            command = _command(entry)
            if command:
                reply.append(f"[ran] {command}")
                calls[entry.tool_id or ""] = (command, command_purpose(command))
            elif entry.tool in EDIT_TOOLS and entry.file_path:
                path = entry.file_path.replace("\\", "/")
                if prefix and path.startswith(prefix.replace("\\", "/")):
                    path = path[len(prefix):]
                reply.append(f"[edited] {path}")
                for failure in failures.values():
                    if path not in failure.edited:
                        failure.edited.append(path)
        elif entry.kind == "tool_result" and entry.tool_id in calls:
            command, purpose = calls.pop(entry.tool_id or "")
            if purpose is None:
                continue
            family = _family(command)
            if _failed(entry):
                failures[family] = _Failure(command, _error_line(entry.text), entry.at)
                continue
            if command not in seen_commands:
                seen_commands.add(command)
                out.statements.append(Statement(
                    "snippet", f"{purpose.capitalize()} command that worked: `{command}`", entry.at, ("command", purpose)
                ))
            failure = failures.pop(family, None)
            if failure is not None and (failure.said or failure.edited):
                out.statements.append(_fix(failure, command, entry.at))
    close_reply()
    return out


def _fix(failure: _Failure, command: str, at: datetime | None) -> Statement:
    parts = [f"Fix: `{failure.command}` failed"]
    if failure.error:
        parts[0] += f' with "{failure.error}"'
    parts[0] += "."
    parts.extend(_finish(s) for s in failure.said[:2])
    if failure.edited:
        parts.append("Changed: " + ", ".join(failure.edited[:5]) + ".")
    parts.append(f"Then `{command}` passed.")
    return Statement("note", " ".join(parts), at, ("fix",))


def _cut(text: str) -> str:
    if len(text) <= MAX_TURN_CHARS:
        return text
    head = text[:MAX_TURN_CHARS]
    end = head.rfind("\n")
    head = head[: end if end > MAX_TURN_CHARS // 2 else MAX_TURN_CHARS]
    return f"{head}\n[… {len(text) - len(head)} characters not kept …]"
