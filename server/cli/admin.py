"""The server and administration commands: serve, info, token, reembed, model, export, import, migrate, db.

`serve` (the default) runs the MCP stdio server; the rest keep the store. `info`, `token
list` and `import` print JSON when piped, as they always have (scripts read it), and a
table on a terminal; `--json` asks for JSON anywhere.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
from pathlib import Path

from server import __version__, stages
from server.cli.output import INTERRUPTED, OK, PROBLEMS, USAGE, Output
from server.clock import system_clock, to_millis
from server.compose import open_service, open_store_database
from server.config import Settings, repo_thread
from server.curation.curator import Curator
from server.doctor import dimensions
from server.embedding.embedders import MiniLMEmbedder
from server.hooks import relay
from server.http.tokens import TokenStore
from server.storage import opener  # imports no driver until a db command runs


def _collect_again() -> None:
    """The cyclic collector back on, once `initialize` is answered (cli.main turned it off for the start).

    Frozen first: the start's objects are kept for the process's life, and the first passes after
    `enable` would otherwise walk all of them (~50 ms of CPU, on the way to the first recall), as
    would every full pass after. The ~1k objects of garbage among them stay (a few hundred KB)."""
    gc.freeze()
    gc.enable()


def _serve(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    stages.mark("serve")
    from server.app import build_server, run_stdio  # lazy: mcp, ~0.8 s a CLI command other than serve never needs
    from server.app.stdio import FirstReply

    stages.mark("mcp imported")
    if settings.default_thread is None:
        # Claude Code and IDE agents start the server in the project: its repository
        # is the default thread (MEMVAULT_THREAD overrides).
        settings = settings.with_(default_thread=repo_thread(Path.cwd()))
    # Said first, before anything can fail: hosts start servers with their own environment,
    # and two hosts that disagree about MEMVAULT_HOME would otherwise keep two stores unawares.
    origin = "MEMVAULT_HOME" if os.environ.get("MEMVAULT_HOME") else "the default; set MEMVAULT_HOME to choose"
    logging.getLogger("memvault").info("data directory: %s (%s)", settings.home, origin)
    service = open_service(settings, check_index=False)  # checked after `initialize` (start_background)
    stages.mark("store open")
    # The model's load, the first vector search and the index check begin once `initialize` is answered
    # (first_reply), the model's load at once then. Begun here, beside the server's construction, they took
    # ~0.2-0.3 s of CPU and the GIL from it: spawn -> `initialize` was 1.5-1.6x a bare MCPServer's, now
    # 1.2-1.3x (bench/startup.py, load 9-11); spawn -> first hybrid recall at 1M memories moved 5.93 ->
    # 5.75 s (bench/first_recall.py, load 9): on a busy machine it is the CPU spent, whatever the order.
    first_reply = FirstReply(then=None if gc.isenabled() else _collect_again)
    logging.getLogger("memvault").info(
        "serving %s (data in %s, default thread: %s)", __version__, settings.home, settings.default_thread or "global"
    )
    hooks = relay.start(service, settings)  # hooks of this store ask this process instead of loading memvault
    try:
        run_stdio(build_server(service, first_reply=first_reply), first_reply)
    finally:
        if hooks is not None:
            hooks.close()
        service.close()
    return OK


def _serve_http(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    from server.http import transport as http_transport  # lazy: uvicorn and mcp, ~1.1 s only serve --http needs

    if args.auth:
        settings = settings.with_(http_auth=args.auth)
    host = args.host if args.host is not None else settings.http_host
    port = args.port if args.port is not None else settings.http_port
    http_transport.serve(settings, host, port)
    return OK


def _token(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    # The server's own store (SQLite file or MEMVAULT_DATABASE_URL); a first command on a
    # fresh home creates the SQLite store as the server would.
    db = open_store_database(settings)
    try:
        tokens = TokenStore(db)
        now = to_millis(system_clock())
        if args.token_command == "create":
            token, info = tokens.create(args.tenant, args.user, args.agent, args.label, args.expires)
            out.say(
                f"created token {info.id} for tenant {info.tenant} (user {info.user or '-'}, agent "
                f"{info.agent or '-'}, expires {info.as_dict(now)['expires_at'] or 'never'}). It is shown only "
                "now: store it where your MCP client reads it (Authorization: Bearer <token>)."
            )
            out.text(token)
        elif args.token_command == "list":
            listed = [t.as_dict(now) for t in tokens.list()]
            if out.as_json or not out.tty:  # JSON when piped, as it always was
                out.json(listed)
            else:
                out.table(["id", "tenant", "user", "agent", "label", "state", "created", "expires", "last used"],
                          [[t["id"], t["tenant"], t["user"], t["agent"], t["label"], out.styled(t["state"], "ok" if t["state"] == "active" else "warn"),
                            t["created_at"], t["expires_at"] or "never", t["last_used_at"]] for t in listed])
        else:
            out.json(tokens.revoke(args.id).as_dict(now))
    finally:
        db.close()
    return OK


def _dimensions(settings: Settings) -> int:
    """The configured embedder's vector size, without loading a model (MiniLM: 384)."""
    return dimensions(settings)


