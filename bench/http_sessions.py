"""Abandoned HTTP sessions: what they cost while open, that idle ones expire, and the per-token cap.

    python bench/http_sessions.py            # 1,000 sessions, 20 s idle expiry; writes bench/results/http_sessions.json
    python bench/http_sessions.py --quick    # 200 sessions, 4 s

Starts `memvault serve --http` of this checkout (hash embedder) and, as a client that
walks away would, opens sessions with a bare `initialize` and never closes them:

1. cap: one token opens MEMVAULT_HTTP_SESSIONS_PER_TOKEN + 10 sessions; the ones past the
   cap must get 429;
2. memory: N sessions (spread over tokens, each within the cap) -- the server's RSS before,
   with them open, after MEMVAULT_HTTP_SESSION_IDLE_SECONDS (every old session id must now
   get 404), then a second wave of N and its expiry: with expiry, the second wave reuses the
   memory the first freed instead of adding to it;
3. (full run) the same two waves with expiry pushed out of reach and no cap, as sessions
   behaved before: each wave adds its cost for good.

Linux only (reads /proc/<pid>/status).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import httpx2  # noqa: E402
from http_load import Server, server_env  # noqa: E402

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "walks-away", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def make_tokens(home: Path, count: int) -> list[str]:
    """Tokens written straight into the server's store (as `memvault token create` would)."""
    from server.config import Settings
    from server.embedding.embedders import HashEmbedder
    from server.http.tokens import TokenStore
    from server.storage.opener import open_database

    db = open_database(Settings(home=home, embedder="hash"), HashEmbedder().dimensions)
    try:
        store = TokenStore(db)
        return [store.create(f"t{i % 4}", user=f"bench{i}", agent="walks-away")[0] for i in range(count)]
    finally:
        db.close()


