"""`memvault db init` / `memvault db migrate`: one-off set-up with administrator rights.

Creates (when missing) the owner role, the application role, the database and the
pgvector extension, then applies the migrations as the owner. `--print-sql` prints
the same steps as SQL for a DBA who runs them without memvault. At serve time memvault
connects as the application role only (see migrations.require_current).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from server.errors import SetupError
from server.storage.pg.migrations import PgSchemaContext, migrate, quote_ident, script


@dataclass(frozen=True)
class InitPlan:
    database: str = "memvault"
    owner_role: str = "memvault_owner"
    app_role: str = "memvault_app"
    app_password: str | None = None
    # Mark `@@` LEAKPROOF so keyword search can use the GIN index under row-level security
    # (docs/postgres.md): a cluster-wide catalog change, off unless asked for.
    leakproof_fts: bool = False


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def role_sql(plan: InitPlan) -> list[str]:
    """Statements run in the administrator's database (idempotent)."""
    owner, app = quote_ident(plan.owner_role), quote_ident(plan.app_role)
    password = f" PASSWORD {_literal(plan.app_password)}" if plan.app_password else ""
    return [
        f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {_literal(plan.owner_role)}) THEN "
        f"CREATE ROLE {owner} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE; END IF; END$$",
        # The application role: may log in, owns nothing, cannot bypass row-level security.
        f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {_literal(plan.app_role)}) THEN "
        f"CREATE ROLE {app} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT{password}; END IF; END$$",
    ]


def database_sql(plan: InitPlan, ctx: PgSchemaContext) -> list[str]:
    """Statements run inside the new database as the administrator."""
    return [
        # pgvector is not a trusted extension: only a superuser may create it.
        "CREATE EXTENSION IF NOT EXISTS vector",
        f"GRANT CONNECT ON DATABASE {quote_ident(plan.database)} TO {quote_ident(plan.app_role)}",
        f"GRANT USAGE ON SCHEMA public TO {quote_ident(plan.app_role)}",
        f"GRANT CREATE, USAGE ON SCHEMA public TO {quote_ident(plan.owner_role)}",
    ] + (["ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF"] if plan.leakproof_fts else [])


def print_sql(plan: InitPlan, ctx: PgSchemaContext) -> str:
    out = ["-- as a superuser, in any database:"]
    out += [s + ";" for s in role_sql(plan)]
    out.append(f"CREATE DATABASE {quote_ident(plan.database)} OWNER {quote_ident(plan.owner_role)};")
    out.append(f"\\c {plan.database}")
    out += [s + ";" for s in database_sql(plan, ctx)]
    out.append(f"SET ROLE {quote_ident(plan.owner_role)};")
    out.append(script(ctx))
    out.append("RESET ROLE;")
    return "\n".join(out)


def app_url(admin_url: str, plan: InitPlan) -> str:
    """The admin URL with the application role, its password and the new database."""
    parts = urlsplit(admin_url)
    host = parts.netloc.rsplit("@", 1)[-1]
    user = quote(plan.app_role, safe="")
    if plan.app_password:
        user += ":" + quote(plan.app_password, safe="")
    return urlunsplit(parts._replace(netloc=f"{user}@{host}", path="/" + quote(plan.database, safe="")))


def _database_url(admin_url: str, database: str) -> str:
    return urlunsplit(urlsplit(admin_url)._replace(path="/" + quote(database, safe="")))


def init(admin_url: str, plan: InitPlan, ctx: PgSchemaContext) -> tuple[str, list[int]]:
    """Create roles, database and extension as needed and migrate; returns (app URL, versions applied)."""
    # lazy: psycopg, ~0.37 s that every CLI command would pay (the parser imports this module)
    import psycopg

    try:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            for statement in role_sql(plan):
                conn.execute(statement)
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (plan.database,)).fetchone():
                conn.execute(
                    f"CREATE DATABASE {quote_ident(plan.database)} OWNER {quote_ident(plan.owner_role)}"
                )
    except psycopg.Error as exc:
        raise SetupError(f"db init could not prepare roles and database: {exc}".strip()) from None
    applied = migrate_database(_database_url(admin_url, plan.database), plan, ctx, bootstrap=True)
    return app_url(admin_url, plan), applied


def migrate_database(url: str, plan: InitPlan, ctx: PgSchemaContext, bootstrap: bool = False) -> list[int]:
    """Apply pending migrations in the database at `url` as the owner role."""
    # lazy: psycopg, ~0.37 s that every CLI command would pay (the parser imports this module)
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            if bootstrap:
                for statement in database_sql(plan, ctx):
                    conn.execute(statement)
            # Objects belong to the owner role, never to the administrator who ran this.
            conn.execute(f"SET ROLE {quote_ident(plan.owner_role)}")
            return migrate(conn, ctx)
    except psycopg.Error as exc:
        raise SetupError(f"db migrate failed: {exc}".strip()) from None
