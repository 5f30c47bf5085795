"""How commands print: rich tables on a terminal, plain lines when piped, JSON with --json;
progress on stderr; the exit codes every command shares.

On a terminal, tables are aligned and coloured (rich). Piped, a table is one line per row
with tab-separated columns and no colour, so `cut`, `grep` and `awk` work on it; a record
is `key: value` lines. `--json` prints one JSON document whatever stdout is. Messages and
progress go to stderr, so stdout holds only the result.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from server.errors import Call, reword_hints

# rich is imported inside the methods that draw on a terminal: 50-110 ms (console, table, progress) that
# piped output and a hook process (which imports this module through the CLI) never need.

#: Exit statuses (README "Exit codes").
OK = 0
PROBLEMS = 1  # the command ran and found something wrong (doctor, an import that did not verify, a copy that differs)
USAGE = 2  # the arguments, input or settings are invalid, or the store cannot be used as configured
NOT_FOUND = 3  # no such memory, thread or prompt
# Start-up faults (a MemvaultError's `exit_status`, server/errors.py): one line on stderr, no traceback.
STORE_UNWRITABLE = 4  # the data directory or database cannot be written now: read-only, not a folder, disk full, busy
STORE_DAMAGED = 5  # the database file is damaged or not a SQLite database
INSTALLATION = 6  # this Python has no SQLite driver that can load the sqlite-vec extension
INTERRUPTED = 130

#: Colours of memory states and check results on a terminal.
_STYLE = {"forgotten": "dim", "superseded": "yellow", "compressed": "cyan", "pinned": "bold magenta",
          "ok": "green", "warn": "yellow", "fail": "bold red", "info": "blue"}


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (list, tuple)):
        return ",".join(_plain(v) for v in value) or "-"
    if isinstance(value, float):
        return f"{value:g}"
    # one row per line: tabs and newlines inside a value would break the columns
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", " ")


class Output:
    """Where one command prints its result (stdout) and its messages and progress (stderr)."""

    def __init__(self, as_json: bool = False, stream: TextIO | None = None, err: TextIO | None = None,
                 tty: bool | None = None) -> None:
        self.as_json = as_json
        self.stream = stream or sys.stdout
        self.err = err or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self._console: Any = None

    @property
    def console(self) -> Any:
        if self._console is None:
            # lazy: rich, ~90 ms that `--help` and piped (JSON) output never need
            from rich.console import Console

            self._console = Console(file=self.stream, force_terminal=self.tty, highlight=False, soft_wrap=False)
        return self._console

    # -- results -----------------------------------------------------------------------
    def json(self, value: Any) -> None:
        self.stream.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None,
              wide: str | Sequence[str] | None = None, styles: Sequence[str | None] | None = None) -> None:
        """Rows under their column names. `wide`: the column(s) that take the spare width (and wrap);
        `styles`: a rich style per row (None: plain)."""
        if not self.tty:
            for row in rows:
                self.stream.write("\t".join(_plain(v) for v in row) + "\n")
            return
        # lazy: rich.table, ~70 ms, only for a table on a terminal
        from rich.table import Table

        table = Table(title=title, title_justify="left", header_style="bold", show_edge=False, pad_edge=False)
        wrapping = {wide} if isinstance(wide, str) else set(wide or ())
        for name in columns:
            table.add_column(name, overflow="fold", ratio=1 if name in wrapping else None,
                             no_wrap=name not in wrapping, style="dim" if name == "id" else None)
        for n, row in enumerate(rows):
            table.add_row(*(self._cell(v) for v in row), style=(styles[n] if styles else None))
        self.console.print(table)

    @staticmethod
    def _cell(value: Any) -> Any:
        # lazy: rich, ~90 ms that `--help` and piped (JSON) output never need
        from rich.text import Text

        # Text, never markup: a memory saying "[red]" or "[/]" is shown as written.
        return value if isinstance(value, Text) else Text(_plain(value) if not isinstance(value, str) else value)

    def record(self, pairs: Sequence[tuple[str, Any]], title: str | None = None) -> None:
        """A single item as `key: value` lines (aligned and bold keys on a terminal)."""
        if not self.tty:
            for key, value in pairs:
                self.stream.write(f"{key}: {_plain(value)}\n")
            return
        # lazy: rich.table, ~70 ms, only for a table on a terminal
        from rich.table import Table

        table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        for key, value in pairs:
            table.add_row(self._cell(key), self._cell(value))
        self.console.print(table)

    def text(self, text: str, wrap: bool = False) -> None:
        """A block of text (a memory's content, a prompt), as it is; `wrap`: on a terminal, each line wrapped
        at spaces to the terminal's width (the terminal itself would break it mid-word). Piped, never wrapped:
        a script gets the text as stored."""
        if wrap and self.tty:
            text = wrapped(text, self.console.width)
        self.stream.write(text if text.endswith("\n") else text + "\n")

    def heading(self, text: str) -> None:
        if self.tty:
            self.console.print(f"\n[bold]{_escape(text)}[/bold]")
        else:
            self.stream.write(f"\n# {text}\n")

    # -- messages and progress (stderr) ------------------------------------------------------
    def say(self, text: str) -> None:
        self.err.write(f"memvault: {terminal_words(text)}\n")
        self.err.flush()

    @contextmanager
    def progress(self, verb: str, noun: str = "memories", least: int = 500) -> Iterator[Callable[[int, int], None]]:
        """A callback `report(done, total)` for a long job: a bar on a terminal's stderr; otherwise a
        line per report when the job is at least `least` items (small ones finish before it helps)."""
        if not self.err.isatty():
            def line(done: int, total: int) -> None:
                if total >= least:
                    self.err.write(f"{verb} {done}/{total} {noun}\n")
                    self.err.flush()

            yield line
            return
        # lazy: rich.progress, ~90 ms, only for a bar on a terminal
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn(f"{verb} {{task.description}}"), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=Console(file=self.err), transient=False)
        task = bar.add_task(noun, total=None)
        with bar:
            yield lambda done, total: bar.update(task, completed=done, total=max(total, done))

    @contextmanager
    def working(self, what: str) -> Iterator[None]:
        """A spinner on a terminal's stderr while a one-step job runs; the time it took afterwards."""
        started = time.monotonic()
        if self.err.isatty():
            # lazy: rich, ~90 ms that `--help` and piped (JSON) output never need
            from rich.console import Console

            with Console(file=self.err).status(what):
                yield
        else:
            yield
        elapsed = time.monotonic() - started
        if elapsed >= 1:
            self.say(f"{what}: {elapsed:.1f} s")

    def styled(self, text: str, state: str) -> Any:
        """A table cell: `text` in the colour of `state` (a memory state or a check result) on a terminal."""
        if not self.tty:
            return text
        # lazy: rich, ~90 ms that `--help` and piped (JSON) output never need
        from rich.text import Text

        return Text(text, style=_STYLE.get(state.split(" ")[0], ""))


def wrapped(text: str, width: int) -> str:
    """`text` with every line longer than `width` wrapped at spaces, keeping its indentation (a list item's
    or a code line's); a word longer than the line (a URL, a hash) is broken, as the terminal would."""
    out = []
    for line in text.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        if len(line) <= width or len(indent) >= width // 2:
            out.append(line)
            continue
        out += textwrap.wrap(line, width, initial_indent="", subsequent_indent=indent, break_on_hyphens=False,
                             drop_whitespace=True, replace_whitespace=False) or [line]
    return "\n".join(out)


#: The service's other words for the MCP tools' arguments, as a person at a terminal gives them.
_PHRASES = (
    ("call again with dry_run=false", "run again with --apply"),
    ("needs ids: the memory ids to act on, as returned by recall",
     "needs --ids: the memory ids to act on, as `memvault list` or `memvault recall WORDS` shows them"),
    ("as returned by remember or recall", "as `memvault remember` prints them and `memvault list` shows them"),
)


def terminal_words(text: str) -> str:
    """A service message with its hints in the terminal's commands: the service words them for the
    assistant (`curate_memory(action="restore", ids=[4])`), a person at a terminal types `memvault restore 4`."""
    for mcp, terminal in _PHRASES:
        text = text.replace(mcp, terminal)
    return reword_hints(text, "`memvault list` or `memvault recall WORDS` shows current memory ids", _command)


def _command(call: Call) -> str:
    if call.action in ("restore", "pin", "unpin") and not call.others:  # the commands of their own
        return "`" + " ".join(["memvault", call.action, *call.ids]) + "`"
    words = ["memvault", "curate", call.action] + (["--ids", ",".join(call.ids)] if call.ids else [])
    for name, value in call.others.items():
        words += [f"--{name.replace('_', '-')}", value]
    return "`" + " ".join(words + (["--apply"] if call.apply else [])) + "`"


def _escape(text: str) -> str:
    # lazy: rich, ~90 ms that `--help` and piped (JSON) output never need
    from rich.markup import escape

    return escape(text)


def short(text: str, width: int = 100) -> str:
    """One line of at most `width` characters (the whole text is in `show`)."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