def _reembed(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = open_service(settings, check_model=False)
    try:
        with out.working("loading the embedding model"):
            service.embedder.wait_ready(600)
        with out.progress("re-embedded", least=1) as progress:
            done = service.reembed(progress)
        out.say(f"re-embedded {done} memories with {service.embedder.model_id}")
    finally:
        service.close()
    return OK


def _info(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    service = open_service(settings, check_model=False)
    try:
        # the graph this store's vectors come from (MEMVAULT_EMBED_PRECISION=auto follows the store)
        precision = service.embedder.precision if isinstance(service.embedder, MiniLMEmbedder) else None
        info = {
            "version": __version__,
            "home": str(settings.home),
            "database": service.db.path if settings.database_url else str(settings.db_path),
            "namespace": settings.namespace,
            "embedding_model": service.store.get_meta("embedding_model"),
            "embedding_runtime": settings.embed_runtime if settings.embedder == "minilm" else settings.embedder,
            "embedding_precision": precision,
            "onnx_export": _onnx_export_state(settings, precision or "float32"),
            **service.store.count(),
        }
    finally:
        service.close()
    if out.as_json or not out.tty:  # JSON when piped, as it always was
        out.json(info)
    else:
        out.record([(k.replace("_", " "), v) for k, v in info.items()], title="memvault")
    return OK


def _onnx_export_state(settings: Settings, precision: str) -> str:
    from server.embedding import export as modelprep  # lazy: ~5 ms on every CLI command otherwise

    folder = modelprep.cache_dir({"MEMVAULT_MODEL_CACHE": str(settings.model_cache)} if settings.model_cache else None)
    try:
        problem = modelprep.graph_problem(folder, precision, thorough=False)
    except Exception as exc:  # noqa: BLE001 - info must print even when the weights are missing
        problem = f"{type(exc).__name__}: {exc}"
    graph = folder / modelprep.graph_file(precision)
    return f"ready: {graph}" if problem is None else f"{problem} ({folder}; run `memvault model prepare`)"


def _model(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    """`memvault model prepare`: the one-time ONNX export, and the int8 graph made from it when
    MEMVAULT_EMBED_PRECISION=int8 (this process may import torch; the server never does)."""
    from server.embedding import export as modelprep  # lazy: ~5 ms on every CLI command otherwise

    argv = ["--precision", settings.embed_precision] + (["--force"] if args.force else [])
    if settings.model_cache is not None:
        argv += ["--cache", str(settings.model_cache)]
    with out.working(f"preparing the embedding model (ONNX export, {settings.embed_precision})"):
        code = modelprep.main(argv)
        if code == OK:
            # lazy: NumPy and onnxruntime, ~0.2 s only this command needs: the fused copy every server loads
            from server.embedding import minilm

            minilm.fuse(modelprep.cache_dir({"MEMVAULT_MODEL_CACHE": str(settings.model_cache)}
                                            if settings.model_cache else None), settings.embed_precision)
        return code


def _export(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    # lazy: the archive format's pydantic models, ~0.05 s of CPU `memvault serve` would pay before `initialize`
    from server.curation import archive

    if args.output == "-" and args.split_by_month:
        out.say("--split-by-month writes several files; give -o a folder, not '-'")
        return USAGE
    service = open_service(settings, check_model=False)
    try:
        with out.progress("exported") as progress:
            documents = archive.export(service, args.thread, args.since, args.until, args.split_by_month, progress)
        if args.output == "-":
            out.stream.write(archive.dump(documents["archive.json"]))
            return OK
        stamp = service.clock().strftime("%Y-%m-%dT%H%M%S")
        default = settings.archives_dir / (f"memvault-{stamp}" + ("" if args.split_by_month else ".json"))
        written = archive.write(documents, Path(args.output) if args.output else default)
        count = sum(len(d["payload"]["memories"]) for d in documents.values())
        Curator(service).log(f"export: {count} memories to {', '.join(str(p) for p in written)}")
        for path in written:
            out.say(f"wrote {path}")
    finally:
        service.close()
    return OK


def _import(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    # lazy: the archive format, only export and import need (see _export)
    from server.curation import archive

    target = Path(args.file)
    paths = archive.archive_files(target) if target.is_dir() else [target]
    if not paths or not all(p.is_file() for p in paths):
        out.say(f"{target} is not an archive file or a folder of split archives")
        return USAGE
    service = open_service(settings, check_model=False)
    reports = []
    path = None  # the archive being imported; None once all are stored
    try:
        for path in paths:
            with out.progress("imported") as progress:
                report = archive.import_file(service, path, commit=not args.dry_run, progress=progress)
            c = report.counts
            if not args.dry_run:
                Curator(service).log(
                    f"import: {c.imported} memories from {path.name}, {c.already_present} already present; "
                    f"verified {c.verified}/{c.in_archive} content hashes"
                )
            reports.append(
                {"archive": str(path), "dry_run": args.dry_run, **c.as_dict(), "files": report.files.as_dict()}
            )
        path = None
        if not args.dry_run and not args.no_embed:
            # Vectors now, in full batches, rather than leaving the backlog to the
            # next server start (interrupting is safe: the queue is durable).
            with out.progress("embedded") as progress:
                service.embed_backlog(progress)
    except KeyboardInterrupt:
        if args.dry_run:
            out.say("interrupted: a dry run, nothing was stored")
        else:
            again = " ".join(["memvault", "import", args.file] + (["--no-embed"] if args.no_embed else []))
            out.say(_import_interrupted(reports, len(paths), path, service.store.count()["pending_embeddings"], again))
        return INTERRUPTED
    finally:
        service.close()
    if out.as_json or not out.tty:  # JSON when piped, as it always was
        out.json(reports[0] if len(reports) == 1 else reports)
    else:
        for r in reports:
            out.record([(k.replace("_", " "), v) for k, v in r.items() if k != "files"], title=r["archive"])
    return OK if all(r.get("verify_failed", 0) == 0 for r in reports) else PROBLEMS


def _import_interrupted(reports: list[dict], archives: int, current: object, pending: int, again: str) -> str:
    """What Ctrl-C during `memvault import` left: what is stored, that running it again is safe, and
    what the backfill still has to embed. (Each archive is one transaction: the one being read when
    the interrupt came is stored whole or not at all.)"""
    stored = sum(r["imported"] for r in reports)
    done = f"{len(reports)} of {archives} archives" if archives > 1 else "the archive"
    if current is None:
        said = (f"interrupted while embedding: the import itself is complete ({stored} new memories stored "
                f"from {done}). ")
    elif not reports:
        said = "interrupted: nothing was stored (an archive is stored whole or not at all). "
    else:
        said = (f"interrupted: {stored} new memories stored from {done}; nothing from "
                f"{getattr(current, 'name', current)} (an archive is stored whole or not at all). ")
    if pending:
        said += (f"{pending} memories still wait for a vector: keyword search finds them now, and the server's "
                 "background backfill embeds them when it runs. ")
    return said + f"It is safe to run `{again}` again: memories already present are skipped."


def _migrate(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    from server.storage import copy as migrate  # lazy: ~9 ms on every CLI command otherwise

    return migrate.main(args)


def _database(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    return opener.run_database_command(settings, args, _dimensions(settings))


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """The server and administration commands, in the order `memvault --help` lists them."""
    sv = sub.add_parser("serve", help="run the MCP server on stdio (the default), or over HTTP with --http")
    sv.add_argument("--http", action="store_true", help="serve MCP over streamable HTTP at http://HOST:PORT/mcp")
    sv.add_argument("--host", help="with --http: address to bind (default 127.0.0.1, MEMVAULT_HTTP_HOST)")
    sv.add_argument("--port", type=int, help="with --http: port (default 8765, MEMVAULT_HTTP_PORT; 0 = any free port)")
    sv.add_argument("--auth", choices=("tokens", "oauth", "none"),
                    help="with --http: bearer tokens (default, MEMVAULT_HTTP_AUTH), oauth (an identity provider) or none (loopback only)")
    sv.set_defaults(run=serve)
    sub.add_parser("info", parents=[common], help="where the data lives and how many memories it holds (JSON when piped)"
                   ).set_defaults(run=_info)
    tk = sub.add_parser("token", help="create, list or revoke bearer tokens for `serve --http` and `ui --auth tokens`")
    tks = tk.add_subparsers(dest="token_command", required=True)
    tc = tks.add_parser("create", help="create a token (printed once on stdout; only its hash is stored)")
    tc.add_argument("--tenant", required=True, help="the tenant (namespace) whose memories the token reads and writes")
    tc.add_argument("--user", help="the person it is for (recorded as the origin of what it writes)")
    tc.add_argument("--agent", help="the assistant or bot using it, e.g. claude-code or ci")
    tc.add_argument("--expires", metavar="WHEN",
                    help="a lifetime: a number and a unit, m(inutes) h(ours) d(ays) w(eeks) y(ears), e.g. 90m, 12h, "
                    "30d, 2w, 1y; or an ISO-8601 date/time such as 2027-01-31; default: never expires")
    tc.add_argument("--label", help="a note for `token list`, e.g. 'laptop'")
    tks.add_parser("list", parents=[common],
                   help="list tokens (ids, tenants, states; never the tokens themselves; JSON when piped)")
    tr = tks.add_parser("revoke", help="revoke a token at once (running servers refuse it from the next request)")
    tr.add_argument("id", type=int, help="the token id from `token list`")
    tk.set_defaults(run=_token)
    ex = sub.add_parser("export", help="write the store (or a thread / date range) to a JSON archive")
    ex.add_argument("--thread", help="only this thread ('global' for global memories)")
    ex.add_argument("--since", help="only memories created at or after this ISO-8601 date")
    ex.add_argument("--until", help="only memories created at or before this ISO-8601 date")
    ex.add_argument("-o", "--output", help="archive file ('-' = stdout; a folder with --split-by-month); "
                    "default: a new file in $MEMVAULT_HOME/archives/")
    ex.add_argument("--split-by-month", action="store_true", help="one archive per month of creation (YYYY/YYYY-MM.json)")
    ex.set_defaults(run=_export)
    im = sub.add_parser("import", parents=[common],
                        help="restore a JSON archive (idempotent; verified after import; the report is JSON when piped)")
    im.add_argument("file")
    im.add_argument("--dry-run", action="store_true", help="check the archive and report what would be imported")
    im.add_argument("--no-embed", action="store_true",
                    help="leave the vectors to the server's background backfill (keyword search works at once)")
    im.set_defaults(run=_import)
    sub.add_parser("reembed", help="recompute every vector with the configured embedding model").set_defaults(run=_reembed)
    mo = sub.add_parser("model", help="prepare the embedding model (the one-time ONNX export)")
    mo.add_argument("action", choices=["prepare"], help="export the model to ONNX unless a valid export exists")
    mo.add_argument("--force", action="store_true", help="export again even if the cached export is valid")
    mo.set_defaults(run=_model)
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
    mg.set_defaults(run=_migrate)
    opener.add_database_commands(sub)
    sub.choices["db"].set_defaults(run=_database)


def serve(settings: Settings, args: argparse.Namespace, out: Output) -> int:
    """`memvault serve [--http ...]` (and `memvault` alone)."""
    if getattr(args, "http", False):
        return _serve_http(settings, args, out)
    if any(getattr(args, name, None) is not None for name in ("host", "port", "auth")):
        out.say("--host, --port and --auth apply to `serve --http` only")
        return USAGE
    return _serve(settings, args, out)
