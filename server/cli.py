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

    from server.app import build_server, run_stdio
    from server.config import repo_thread
    from server.service import MemoryService

    if settings.default_thread is None:
        # Claude Code and IDE agents start the server in the project: its repository
        # is the default thread (MEMVAULT_THREAD overrides).
        settings = settings.with_(default_thread=repo_thread(Path.cwd()))
    # Said first, before anything can fail: hosts start servers with their own environment,
    # and two hosts that disagree about MEMVAULT_HOME would otherwise keep two stores unawares.
    origin = "MEMVAULT_HOME" if os.environ.get("MEMVAULT_HOME") else "the default; set MEMVAULT_HOME to choose"
    logging.getLogger("memvault").info("data directory: %s (%s)", settings.home, origin)
    service = MemoryService.open(settings)
    logging.getLogger("memvault").info(
        "serving %s (data in %s, default thread: %s)", __version__, settings.home, settings.default_thread or "global"
    )
    from server.hooks import relay

    hooks = relay.start(service, settings)  # hooks of this store ask this process instead of loading memvault
    try:
        run_stdio(build_server(service))
    finally:
        if hooks is not None:
            hooks.close()
        service.close()
    return 0


def _serve_http(settings: Settings, args: argparse.Namespace) -> int:
    from server.http import transport as http_transport

    if args.auth:
        settings = settings.with_(http_auth=args.auth)
    host = args.host if args.host is not None else settings.http_host
    port = args.port if args.port is not None else settings.http_port
    http_transport.serve(settings, host, port)
    return 0


def _token(settings: Settings, args: argparse.Namespace) -> int:
    from server.storage.opener import open_database
    from server.clock import system_clock, to_millis
    from server.embedding.embedders import make_embedder
    from server.http.tokens import TokenStore

    # The server's own store (SQLite file or MEMVAULT_DATABASE_URL); a first command on a
    # fresh home creates the SQLite store as the server would.
    db = open_database(settings, make_embedder(settings.embedder, settings.embed_threads, settings.embed_runtime, settings.model_cache).dimensions)
    try:
        tokens = TokenStore(db)
        now = to_millis(system_clock())
        if args.token_command == "create":
            token, info = tokens.create(args.tenant, args.user, args.agent, args.label, args.expires)
            print(
                f"created token {info.id} for tenant {info.tenant} (user {info.user or '-'}, agent "
                f"{info.agent or '-'}, expires {info.as_dict(now)['expires_at'] or 'never'}). It is shown only "
                "now: store it where your MCP client reads it (Authorization: Bearer <token>).",
                file=sys.stderr,
            )
            print(token)
        elif args.token_command == "list":
            print(json.dumps([t.as_dict(now) for t in tokens.list()], indent=2))
        else:
            print(json.dumps(tokens.revoke(args.id).as_dict(now), indent=2))
    finally:
        db.close()
    return 0


def _dimensions(settings: Settings) -> int:
    """The configured embedder's vector size, without loading a model (MiniLM: 384)."""
    from server.embedding.embedders import HashEmbedder

    return HashEmbedder().dimensions if settings.embedder == "hash" else 384


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
            "embedding_runtime": settings.embed_runtime if settings.embedder == "minilm" else settings.embedder,
            "onnx_export": _onnx_export_state(settings),
            **service.store.count(),
        }
    finally:
        service.close()
    print(json.dumps(info, indent=2))
    return 0


def _onnx_export_state(settings: Settings) -> str:
    from server.embedding import export as modelprep

    folder = modelprep.cache_dir({"MEMVAULT_MODEL_CACHE": str(settings.model_cache)} if settings.model_cache else None)
    try:
        problem = modelprep.problem(folder, thorough=False)
    except Exception as exc:  # noqa: BLE001 - info must print even when the weights are missing
        problem = f"{type(exc).__name__}: {exc}"
    return f"ready: {folder / modelprep.ONNX_FILE}" if problem is None else f"{problem} ({folder}; run `memvault model prepare`)"


def _model(settings: Settings, args: argparse.Namespace) -> int:
    """`memvault model prepare`: the one-time ONNX export (this process may import torch; the server never does)."""
    from server.embedding import export as modelprep

    argv = ["--force"] if args.force else []
    if settings.model_cache is not None:
        argv += ["--cache", str(settings.model_cache)]
    return modelprep.main(argv)


