"""The command lines: `memvault hook EVENT` (what hosts run) and `memvault hooks install|uninstall|status`.

cli.py only wires these in (add_parsers, run); the logic lives here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from server.hooks.protocol import EVENT_NAMES, EVENTS, HOSTS

if TYPE_CHECKING:  # annotations only: a hook reads its command line by hand (hook_arguments)
    import argparse


def add_parsers(sub: argparse._SubParsersAction) -> None:
    hk = sub.add_parser(
        "hook", help="run one host hook: read the host's JSON on stdin, answer on stdout (always exits 0)",
        description="What Claude Code and Cursor run at their lifecycle events (installed by `memvault hooks "
        "install`). session-start and prompt inject context; pre-compact, stop and session-end capture the "
        "transcript in a detached process. Errors never reach the host: they go to $MEMVAULT_HOME/hooks/hooks.log.",
    )
    _hook_arguments(hk)
    hs = sub.add_parser("hooks", help="install, remove or show memvault's hooks in Claude Code or Cursor")
    hs.add_argument("action", choices=("install", "uninstall", "status"))
    hs.add_argument("--host", choices=HOSTS, default="claude-code", help="which host's configuration (default claude-code)")
    hs.add_argument("--scope", choices=("user", "project"), default="user",
                    help="user: every project (~/.claude/settings.json, ~/.cursor/hooks.json); "
                    "project: this folder's .claude/settings.json or .cursor/hooks.json")
    hs.add_argument("--print", dest="print_only", action="store_true",
                    help="print the configuration that would be written, change nothing")
    hs.add_argument("--uninstall", action="store_true", help="same as the uninstall action")
    hs.add_argument("--project-dir", default=".", help="the project folder for --scope project (default: here)")


def _hook_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", choices=sorted(EVENT_NAMES), metavar="EVENT",
                        help=f"{', '.join(EVENTS)}, or the host's own name (SessionStart, UserPromptSubmit, "
                        "beforeSubmitPrompt, ...)")
    parser.add_argument("--host", choices=HOSTS, help="the host that runs it (default: recognised from the input)")
    # Written by `memvault hooks install`: the hooks use the store of the installation, whatever
    # environment the host gives them (a host passes its MCP server's `env` block to the server only).
    parser.add_argument("--home", help="the data directory (overrides MEMVAULT_HOME)")
    parser.add_argument("--namespace", help="the namespace (overrides MEMVAULT_NAMESPACE)")
    parser.add_argument("--foreground", action="store_true",
                        help="capture in this process instead of a detached one (tests, debugging)")


def run(args: argparse.Namespace) -> int:
    if args.command == "hook":
        return _hook(args.event, args.host, args.foreground, args.home, args.namespace)
    from server.hooks import install  # lazy: ~14 ms that a hook event never needs

    action = "uninstall" if args.uninstall else args.action
    target = install.config_path(args.host, args.scope, Path(args.project_dir))
    if action == "status":
        print(json.dumps(install.status(args.host, target), indent=2))
        return 0
    store = None
    if action == "install":
        project = Path(args.project_dir).resolve()
        store = install.resolve_store(args.host, project)
        print(f"memvault: the hooks will use the store in {store} ({store.why})", file=sys.stderr)
        for server in install.server_stores(args.host, project):
            if not server.same(store):
                print(f"memvault: warning: {server.why} uses {server}, the hooks {store}: they would not share "
                      "memories. Set the same MEMVAULT_HOME in both (or unset it in both), then install again",
                      file=sys.stderr)
    change = install.plan(args.host, target, remove=action == "uninstall", store=store)
    if args.print_only:
        sys.stdout.write(change.text)
        return 0
    written = install.apply(change)
    verb = "removed memvault's hooks from" if action == "uninstall" else "installed memvault's hooks in"
    if not written:
        print(f"memvault: nothing to change in {target} ({'no memvault hooks there' if action == 'uninstall' else 'already installed'})",
              file=sys.stderr)
    else:
        backup = f" (backup: {change.backup})" if change.backup else ""
        print(f"memvault: {verb} {target}{backup}", file=sys.stderr)
        if action == "install":
            print(f"memvault: open a new {'Claude Code session' if args.host == 'claude-code' else 'Cursor chat'}; "
                  "`memvault hooks status` shows what is installed", file=sys.stderr)
    return 0


def _hook(event: str, host: str | None, foreground: bool, home: str | None = None, namespace: str | None = None) -> int:
    from server.hooks.run import log_warnings_to_file, main  # lazy: ~7 ms every other CLI command skips

    # Into the environment, not only into Settings: the detached capture inherits it.
    if home:
        os.environ["MEMVAULT_HOME"] = home
    if namespace:
        os.environ["MEMVAULT_NAMESPACE"] = namespace
    log_warnings_to_file()
    return main(event, host, foreground)


def hook_main(argv: list[str]) -> int:
    """`memvault hook EVENT ...` (cli's fast path) and `python -m server.hooks EVENT ...` (the detached capture)."""
    args = hook_arguments(argv)
    if args is None:
        return 0  # fail open even on a bad command line
    return _hook(args["event"], args["host"], args["foreground"], args["home"], args["namespace"])


#: The hook's options that take a value (_hook_arguments), by the name hook_arguments returns them under.
_VALUED = {"--host": "host", "--home": "home", "--namespace": "namespace"}


def hook_arguments(argv: list[str]) -> dict | None:
    """What _hook_arguments' parser reads from a hook's command line (`--opt value` or `--opt=value`), read
    by hand: building that parser cost every hook ~5 ms of CPU (argparse imports shutil and locale for a
    help text a hook never prints). None when the parser would refuse the line (or print its help)."""
    found: dict = {"event": None, "host": None, "home": None, "namespace": None, "foreground": False}
    items = iter(argv)
    for item in items:
        name, equals, value = item.partition("=")
        if item == "--foreground":
            found["foreground"] = True
        elif name in _VALUED:
            if not equals:
                value = next(items, None)
                if value is None or value.startswith("-"):
                    return None
            found[_VALUED[name]] = value
        elif item.startswith("-") or found["event"] is not None:
            return None
        else:
            found["event"] = item
    if found["event"] not in EVENT_NAMES or found["host"] not in (None, *HOSTS):
        return None
    return found
