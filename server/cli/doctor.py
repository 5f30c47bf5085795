"""`memvault doctor`: the checks of server.doctor as a table (or JSON), the exit status, and `--fix`."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from server.cli.output import OK, PROBLEMS, Output
from server.compose import open_service
from server.config import Settings
from server.doctor import Check, checks, install


def report(found: list[Check], out: Output) -> int:
    if out.as_json:
        out.json({"ok": not any(c.status == "fail" for c in found), "checks": [asdict(c) for c in found]})
    else:
        out.table(["check", "result", "detail", "fix"],
                  [[c.name, out.styled(c.status, c.status), c.detail, c.fix or ""] for c in found], wide=("detail", "fix"))
        failed = sum(c.status == "fail" for c in found)
        warned = sum(c.status == "warn" for c in found)
        out.say("all well" + (f" ({warned} warning(s))" if warned else "") if not failed else
                f"{failed} problem(s) found" + (f", {warned} warning(s)" if warned else "") + "; see the fix column")
    return PROBLEMS if any(c.status == "fail" for c in found) else OK


def run(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    if args.fix:
        fix(settings, out)
    return report(checks(settings), out)


def fix(settings: Settings, out: Output) -> None:
    """The repairs a server start makes: index drift (at open), then the embedding backlog."""
    service = open_service(settings)
    try:
        with out.progress("embedded", least=1) as progress:
            done = service.embed_backlog(progress, model_wait=120)
        out.say(f"repaired the index where it drifted; embedded {done} waiting memories")
    finally:
        service.close()


def run_without_settings(error: Exception, out: Output) -> int:
    """A setting is invalid: report it as the failed check it is, with what else can be checked."""
    found = [install(), Check("settings", "fail", str(error), "fix that environment variable (README: Settings)")]
    return report(found, out)


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "doctor", parents=[common], help="check the installation and the store; each problem with its fix",
        description="Checks the install, SQLite and its extension, the model export, the data directory and its "
        "permissions, free disk, database integrity, index drift, installed hooks and MCP client configurations. "
        "Exit status 0: all well (warnings allowed), 1: a check failed.",
    )
    p.add_argument("--fix", action="store_true",
                   help="first repair index drift and embed waiting memories (loads the model), then check")
    p.set_defaults(run=run)