def _progress(verb: str):  # noqa: ANN202 - a small closure
    def report(done: int, total: int) -> None:
        if total >= 500:  # small stores finish before a bar would help
            print(f"\r{verb} {done}/{total} memories", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return report


def _export(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from server.curation import archive
    from server.curation.curator import Curator
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

    from server.curation import archive
    from server.curation.curator import Curator
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
            c = report.counts
            if not args.dry_run:
                Curator(service).log(
                    f"import: {c.imported} memories from {path.name}, {c.already_present} already present; "
                    f"verified {c.verified}/{c.in_archive} content hashes"
                )
            reports.append(
                {"archive": str(path), "dry_run": args.dry_run, **c.as_dict(), "files": report.files.as_dict()}
            )
        if not args.dry_run and not args.no_embed:
            # Vectors now, in full batches, rather than leaving the backlog to the
            # next server start (interrupting is safe: the queue is durable).
            service.embed_backlog(_progress("embedded"))
    finally:
        service.close()
    print(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
    return 0 if all(r.get("verify_failed", 0) == 0 for r in reports) else 1


def _migrate(args: argparse.Namespace) -> int:
    from server.storage import copy as migrate

    return migrate.main(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        # Hosts run this on every prompt: skip the rest of the CLI (time), and never exit
        # non-zero, not even on a bad setting or argument (exit 2 would block the prompt).
        from server.hooks.command import hook_main

        return hook_main(argv[1:])
    parser = argparse.ArgumentParser(prog="memvault", description="Long-term memory for coding assistants (MCP).")
    parser.add_argument("--version", action="version", version=f"memvault {__version__}")
    sub = parser.add_subparsers(dest="command")
    sv = sub.add_parser("serve", help="run the MCP server on stdio (the default), or over HTTP with --http")
    sv.add_argument("--http", action="store_true", help="serve MCP over streamable HTTP at http://HOST:PORT/mcp")
    sv.add_argument("--host", help="with --http: address to bind (default 127.0.0.1, MEMVAULT_HTTP_HOST)")
    sv.add_argument("--port", type=int, help="with --http: port (default 8765, MEMVAULT_HTTP_PORT; 0 = any free port)")
    sv.add_argument("--auth", choices=("tokens", "oauth", "none"),
                    help="with --http: bearer tokens (default, MEMVAULT_HTTP_AUTH), oauth (an identity provider) or none (loopback only)")
    tk = sub.add_parser("token", help="create, list or revoke bearer tokens for `serve --http`")
    tks = tk.add_subparsers(dest="token_command", required=True)
    tc = tks.add_parser("create", help="create a token (printed once on stdout; only its hash is stored)")
    tc.add_argument("--tenant", required=True, help="the tenant (namespace) whose memories the token reads and writes")
    tc.add_argument("--user", help="the person it is for (recorded as the origin of what it writes)")
    tc.add_argument("--agent", help="the assistant or bot using it, e.g. claude-code or ci")
    tc.add_argument("--expires", help="lifetime (30d, 12h, 2w, 1y) or an ISO-8601 date; default: never")
    tc.add_argument("--label", help="a note for `token list`, e.g. 'laptop'")
    tks.add_parser("list", help="list tokens (ids, tenants, states; never the tokens themselves)")
    tr = tks.add_parser("revoke", help="revoke a token at once (running servers refuse it from the next request)")
    tr.add_argument("id", type=int, help="the token id from `token list`")
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
    from server.storage import opener  # imports no driver until a db command runs

    opener.add_database_commands(sub)
    im.add_argument("--no-embed", action="store_true",
                    help="leave the vectors to the server's background backfill (keyword search works at once)")
    from server.hooks import command as hook_commands

    hook_commands.add_parsers(sub)
    mo = sub.add_parser("model", help="prepare the embedding model (the one-time ONNX export)")
    mo.add_argument("action", choices=["prepare"], help="export the model to ONNX unless a valid export exists")
    mo.add_argument("--force", action="store_true", help="export again even if the cached export is valid")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SetupError as exc:
        print(f"memvault: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    command = args.command or "serve"
    if command == "serve" and not getattr(args, "http", False):
        if any(getattr(args, name, None) is not None for name in ("host", "port", "auth")):
            print("memvault: --host, --port and --auth apply to `serve --http` only", file=sys.stderr)
            return 2
    handler = {
        "serve": (lambda s: _serve_http(s, args)) if getattr(args, "http", False) else _serve,
        "reembed": _reembed, "info": _info, "token": lambda s: _token(s, args),
        "export": lambda s: _export(s, args), "import": lambda s: _import(s, args),
        "db": lambda s: opener.run_database_command(s, args, _dimensions(s)),
        "model": lambda s: _model(s, args),
        "migrate": lambda s: _migrate(args),
        "hooks": lambda s: hook_commands.run(args),
    }[command]
    try:
        code = handler(settings)
    except MemvaultError as exc:
        # One line that says what is wrong, where and what to do; the status says which kind
        # of problem it is (README, "Exit status"). No traceback: nothing here is a bug.
        print(f"memvault: {exc}", file=sys.stderr)
        code = getattr(exc, "exit_status", 2)
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
