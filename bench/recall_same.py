"""Whether two checkouts recall the same: every field of every result, on a fixed query set.

A speed change to the recall path must not change what recall returns. Each checkout opens its own
copy of the store (a recall counts itself in the store, which a later recall could read), answers the
fixed queries (bench/scale.py's, over all threads, one thread and another, k 5 and 10, and the same
queries again: warm), and the answers are compared field by field.

    python bench/recall_same.py --home /tmp/memvault-scale-10000-xxxx --checkouts /tmp/base,.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
THREADS = ("*", "project-3", "project-17")


def answers(home: Path, embedder: str) -> list[dict]:
    """The recall results (as JSON) of the fixed query set on the store at `home` (run inside a checkout)."""
    # The checkout's server first (PYTHONPATH): importing scale puts this script's own checkout at the front of
    # sys.path, and a server imported after it was that checkout's, whichever was asked for (every comparison
    # ran one code twice).
    from server.compose import open_service
    from server.config import Settings

    checkout = Path(os.environ["PYTHONPATH"]).resolve()
    if not Path(sys.modules["server"].__file__).resolve().is_relative_to(checkout):
        raise SystemExit(f"the server imported is {sys.modules['server'].__file__}, not {checkout}'s")
    sys.path.insert(0, str(HERE))
    from scale import MORE_QUERIES

    service = open_service(Settings(home=home, embedder=embedder))
    service.embedder.wait_ready(600)
    out = []
    try:
        for round_ in range(2):
            for q in MORE_QUERIES:
                for thread in THREADS:
                    for k in (5, 10):
                        result = service.recall(q, k=k, thread=thread).model_dump(mode="json")
                        out.append({"query": q, "thread": thread, "k": k, "round": round_, "result": result})
    finally:
        service.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--checkouts", required=True, help="two checkouts, comma-separated")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--answer", type=Path, default=None, help=argparse.SUPPRESS)  # inside a checkout: write here
    args = ap.parse_args()
    if args.answer is not None:
        args.answer.write_text(json.dumps(answers(args.home, args.embedder)))
        return
    work = Path(tempfile.mkdtemp(prefix="memvault-recall-same-"))
    got = []
    try:
        for n, checkout in enumerate(Path(c).resolve() for c in args.checkouts.split(",")):
            home = work / f"home-{n}"
            shutil.copytree(args.home, home)
            answer = work / f"answer-{n}.json"
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--home", str(home), "--checkouts", "-",
                            "--embedder", args.embedder, "--answer", str(answer)], env=env, check=True)
            got.append(json.loads(answer.read_text()))
            shutil.rmtree(home)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    a, b = got
    differ = [(x, y) for x, y in zip(a, b) if x != y]
    print(f"{len(a)} recalls, {sum(len(x['result']['memories']) for x in a)} memories returned; "
          f"{len(differ)} differ" + ("" if len(a) == len(b) else f"; counts differ: {len(a)} vs {len(b)}"))
    for x, y in differ[:5]:
        print(json.dumps({"query": x["query"], "thread": x["thread"], "k": x["k"], "round": x["round"]}))
        print("  first: ", json.dumps(x["result"])[:600])
        print("  second:", json.dumps(y["result"])[:600])
    sys.exit(1 if differ or len(a) != len(b) else 0)


if __name__ == "__main__":
    main()
