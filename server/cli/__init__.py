"""The `memvault` command: `serve` (the default) runs the MCP stdio server; the rest look after memory.

The commands live by concern:

    admin.py    the server and the store: serve, info, token, export, import, reembed, model, migrate, db
    memory.py   what a person does with memories: recall, list, show, remember, edit, forget, restore,
                pin, unpin, threads, stats, curate, prompts
    doctor.py   doctor: is this installation and store healthy, and what fixes what is not
    web         ui: the local web page (server/web)
    hooks       hook, hooks: automatic memory in Claude Code and Cursor (server/hooks/command.py)

Each registers its parsers with a `run(settings, args, out)` handler; main() reads the
settings, sets up logging (stderr only) and maps errors to the exit codes in output.py.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from typing import TYPE_CHECKING

from server import __version__
from server.cli.output import INTERRUPTED, NOT_FOUND, USAGE, Output
from server.config import Settings
from server.errors import MemvaultError, NotFound, SetupError
from server.hooks import command as hook_commands

if TYPE_CHECKING:
    import argparse


def _configure_logging(level: str) -> None:
    # stdout belongs to JSON-RPC (serve) or to the command's result: every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="memvault %(levelname)s %(name)s: %(message)s",
    )
    # Third-party chatter that would otherwise fill the host's log.
    for noisy in ("httpx", "sentence_transformers", "transformers", "torch", "mcp", "uvicorn.error"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def parser() -> argparse.ArgumentParser:
    import argparse  # lazy: with gettext and locale ~2 ms of every hook's CPU, and a hook never parses with it

    # The commands load here, not at the top: `memvault hook` (run by the host on every prompt) skips the
    # parser, and importing them would add ~40 ms to its ~70 ms (python -X importtime, 2 cores).
    from server.cli import admin, doctor, memory
    from server.cli import ui as web_command

    top = argparse.ArgumentParser(
        prog="memvault", description="Long-term memory for coding assistants (MCP).",
        epilog="Exit status: 0 done, 1 problems found (doctor, import, migrate), 2 invalid arguments, input or "
        "settings, 3 no such memory, thread or prompt, 4 the data directory or store cannot be written (read-only, "
        "not a folder, disk full, busy), 5 a damaged store, 6 no usable SQLite driver, 130 interrupted.",
    )
    top.add_argument("--version", action="version", version=f"memvault {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON (for scripts) instead of a table")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    admin.add_parsers(sub, common)
    memory.add_parsers(sub, common)
    doctor.add_parser(sub, common)
    web_command.add_parser(sub)
    hook_commands.add_parsers(sub)
    for name in ("hook", "hooks"):
        sub.choices[name].set_defaults(run=lambda settings, args, out: hook_commands.run(args))
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        # Hosts run this on every prompt: skip the rest of the CLI (time), and never exit
        # non-zero, not even on a bad setting or argument (exit 2 would block the prompt).
        return hook_commands.hook_main(argv[1:])
    # A stdio server's imports make ~135k objects the cyclic collector tracks (the MCP SDK's pydantic
    # models, ours) and keep all but ~1k of them, so its passes over them, again and again as they grow,
    # free almost nothing: with it off until `initialize` is answered (admin._serve turns it back on)
    # the server's CPU up to that reply fell 1.07 -> 0.91 s (median of 6 spawns, load 7). Every other
    # command turns it back on once its arguments are parsed.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _command(argv, collecting)
    finally:
        if collecting:
            gc.enable()


def _command(argv: list[str], collecting: bool) -> int:
    args = parser().parse_args(argv)
    command = args.command or "serve"
    if collecting and (command != "serve" or getattr(args, "http", False)):
        gc.enable()
    out = Output(as_json=getattr(args, "json", False))
    try:
        settings = Settings.from_env()
    except SetupError as exc:
        if command == "doctor":  # a bad setting is what doctor is for: it reports it with the others
            from server.cli.doctor import run_without_settings  # loaded by parser() already; lazy as above

            return run_without_settings(exc, out)
        out.say(str(exc))
        return USAGE
    # A person at a terminal wants the result, not the store's INFO chatter (migrations applied,
    # files re-indexed); the servers keep their log level, and MEMVAULT_LOG_LEVEL wins when set.
    quiet = command not in ("serve", "ui") and not os.environ.get("MEMVAULT_LOG_LEVEL")
    _configure_logging("WARNING" if quiet else settings.log_level)
    if args.command is None:
        from server.cli.admin import serve  # loaded by parser() already; lazy as above

        run = serve
    else:
        run = args.run
    try:
        code = run(settings, args, out)
    except NotFound as exc:
        out.say(str(exc))
        code = NOT_FOUND
    except MemvaultError as exc:
        # One line that says what is wrong, where and what to do; the status says which kind of
        # problem it is (output.py, README "Exit codes"). No traceback: nothing here is a bug.
        out.say(str(exc))
        code = getattr(exc, "exit_status", USAGE)
    except KeyboardInterrupt:
        code = INTERRUPTED
    except BrokenPipeError:  # `memvault list | head`: the reader is gone, which is not an error
        # Point stdout at nothing, or the flush at exit raises the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    if command == "serve":
        logging.shutdown()
        sys.stderr.flush()
        # The model loader is a daemon thread that may sit inside a heavy
        # import; exit at once rather than wait for interpreter teardown.
        os._exit(code)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
