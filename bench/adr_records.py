"""What every held-out decision-record builder (bench/build_adr_held_out_s3*.py) does the same way: date a record
between the dated ones around it, date a report the day before the record it is about, and lay a project out in the
shape bench/public_links.py reads. Each builder holds only its own transcription; a change here changes every set's
bytes, which each set's data test catches (they compare the builder's output with the committed file)."""

from __future__ import annotations

from datetime import date, timedelta


def placed(anchors: dict[int, str], number: int) -> str:
    """The date of record `number`, linear between the two anchors around it (the records' own dates); before the
    first anchor or after the last, one record a week."""
    points = sorted((n, date.fromisoformat(d)) for n, d in anchors.items())
    if number <= points[0][0]:
        return (points[0][1] - timedelta(days=7 * (points[0][0] - number))).isoformat()
    for (n0, d0), (n1, d1) in zip(points, points[1:]):
        if n0 <= number <= n1:
            return (d0 + timedelta(days=round((d1 - d0).days * (number - n0) / (n1 - n0)))).isoformat()
    return (points[-1][1] + timedelta(days=7 * (number - points[-1][0]))).isoformat()


def before(day: str) -> str:
    """The day before `day`: a report is dated just before the record it is about."""
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def project(split, name, repo, licence, licence_verified, source, records, reports, updates, unnamed=(),
            ambiguous=()):
    """One project of split `split`. records: (id, date, text, file, commit); reports: (id, cites, text, file,
    commit)."""
    memories = [{"id": rid, "date": day, "text": text, "file": file, "commit": commit}
                for rid, day, text, file, commit in records]
    dated = {m["id"]: m["date"] for m in memories}
    for rid, cites, text, file, commit in reports:
        memories.append({"id": rid, "date": before(dated[cites]), "text": text, "file": file, "commit": commit})
    memories.sort(key=lambda m: (m["date"], m["id"]))
    return {"name": name, "split": split, "repo": repo, "licence": licence, "licence_verified": licence_verified,
            "source": source, "memories": memories, "updates": [list(p) for p in updates],
            "updates_unnamed": [list(p) for p in unnamed], "ambiguous": [list(p) for p in ambiguous],
            "reports": [r[0] for r in reports]}
