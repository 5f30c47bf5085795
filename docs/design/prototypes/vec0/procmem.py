"""Memory of several processes searching one store (vec0 + the shared sign-bit file), and first-query time.

Spawns --servers server-like processes and then --hooks hook-like ones on the same store (built by
build.py, with accel.py's `.side` file beside it), all alive at once, and reads each one's
/proc/<pid>/smaps_rollup: RSS, PSS, private and shared bytes. Then prints the totals.

  server  loads the MiniLM embedder (ONNX, as `memvault serve` does), opens the store, maps the
          sidecar, embeds a query and searches: its first-query time counts from process start
          (interpreter, imports, model, store) to the first result; then --queries more searches,
          alternating all threads (sidecar: accel.recommended) and one thread (vec0 KNN
          with the thread filter inside).
  hook    loads no model (issue 15: a hook uses stored vectors and keyword search): opens the store,
          takes the newest vector of a thread as the query, and runs the one-thread vec0 KNN and an
          all-threads bit-file search with it; time from process start to both answers.

    python procmem.py /tmp/vec0-research/meta-1000000.db --servers 4 --hooks 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

START = time.time()


def smaps(pid: int) -> dict:
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":")
        out[key] = int(value.split()[0]) / 1024  # MB
    return {k: round(out[k], 1) for k in ("Rss", "Pss", "Shared_Clean", "Private_Clean", "Private_Dirty", "Pss_File")}


def child(mode: str, db: str, started: float, queries: int) -> None:
    import numpy as np

    from accel import Sidecar, recommended
    from common import connect
    from knn import thread_knn

    marks: dict = {"imports_s": time.time() - started}
    layout = json.loads(Path(db + ".json").read_text())["layout"]  # thread: metadata or partition key
    embedder = None
    if mode == "server":
        from server.embedding.embedders import make_embedder

        embedder = make_embedder("minilm")
        embedder.wait_ready(120)
        marks["model_s"] = time.time() - started
    conn = connect(db, cache_mb=8)
    side = Sidecar(Path(db + ".side"))
    fd = os.open(db + ".side", os.O_RDONLY)
    marks["store_open_s"] = time.time() - started
    if mode == "server":
        query = embedder.embed(["which database does billing use?"])[0].astype(np.float32)
        top = recommended(side, fd, query, 50)
        marks["first_query_s"] = time.time() - started
        texts = list(__import__("scale").MORE_QUERIES)
        ms = []
        for i in range(queries):
            t = time.perf_counter()
            q = embedder.embed([texts[i % len(texts)]])[0].astype(np.float32)
            if i % 2:
                thread_knn(conn, layout, "embedding", q, 50, f"project-{i % 200 or 1}")
            else:
                recommended(side, fd, q, 50)
            ms.append((time.perf_counter() - t) * 1000)
        marks["query_ms_p50"] = sorted(ms)[len(ms) // 2] if ms else None
    else:
        # The thread's newest live memory (a real hook reads its id from `memories`; in build.py's
        # rows it is the largest i with i % 200 == 5 that is not deleted). `max(memory_id) WHERE
        # thread = ?` on vec0 itself scans every row: 38 s at 1M here.
        info = json.loads(Path(db + ".json").read_text())
        newest = next(i for i in range(info["rows"], 0, -1) if i % 200 == 5 and i % 97 != 3)
        blob = conn.execute("SELECT embedding FROM vec_memories WHERE memory_id = ?", (newest,)).fetchone()[0]
        query = np.frombuffer(blob, dtype=np.float32).copy()
        thread_knn(conn, layout, "embedding", query, 50, "project-5")
        marks["first_thread_query_s"] = time.time() - started
        top = recommended(side, fd, query, 50)
        marks["first_all_threads_query_s"] = time.time() - started
    marks["results"] = len(top)
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in marks.items()}), flush=True)
    sys.stdin.read()  # stay alive (and mapped) until the parent has measured everyone


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--servers", type=int, default=4)
    ap.add_argument("--hooks", type=int, default=2)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--child", default=None)
    ap.add_argument("--started", type=float, default=None)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.db, args.started, args.queries)
        return
    from common import write_result

    procs = []
    for mode in ["server"] * args.servers + ["hook"] * args.hooks:
        if mode == "hook":  # hooks arrive while the servers are up (as at a prompt)
            for p, m, _ in procs:
                if m == "server" and not p.__dict__.get("line"):
                    p.__dict__["line"] = p.stdout.readline()
        p = subprocess.Popen([sys.executable, __file__, args.db, "--child", mode, "--started", repr(time.time()),
                              "--queries", str(args.queries)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).parent)
        procs.append((p, mode, None))
    rows = []
    for p, mode, _ in procs:
        line = p.__dict__.get("line") or p.stdout.readline()
        rows.append({"pid": p.pid, "mode": mode, **json.loads(line)})
    for row in rows:
        row.update(smaps(row["pid"]))
    for p, _, _ in procs:
        p.stdin.close()
        p.wait()
    total = {k: round(sum(r[k] for r in rows), 1) for k in ("Rss", "Pss", "Private_Clean", "Private_Dirty")}
    for r in rows:
        print(json.dumps(r))
    print("total MB", total)
    info = json.loads(Path(args.db + ".json").read_text())
    print(write_result(f"procmem-{Path(args.db).stem}", {
        "store_rows": info["rows"], "sidecar_bytes": Path(args.db + ".side").stat().st_size,
        "db_bytes": Path(args.db).stat().st_size, "processes": rows, "total_mb": total,
        "command": "python procmem.py " + " ".join(sys.argv[1:])}))


if __name__ == "__main__":
    main()
