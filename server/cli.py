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
            "database": service.db.path if settings.database_url else str(settings.db_path),
            "namespace": settings.namespace,
            "embedding_model": service.store.get_meta("embedding_model"),
            **service.store.count(),
        }
    finally:
        service.close()
    print(json.dumps(info, indent=2))
    return 0


def _progress(verb: str):  # noqa: ANN202 - a small closure
    def report(done: int, total: int) -> None:
        if total >= 500:  # small stores finish before a bar would help
            print(f"\r{verb} {done}/{total} memories", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return report


def _export(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from server import archive
    from server.curator import Curator
    from server.service import MemoryService

    if args.output == "-" and args.split_by_month:
        print("memvault: --split-by-month writes several files; give -o a folder, not '-'", file=sys.stderr)
        return 2
    service = MemoryService.open(settings, check_model=False)
    try:
        documents = archive.export(
            service, args.thread, args.since, args.until, args.split_by_month, _progress("exported")
        )
        if args.output == "-":
            sys.stdout.write(archive.dump(documents["archive.json"]))
            return 0
        stamp = service.clock().strftime("%Y-%m-%dT%H%M%S")
        default = settings.archives_dir / (f"memvault-{stamp}" + ("" if args.split_by_month else ".json"))
        written = archive.write(documents, Path(args.output) if args.output else default)
        count = sum(len(d["payload"]["memories"]) for d in documents.values())
        Curator(service).log(f"export: {count} memories to {', '.join(str(p) for p in written)}")
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
    finally:
        service.close()
    return 0


def _import(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from server import archive
    from server.curator import Curator
    from server.service import MemoryService

    target = Path(args.file)
    paths = archive.archive_files(target) if target.is_dir() else [target]
    if not paths or not all(p.is_file() for p in paths):
        print(f"memvault: {target} is not an archive file or a folder of split archives", file=sys.stderr)
        return 2
    service = MemoryService.open(settings, check_model=False)
    reports = []
    try:
        for path in paths:
            report = archive.import_file(service, path, commit=not args.dry_run, progress=_progress("imported"))
            if not args.dry_run:
                c = report["counts"]
                Curator(service).log(
                    f"import: {c['imported']} memories from {path.name}, {c['already_present']} already present; "
                    f"verified {c['verified']}/{c['in_archive']} content hashes"
                )
            reports.append({"archive": str(path), "dry_run": args.dry_run, **report["counts"], "files": report["files"]})
    finally:
        service.close()
    print(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
    return 0 if all(r.get("verify_failed", 0) == 0 for r in reports) else 1


def _migrate(args: argparse.Namespace) -> int:
    from server import migrate

    return migrate.main(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memvault", description="Long-term memory for coding assistants (MCP).")
    parser.add_argument("--version", action="version", version=f"memvault {__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("serve", help="run the MCP server on stdio (the default)")
    sub.add_parser("reembed", help="recompute every vector with the configured embedding model")
    sub.add_parser("info", help="print where the data lives and how many memories it holds")
    ex = sub.add_parser("export", help="write the store (or a thread / date range) to a JSON archive")
    ex.add_argument("--thread", help="only this thread ('global' for global memories)")
    ex.add_argument("--since", help="only memories created at or after this ISO-8601 date")
    ex.add_argument("--until", help="only memories created at or before this ISO-8601 date")
    ex.add_argument("-o", "--output", help="archive file ('-' = stdout; a folder with --split-by-month); "
                    "default: a new file in $MEMVAULT_HOME/archives/")
    ex.add_argument("--split-by-month", action="store_true", help="one archive per month of creation (YYYY/YYYY-MM.json)")
    im = sub.add_parser("import", help="restore a JSON archive (idempotent; verified after import)")
    im.add_argument("file")
    im.add_argument("--dry-run", action="store_true", help="check the archive and report what would be imported")
    mg = sub.add_parser(
        "migrate", help="copy a store to another backend (SQLite <-> PostgreSQL), resumable, verified",
        description="Copy every namespace (or those named) exactly, ids and vectors kept; verified by counts and "
        "hashes at the end. Exit status: 0 copied and verified, 1 the copy differs, 2 refused (nothing written "
        "for that reason). See docs/postgres.md.",
    )
    mg.add_argument("--from", dest="source", required=True, metavar="SRC",
                    help="SQLite file or postgresql:// URL to copy from")
    mg.add_argument("--to", dest="target", required=True, metavar="DST", help="SQLite file or postgresql:// URL (application role) "
                    "to copy into; run the same command again to resume an interrupted copy")
    mg.add_argument("--namespace", action="append", metavar="NS", help="copy only this namespace (tenant); repeatable. "
                    "Default: every namespace of the source")
    mg.add_argument("--admin-url", metavar="URL", help="a superuser's postgresql:// URL, only to list a PostgreSQL source's tenants "
                    "(row-level security hides them from the application role)")
    mg.add_argument("--batch-size", type=int, default=500, metavar="N", help="memories per transaction (default 500)")
    from server.pg import commands as db_commands  # imports no driver until a db command runs

    db_commands.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SetupError as exc:
        print(f"memvault: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    command = args.command or "serve"
    handler = {
        "serve": _serve, "reembed": _reembed, "info": _info,
        "export": lambda s: _export(s, args), "import": lambda s: _import(s, args),
        "db": lambda s: db_commands.run(s, args),
        "migrate": lambda s: _migrate(args),
    }[command]
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
