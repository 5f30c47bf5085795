"""`memvault db init|migrate`: set up or upgrade a PostgreSQL database (administrator rights).

Reached through server.storage.opener (the CLI imports no backend)."""

from __future__ import annotations

import argparse
import json
import sys

from server.config import Settings
from server.storage.pg.bootstrap import InitPlan, init, migrate_database, print_sql
from server.storage.pg.db import redact_url
from server.storage.pg.migrations import PgSchemaContext


def add_parser(sub: argparse._SubParsersAction) -> None:
    db = sub.add_parser("db", help="set up or upgrade a PostgreSQL database (team deployment)")
    actions = db.add_subparsers(dest="db_action", required=True)
    for name, text in (
        ("init", "create roles, database and pgvector, then apply the schema (as a superuser)"),
        ("migrate", "apply schema migrations a newer memvault needs (as a superuser or the owner role)"),
    ):
        p = actions.add_parser(name, help=text)
        p.add_argument("--admin-url", help="postgresql:// URL of a superuser (init: any database on the server; "
                       "migrate: the memvault database)")
        p.add_argument("--database", default="memvault", help="database to create (default memvault)")
        p.add_argument("--owner-role", default="memvault_owner", help="role that owns the schema (no login)")
        p.add_argument("--app-role", default="memvault_app", help="role memvault serves as (subject to RLS)")
        if name == "init":
            p.add_argument("--app-password", help="password for a newly created application role")
            p.add_argument("--print-sql", action="store_true", help="print the SQL instead of running it")
            p.add_argument("--leakproof-fts", action="store_true",
                           help="mark ts_match_vq LEAKPROOF so keyword search uses its GIN index under row-level "
                           "security (cluster-wide; see docs/postgres.md)")


def run(settings: Settings, args: argparse.Namespace, dimensions: int) -> int:
    """Run `memvault db ...`; `dimensions`: of the configured embedder's vectors (the column's size)."""
    plan = InitPlan(args.database, args.owner_role, args.app_role, getattr(args, "app_password", None),
                    getattr(args, "leakproof_fts", False))
    ctx = PgSchemaContext(
        app_role=args.app_role,
        dimensions=dimensions,
        hnsw_m=settings.pg_hnsw_m,
        hnsw_ef_construction=settings.pg_hnsw_ef_construction,
    )
    if getattr(args, "print_sql", False):
        sys.stdout.write(print_sql(plan, ctx))
        return 0
    if not args.admin_url:
        print("memvault: give --admin-url postgresql://<superuser>@<host>/<database> (or --print-sql)", file=sys.stderr)
        return 2
    if args.db_action == "init":
        url, applied = init(args.admin_url, plan, ctx)
        print(json.dumps({"database_url": redact_url(url), "migrations_applied": applied}, indent=2))
        print(f"set MEMVAULT_DATABASE_URL={redact_url(url)} (with the application role's password) to serve from it",
              file=sys.stderr)
    else:
        applied = migrate_database(args.admin_url, plan, ctx)
        print(json.dumps({"migrations_applied": applied}, indent=2))
    return 0