async def open_sessions(url: str, tokens: list[str], per_token: int) -> tuple[list[tuple[str, str]], dict[int, int]]:
    """(token, session id) of each session opened, and the count of each HTTP status."""
    statuses: dict[int, int] = {}
    opened: list[tuple[str, str]] = []
    limits = httpx2.Limits(max_connections=16)
    async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
        sem = asyncio.Semaphore(16)

        async def one(token: str) -> None:
            async with sem:
                r = await http.post(url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {token}"})
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                sid = r.headers.get("mcp-session-id")
                if r.status_code == 200 and sid:
                    opened.append((token, sid))

        await asyncio.gather(*(one(t) for t in tokens for _ in range(per_token)))
    return opened, statuses


async def probe(url: str, sessions: list[tuple[str, str]]) -> dict[int, int]:
    statuses: dict[int, int] = {}
    async with httpx2.AsyncClient(timeout=60) as http:
        for token, sid in sessions:
            r = await http.post(url, json=PING, headers={**HEADERS, "Authorization": f"Bearer {token}",
                                                          "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
    return statuses


def waves(n: int, idle: float, cap: int, expire: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="memvault-sessions-") as tmp:
        home = Path(tmp) / "home"
        tokens = make_tokens(home, n // cap + 3)  # warm-up, cap test, then the waves
        env = server_env(home, "hash")
        # Without expiry the cap is lifted too: sessions as they behaved before either existed.
        env["MEMVAULT_HTTP_SESSIONS_PER_TOKEN"] = str(cap if expire else 10**6)
        env["MEMVAULT_HTTP_SESSION_IDLE_SECONDS"] = str(idle if expire else 10**7)
        server = Server(env)
        server.ready.wait(120)
        if not server.url:
            raise SystemExit(f"server did not start: {server.stderr.decode(errors='replace')[-2000:]}")
        try:
            url = server.url
            out: dict = {"sessions_per_wave": n, "idle_seconds": idle if expire else None,
                         "per_token_cap": cap if expire else None}
            # warm-up: one session opened and closed, so the baseline includes the code paths
            asyncio.run(open_sessions(url, tokens[:1], 1))
            time.sleep(0.5)
            out["rss_mb_baseline"] = rss_mb(server.proc.pid)
            if expire:
                capped, status = asyncio.run(open_sessions(url, tokens[1:2], cap + 10))
                out["cap"] = {"attempts": cap + 10, "statuses": status, "opened": len(capped)}
            for wave in (1, 2):
                t0 = time.perf_counter()
                opened, status = asyncio.run(_spread(url, tokens[2:], n, cap))
                open_secs = time.perf_counter() - t0
                rss_open = rss_mb(server.proc.pid)
                if expire:
                    time.sleep(idle + 3)
                    expired = asyncio.run(probe(url, opened))
                else:
                    expired = None
                out[f"wave{wave}"] = {"opened": len(opened), "statuses": status, "open_seconds": round(open_secs, 1),
                                      "rss_mb_open": rss_open, "rss_mb_after_idle": rss_mb(server.proc.pid),
                                      "old_ids_after_idle": expired}
            out["mb_per_1000_sessions"] = (out["wave1"]["rss_mb_open"] - out["rss_mb_baseline"]) / n * 1000
            out["wave2_growth_mb"] = out["wave2"]["rss_mb_open"] - out["wave1"]["rss_mb_open"]
            return out
        finally:
            server.stop()


def _spread(url: str, tokens: list[str], n: int, cap: int):  # noqa: ANN202 - a coroutine
    """n sessions over as many tokens as the cap needs."""
    async def run() -> tuple[list[tuple[str, str]], dict[int, int]]:
        opened: list[tuple[str, str]] = []
        statuses: dict[int, int] = {}
        left = n
        for token in tokens:
            if left <= 0:
                break
            got, st = await open_sessions(url, [token], min(cap, left))
            opened += got
            for k, v in st.items():
                statuses[k] = statuses.get(k, 0) + v
            left -= min(cap, left)
        return opened, statuses

    return run()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="200 sessions, 4 s idle expiry, no before-run")
    ap.add_argument("--sessions", type=int, default=None)
    ap.add_argument("--idle", type=float, default=None, help="idle expiry in seconds")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "http_sessions.json"))
    args = ap.parse_args(argv)
    if not Path("/proc/self/status").exists():
        print("skipped: needs Linux /proc")
        Path(args.out).write_text(json.dumps({"skipped": "needs Linux /proc"}) + "\n")
        return 0
    n = args.sessions or (200 if args.quick else 1000)
    idle = args.idle or (4.0 if args.quick else 20.0)
    cap = 32
    result = {"with_expiry": waves(n, idle, cap, expire=True)}
    if not args.quick:
        result["without_expiry"] = waves(n, idle, cap, expire=False)
    w = result["with_expiry"]
    print(f"per-token cap {cap}: {w['cap']['attempts']} attempts with one token -> statuses {w['cap']['statuses']}")
    for name, run in result.items():
        print(f"{name}: baseline {run['rss_mb_baseline']:.1f} MB; {run['mb_per_1000_sessions']:.1f} MB per 1,000 open sessions")
        for wave in ("wave1", "wave2"):
            v = run[wave]
            after = f", after {idle:.0f} s idle {v['rss_mb_after_idle']:.1f} MB, old ids -> {v['old_ids_after_idle']}" \
                if v["old_ids_after_idle"] is not None else ""
            print(f"  {wave}: {v['opened']} opened in {v['open_seconds']} s, RSS {v['rss_mb_open']:.1f} MB{after}")
        print(f"  second wave added {run['wave2_growth_mb']:+.1f} MB")
    expired_all = all(w[k]["old_ids_after_idle"] == {404: w[k]["opened"]} for k in ("wave1", "wave2"))
    capped = w["cap"]["statuses"].get(429, 0) == 10 and w["cap"]["opened"] == cap
    result["checks"] = {"every_idle_session_expired": expired_all, "cap_enforced": capped}
    print(f"checks: every idle session expired: {expired_all}; per-token cap enforced: {capped}")
    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0 if expired_all and capped else 1


if __name__ == "__main__":
    raise SystemExit(main())
