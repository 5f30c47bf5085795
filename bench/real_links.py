"""Links made on text nobody on the team wrote: the real sessions' captures, judged by the update model.

The public transcripts in bench/data/real_sessions/ (their README names sources and licences) are
replayed through the capture hooks as bench/real_sessions.py does (a hook process has no model: the
captures wait for their vectors), then a server with the model embeds the backlog, which judges each
waiting update check. Every link made (a memory marked superseded by a later one) and every possible
update recorded is listed with both texts, to be labelled right or wrong by reading the turns
(bench/data/real_sessions_link_labels.json: the labels, written by reading, never by a rule; beside the
sessions' folder, whose every file is a project). A link
is right when the later memory states a new state of what the earlier one said; a report about it, a
question, another thing of the same kind, or the same fact said again is wrong (issue 32 item 4).

    python bench/real_links.py               # every project, bench/results/real_links.json
    python bench/real_links.py --projects cctrace,afi-core
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from real_sessions import DATA, replay  # noqa: E402

LABELS = HERE / "data" / "real_sessions_link_labels.json"


def key(older: str, newer: str) -> str:
    """A link's label key: the two texts' starts (ids change from run to run, the texts do not)."""
    return " ".join(older.split())[:80] + " => " + " ".join(newer.split())[:80]


def links(home: Path) -> tuple[list[dict], list[dict], int]:
    """(links, possible updates, memories) in the store: both texts of each pair."""
    con = sqlite3.connect(home / "memvault.db")
    try:
        text = {mid: (content, kind) for mid, content, kind in con.execute("SELECT id, content, kind FROM memories")}
        made = [{"older": o, "newer": n, "kinds": [text[o][1], text[n][1]], "older_text": text[o][0],
                 "newer_text": text[n][0]}
                for o, n in con.execute("SELECT id, superseded_by FROM memories WHERE superseded_by IS NOT NULL")]
        possible = [{"older": o, "newer": n, "probability": round(p, 4), "kinds": [text[o][1], text[n][1]],
                     "older_text": text[o][0], "newer_text": text[n][0]}
                    for n, o, p in con.execute("SELECT memory_id, older, probability FROM possible_updates")
                    if o in text and n in text]
        count = con.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
    finally:
        con.close()
    return made, possible, count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", default=None, help="comma-separated project names (default: every file)")
    ap.add_argument("--out", default=str(HERE / "results" / "real_links.json"))
    args = ap.parse_args()
    from server.compose import open_service
    from server.config import Settings

    wanted = set(args.projects.split(",")) if args.projects else None
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    found = []
    with tempfile.TemporaryDirectory(prefix="memvault-links-") as tmp:
        for path in sorted(DATA.glob("*.json")):
            project = json.loads(path.read_text(encoding="utf-8"))
            if wanted is not None and project["name"] not in wanted:
                continue
            work = Path(tmp) / project["name"]
            home = work / "home"
            replay(project, work, {"MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"})
            service = open_service(Settings(home=home, embedder="minilm"))
            try:
                service.embedder.wait_ready(600)
                service.embed_backlog()
                for _ in range(100):  # the update checks left after the drain, a few per call
                    if not service.store.unjudged(1):
                        break
                    service.linker.check_pending(service.db)
            finally:
                service.close()
            made, possible, count = links(home)
            for item in made + possible:
                item["label"] = labels.get(key(item["older_text"], item["newer_text"]))
            found.append({"project": project["name"], "split": project["split"], "memories": count,
                          "links": made, "possible": possible})
    made = [item for p in found for item in p["links"]]
    possible = [item for p in found for item in p["possible"]]

    def tally(items: list[dict]) -> dict:
        wrong = sum(i["label"] == "wrong" for i in items)
        return {"n": len(items), "right": sum(i["label"] == "right" for i in items), "wrong": wrong,
                "duplicate": sum(i["label"] == "duplicate" for i in items),
                "unlabelled": sum(i["label"] is None for i in items),
                # As bench/updates.py counts false supersession: the share of links that are wrong.
                "wrong_share": round(wrong / len(items), 3) if items else None}

    out = {"memories": sum(p["memories"] for p in found), "links": tally(made), "possible": tally(possible),
           "possible_at_label": tally([i for i in possible if i["probability"] >= 0.3]), "projects": found}
    for p in found:
        for item in p["links"]:
            print(f"LINK {p['project']:<16} [{item['label']}] {item['kinds']} {key(item['older_text'], item['newer_text'])}")
        for item in p["possible"]:
            print(f"POSS {p['project']:<16} [{item['label']}] {item['probability']} {item['kinds']} "
                  f"{key(item['older_text'], item['newer_text'])}")
    print(f"\n{out['memories']} memories; links {out['links']}; possible updates {out['possible']} "
          f"(at 0.3 or more, labelled possibly outdated: {out['possible_at_label']})")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
