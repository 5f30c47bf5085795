"""Shell commands in a transcript: what each is for, whether it failed, and the lines of its output that say why.

A command's purpose (test, lint, build, run …) decides whether it is worth remembering as a
"command that worked"; one-off looks around (`ls`, `which`, `git status`) never are. A
failed command's output is cut to its telling lines: the named error for a fix note, and
the error codes, hints and versions for the turn.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

# Compiled on first use: every injecting hook imports this module (inject.py classifies the commands
# it brings back), and compiling its 20-odd patterns up front cost ~6 ms of each hook process.
from server.guard.lazyre import LazyRe as _LazyRe

if TYPE_CHECKING:  # only in annotations: the injecting hooks (which read no transcript) skip the module
    from server.hooks.transcript import Entry

# Shell tools of the hosts (Claude Code's Bash, Cursor's Shell / run_terminal_cmd).
SHELL_TOOLS = frozenset({"Bash", "Shell", "run_terminal_cmd", "bash", "shell"})


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


PURPOSES = (
    # Adding a dependency or a generated component: `pnpm add zod`, `npx shadcn@latest add dialog`, `pip install httpx`
    # (first: installing vitest is not running the tests).
    ("install", _LazyRe(r"\b(?:(?:npm|pnpm|yarn|bun) (?:add|install|i)|ni|pip3? install|uv (?:add|pip install)|poetry add|cargo add"
                           r"|go get|gem install|bundle add|composer require|dotnet add package)(?:\s+--?(?!e\b|r\b|editable\b|requirement)[\w-]+)*\s+[@\w]"
                           r"|\bnpx [\w@/.-]+ (?:add|install)\s+\w")),
    ("test", _LazyRe(r"\b(?:pytest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|unittest|go test|cargo (?:test|nextest)"
                        r"|(?:npm|pnpm|yarn|bun) (?:run )?test\S*|make (?:test|check)\S*|gradle\w* test|mvn\S* test|dotnet test|mix test|rake test|bundle exec rspec)\b")),
    ("lint", _LazyRe(r"\b(?:ruff(?: check)?|flake8|pylint|eslint|golangci-lint|cargo clippy|rubocop|shellcheck|(?:npm|pnpm|yarn|bun) (?:run )?lint\S*|make lint)\b")),
    ("format", _LazyRe(r"\b(?:ruff format|black|prettier|gofmt|rustfmt|cargo fmt|(?:npm|pnpm|yarn|bun) (?:run )?format\S*)\b")),
    ("type-check", _LazyRe(r"\b(?:mypy|pyright|tsc|(?:npm|pnpm|yarn|bun) (?:run )?typecheck\S*)\b")),
    # Cleaning caches and build output before a rebuild: `rm -rf .next`, `cargo clean`, `npm cache clean`.
    ("clean", _LazyRe(r"\brm -(?:rf|fr|r)\s+(?:\S*/)?(?:\.next|\.nuxt|\.turbo|\.cache|\.parcel-cache|\.pytest_cache|\.mypy_cache"
                         r"|__pycache__|node_modules|dist|build|target|out|\.svelte-kit|\.vite)\b"
                         r"|\b(?:cargo|go|make|dotnet) clean\b|\b(?:npm|pnpm|yarn) cache clean")),
    ("build", _LazyRe(r"\b(?:make(?: \w+)?|cargo build|go build|(?:npm|pnpm|yarn|bun) (?:run )?build\S*|gradle\w* build|mvn\S* (?:package|install)"
                         r"|dotnet build|docker(?: compose)? build|cmake --build|pip install -e|uv sync|poetry install|(?:npm|pnpm|yarn) install|bazel build)\b")),
    # Putting a change live on a server: reload or restart a service, deploy.
    ("reload", _LazyRe(r"\b(?:systemctl|service \S+|rc-service \S+) (?:reload|force-reload)\b|\bnginx -s reload\b"
                          r"|\b(?:pm2|supervisorctl|caddy|apachectl|apache2ctl) (?:reload|graceful)\b")),
    ("restart", _LazyRe(r"\b(?:systemctl|service \S+|rc-service \S+|brew services|pm2|supervisorctl) restart\b"
                           r"|\bdocker(?:-| )compose\b.*\b(?:restart|up)\b|\bdocker (?:container )?restart\b"
                           r"|\bkubectl rollout restart\b")),
    ("deploy", _LazyRe(r"\b(?:fly|flyctl|vercel|netlify|firebase|wrangler|serverless|sls|cdk|railway|convex|npx convex|"
                          r"gcloud app|eb|heroku) deploy\b|\bvercel --prod\b|\bkubectl apply\b|\bhelm (?:upgrade|install)\b"
                          r"|\bterraform apply\b|\bgit push heroku\b")),
    # Running the program itself: `node src/index.ts`, `python -m app`, `npm run dev`, `cargo run`.
    ("run", _LazyRe(r"(?:^|&&\s*|;\s*)(?:node|deno run|bun(?: run)?|tsx|npx tsx|ts-node|python3?|uv run|poetry run|go run|cargo run"
                       r"|(?:npm|pnpm|yarn) (?:run )?(?:start|dev|serve)|flask run|uvicorn|rails (?:s|server))\s+(?!-[ce]\b)\S")),
)
# Looks around, not work: never a "command that worked", whatever follows them.
_ONE_OFF = _LazyRe(
    r"^(?:which|where|type|file|ls|ll|tree|cat|less|head|tail|wc|grep|rg|ag|find|fd|echo|printf|pwd|env|printenv|ps|top|kill|pkill"
    r"|lsof|stat|du|df|sed -n|awk|jq|curl|wget|open|code|xdg-open|sleep|true|false|date|whoami|id|uname|history"
    r"|git (?:status|log|diff|show|branch|remote|rev-parse|blame|stash list)|node (?:-v|--version)|python3? (?:-V|--version)"
    r"|\w+ --?(?:version|help))\b"
)
_CD_PREFIX = _LazyRe(r"^cd\s+\S+\s*&&\s*")
_EXIT_CODE = _LazyRe(r"^Exit code (\d+)")


# A package manager other than the default one, chosen for the project: `pnpm add`, `yarn run`, `uv sync`.
_MANAGER = _LazyRe(r"(?:^|&&\s*|;\s*)(pnpm|yarn|bun|uv|poetry|pdm|pipenv)\s+"
                      r"(?:add|remove|rm|install|i|run|test|build|dev|sync|lock|exec|dlx|why|update|upgrade)\b")


def package_manager(command: str) -> str | None:
    """The package manager a command shows the project uses (pnpm, yarn, bun, uv, poetry …), if any."""
    found = _MANAGER.search(command)
    return found.group(1) if found else None


def command_purpose(command: str) -> str | None:
    if _ONE_OFF.match(command):
        return None
    for purpose, pattern in PURPOSES:
        if pattern.search(command):
            return purpose
    return None


def shell_command(entry: Entry) -> str | None:
    """The shell command of a tool call, without a leading `cd DIR &&` (the repository is the thread)."""
    if entry.tool not in SHELL_TOOLS or not entry.command:
        return None
    command = _CD_PREFIX.sub("", entry.command.strip())
    if "\n" in command or len(command) > 200:
        return None
    return command


def command_failed(result: Entry) -> bool:
    code = _EXIT_CODE.match(result.text)
    return result.is_error or (code is not None and code.group(1) != "0")


def command_family(command: str) -> str:
    """What counts as "the same command" when it passes after failing: its first two words."""
    return " ".join(command.split()[:2])


_ERROR_LINE = _LazyRe(r"\b(?:error|Error|ERROR|FAILED|Failed|failed|Exception|exception|not found|cannot|Cannot|No module)\b")
# The line that names the error, not a tally of it ("1 failed in 0.41s", "Found 2 errors.").
_ERROR_NAMED = _LazyRe(r"\b\w*(?:Error|Exception)\b[:\s]|\bERR_[A-Z_]+|\berror(?:\[\w+\])?:|fatal error|\bpanic:|\bE\s{2,}\S")
_TALLY = _LazyRe(
    r"^\W*(?:=+\s*)?(?:\d+ (?:failed|errors?|passed|warnings?|skipped)[, ]*)+(?:in [\d.]+\s*s)?\W*(?:=+)?$"
    r"|^(?:Found|\d+) \d* ?(?:errors?|problems?)\b|^(?:npm (?:error|ERR!) (?:code|A complete log)|gyp ERR! (?:not ok|stack))"
    r"|^(?:error: )?(?:Command failed|Process completed) with exit code|^\s*at \S+ \(|^\s*File \"",
    re.IGNORECASE,
)


# Lines of a failed command's output worth keeping besides the named error: codes, hints, versions.
_SALIENT = _LazyRe(
    r"\b(?:hint|note|help|warning|warn|requires?|required|expected|supported|unsupported|incompatible|version|denied"
    r"|refused|timed? ?out|missing|invalid|unknown|unable|could not|couldn't|no such|does not exist|doesn't exist)\b"
    r"|\b[A-Z]{1,6}[-_]?\d{2,5}\b|\bv?\d+\.\d+(?:\.\d+)?\b|\b(?:exit|status) (?:code )?\d+", re.IGNORECASE)
_FRAME = _LazyRe(r"^\s*(?:at \S+|File \"|\^+\s*$|~+\s*$)")
FAILED_LINES, FAILED_CHARS = 6, 600  # a failed command's output kept in its turn: at most this much


def salient_errors(output: str) -> str:
    """The lines of a failed command's output that say what went wrong (named errors, codes, hints,
    versions), in order, without stack frames or tallies, bounded; "" when none does."""
    kept: list[str] = []
    for raw in output.splitlines():
        line = " ".join(raw.split())
        if (not line or line in kept or _EXIT_CODE.match(line) or _FRAME.match(raw)
                or (_TALLY.search(line) and " code " not in line)  # "npm error code ERESOLVE" is no tally
                or not (_ERROR_NAMED.search(line) or _ERROR_LINE.search(line) or _SALIENT.search(line))):
            continue
        if len(kept) >= FAILED_LINES or sum(len(k) + 3 for k in kept) + min(len(line), 200) > FAILED_CHARS:
            break
        kept.append(_clip(line, 200))
    return " | ".join(kept)


def error_line(output: str) -> str:
    """The line of `output` that names its error: a named error over a generic "error" line, never a tally."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not _EXIT_CODE.match(ln.strip())]
    lines = [ln for ln in lines if not _TALLY.search(ln)] or lines
    named = [ln for ln in lines if _ERROR_NAMED.search(ln)]
    hits = named or [ln for ln in lines if _ERROR_LINE.search(ln)]
    line = (hits[-1] if hits else (lines[-1] if lines else "")).strip()
    # "Error parsing line 46 in /long/path.jsonl: TypeError: x is not a function": the named error is the news.
    inner = re.search(r"(?<=: )\w*(?:Error|Exception)\b:.+", line)
    return (inner.group(0) if inner else line)[:200]
