"""The `memvault` command: `serve` (the default) runs the MCP stdio server; the rest are maintenance."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from server import __version__
from server.config import Settings
from server.errors import MemvaultError, SetupError


def _configure_logging(level: str) -> None:
    # stdout belongs to JSON-RPC: every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="memvault %(levelname)s %(name)s: %(message)s",
    )
    # Third-party chatter that would otherwise fill the host's log.
    for noisy in ("httpx", "sentence_transformers", "transformers", "torch", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _serve(settings: Settings) -> int:
    from pathlib import Path

    from server.app import build_server
    from server.config import repo_thread
    from server.service import MemoryService

    if settings.default_thread is None:
        # Claude Code and IDE agents start the server in the project: its repository
        # is the default thread (MEMVAULT_THREAD overrides).
        settings = settings.with_(default_thread=repo_thread(Path.cwd()))
    service = MemoryService.open(settings)
    logging.getLogger("memvault").info(
        "serving %s (data in %s, default thread: %s)", __version__, settings.home, settings.default_thread or "global"
    )
    try:
        build_server(service).run()
    finally:
        service.close()
    return 0


def _reembed(settings: Settings) -> int:
    from server.service import MemoryService

    service = MemoryService.open(settings, check_model=False)
    try:
        service.embedder.wait_ready(600)

        def progress(done: int, total: int) -> None:
            print(f"\rre-embedded {done}/{total}", end="", file=sys.stderr, flush=True)

        done = service.reembed(progress)
        print(f"\nre-embedded {done} memories with {service.embedder.model_id}", file=sys.stderr)
    finally:
        service.close()
    return 0


def _info(settings: Settings) -> int:
    from server.service import MemoryService

    service = MemoryService.open(settings, check_model=False)
    try:
        info = {
            "version": __version__,
            "home": str(settings.home),
            "database": str(settings.db_path),
            "namespace": settings.namespace,
            "embedding_model": service.store.get_meta("embedding_model"),
            **service.store.count(),
        }
    finally:
        service.close()
    print(json.dumps(info, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memvault", description="Long-term memory for coding assistants (MCP).")
    parser.add_argument("--version", action="version", version=f"memvault {__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("serve", help="run the MCP server on stdio (the default)")
    sub.add_parser("reembed", help="recompute every vector with the configured embedding model")
    sub.add_parser("info", help="print where the data lives and how many memories it holds")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SetupError as exc:
        print(f"memvault: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    command = args.command or "serve"
    handler = {"serve": _serve, "reembed": _reembed, "info": _info}[command]
    try:
        code = handler(settings)
    except MemvaultError as exc:
        print(f"memvault: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    if command == "serve":
        logging.shutdown()
        sys.stderr.flush()
        # The model loader is a daemon thread that may sit inside a heavy
        # import; exit at once rather than wait for interpreter teardown.
        os._exit(code)
    return code

if __name__ == "__main__":
    raise SystemExit(main())
