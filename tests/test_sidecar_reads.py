"""The sidecar's search stages read and rank exactly as their plain formulation (server/storage/sqlite/sidecar.py):
the float16 rows read with one system call per span into one array, the Hamming cut without clamping every
distance, the asymmetric score by one flat take. Files are made directly (Sidecar.create, append)."""

from __future__ import annotations

import numpy as np
import pytest

from server.storage.sqlite import sidecar as sidecar_mod
from server.storage.sqlite.sidecar import Block, Sidecar, fit_mean

DIMS = 96
ROWS = 6_000


@pytest.fixture()
def side(tmp_path):
    rng = np.random.default_rng(11)
    basis = rng.standard_normal((24, DIMS)).astype(np.float32)
    vectors = rng.standard_normal((ROWS, 24)).astype(np.float32) @ basis
    vectors += 0.3 * rng.standard_normal((ROWS, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    made = Sidecar.create(tmp_path / "s.mv", DIMS, ROWS, fit_mean(vectors[:2000], DIMS), applied=0, fitted=2000)
    made.append(Block(ids=np.arange(ROWS, dtype=np.int64) * 4, vectors=vectors,
                      created=np.arange(ROWS, dtype=np.int64), thread=np.arange(ROWS, dtype=np.uint32) % 7,
                      kind=np.zeros(ROWS, dtype=np.uint32), deleted=(np.arange(ROWS) % 50 == 0).astype(np.uint8)))
    made.publish(1)
    yield made
    made.close()


def _plain_candidates(side: Sidecar, query: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Sidecar.candidates as it was written first: distances clamped for the histogram, a two-axis gather."""
    in_scope = int(mask.sum())
    keep = max(sidecar_mod.FLOOR, int(sidecar_mod.NARROW * in_scope))
    if in_scope <= max(keep, sidecar_mod.EXACT_ROWS):
        return np.flatnonzero(mask)
    bits = side.column("bits", len(mask))
    dist = np.unpackbits(bits ^ np.packbits(query > side.mean), axis=1).sum(axis=1, dtype=np.int32)
    dist[~mask] = 1 << 20
    wide = max(keep, sidecar_mod.WIDE_ROWS, int(sidecar_mod.WIDE * in_scope))
    counts = np.bincount(np.minimum(dist, 8 * bits.shape[1] + 1), minlength=8 * bits.shape[1] + 2).cumsum()
    rows = np.flatnonzero(dist <= int(np.searchsorted(counts, wide)))
    if len(rows) > keep:
        nbytes = bits.shape[1]
        q = np.zeros(8 * nbytes, dtype=np.float32)
        q[:DIMS] = query - side.mean
        patterns = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32)
        table = q.reshape(nbytes, 8) @ patterns.T
        score = table[np.arange(nbytes), bits[rows]].sum(axis=1)
        rows = np.sort(rows[np.argpartition(-score, keep - 1)[:keep]])
    return rows


@pytest.mark.parametrize("preadv", [True, False])
def test_rows_read_with_pread_are_the_rows_of_the_file(side, monkeypatch, preadv):
    monkeypatch.setattr(sidecar_mod, "MAP_ROWS", 0)  # the large-file path: pread, not the mapping
    if not preadv:
        monkeypatch.setattr(sidecar_mod, "_PREADV", None)
    whole = np.array(side.column("half", ROWS))
    rng = np.random.default_rng(3)
    for rows in (np.arange(ROWS), np.arange(100, 140), np.asarray([5]),
                 np.sort(rng.choice(ROWS, 700, replace=False)),  # gaps above and below GAP_ROWS
                 np.r_[np.arange(10, 20), np.arange(500, 503), np.asarray([ROWS - 1])]):
        got = side.read_half(rows)
        assert got.dtype == np.dtype("<f2") and got.shape == (len(rows), DIMS)
        assert np.array_equal(got.view(np.uint16), whole[rows].view(np.uint16))


def test_candidates_and_scores_are_those_of_the_plain_formulation(side, monkeypatch):
    monkeypatch.setattr(sidecar_mod, "MAP_ROWS", 0)
    monkeypatch.setattr(sidecar_mod, "EXACT_ROWS", 0)
    monkeypatch.setattr(sidecar_mod, "FLOOR", 200)
    monkeypatch.setattr(sidecar_mod, "WIDE_ROWS", 900)
    monkeypatch.setattr(sidecar_mod, "_simd", None)  # the same distances either way; the reference has no SIMD
    rng = np.random.default_rng(5)
    live = side.column("deleted") == 0
    thread = side.column("thread")
    for n in range(12):
        query = rng.standard_normal(DIMS).astype(np.float32)
        query /= np.linalg.norm(query)
        for mask in (np.ones(ROWS, dtype=bool), live, live & (thread < 3), live & (thread == 5)):
            rows = side.candidates(query, mask)
            assert np.array_equal(rows, _plain_candidates(side, query, mask))
            assert len(rows) < mask.sum()  # the approximate path ran
            assert np.array_equal(side.score(query, rows), side.score(query, rows))


def test_a_scope_read_again_reads_only_the_rows_it_lacks(side, monkeypatch):
    monkeypatch.setattr(sidecar_mod, "MAP_ROWS", 0)  # a large file: rows come by pread
    read: list[int] = []
    pread = Sidecar._pread_half
    monkeypatch.setattr(Sidecar, "_pread_half", lambda self, rows: read.append(len(rows)) or pread(self, rows))
    whole = np.array(side.column("half", ROWS))
    thread = side.column("thread")
    scope = np.flatnonzero(thread == 3)

    def check(rows):
        got = side.read_half(rows, keep=True)
        assert np.array_equal(got.view(np.uint16), whole[rows].view(np.uint16))
        return got

    check(scope)
    assert read == [len(scope)]
    check(scope)  # the same scope: nothing read
    assert read == [len(scope)]
    grown = np.sort(np.r_[scope, [1, 2]])  # two rows joined the scope (rows of other threads here)
    check(grown)
    assert read[1:] == [2]
    shrunk = np.delete(grown, [0, 5, 9])
    check(shrunk)  # some left it (forgotten): nothing read
    assert read[1:] == [2]
    other = np.flatnonzero(thread == 4)
    check(other)  # another scope: read whole, the first one still kept
    check(shrunk)
    assert read[1:] == [2, len(other)]
    side.read_half(scope)  # without `keep`: always read
    assert read[-1] == len(scope)


def test_scopes_kept_stay_within_their_bytes(side, monkeypatch):
    monkeypatch.setattr(sidecar_mod, "MAP_ROWS", 0)
    per_scope = len(np.flatnonzero(side.column("thread") == 0)) * (2 * DIMS + 8)
    monkeypatch.setattr(sidecar_mod, "SCOPE_CACHE_BYTES", 2 * per_scope + 100)
    for code in range(7):
        side.read_half(np.flatnonzero(side.column("thread") == code), keep=True)
    assert len(side._kept) == 2 and sum(r.nbytes + v.nbytes for r, v in side._kept) <= sidecar_mod.SCOPE_CACHE_BYTES
    monkeypatch.setattr(sidecar_mod, "SCOPE_CACHE_BYTES", per_scope // 2)  # a scope larger than the cache: not kept
    side._kept.clear()
    side.read_half(np.flatnonzero(side.column("thread") == 1), keep=True)
    assert side._kept == []


def test_a_few_thread_codes_match_as_isin_does():
    from server.storage.sqlite.sidecar import text_code
    from server.storage.sqlite.vectors import matching

    names = [f"project-{n}" for n in range(9)]
    column = np.asarray([text_code(names[n % 9]) for n in range(500)], dtype=np.uint32)
    for values in ([], names[:1], names[:2], [names[3], names[3]], names[:4], names[:5], names, ["elsewhere"]):
        expected = np.isin(column, np.asarray([text_code(v) for v in values], dtype=np.uint32))
        assert np.array_equal(matching(column, values), expected)


def test_the_live_rows_follow_every_published_change(side):
    def expected():
        return (side.column("ids", ROWS) >= 0) & (side.column("deleted", ROWS) == 0)

    first = side.live(ROWS)
    assert np.array_equal(first, expected()) and side.live(ROWS) is first  # unchanged file: the same mask
    side.tombstone(np.asarray([7, 8]))
    side.publish(2)
    assert not side.live(ROWS)[7] and np.array_equal(side.live(ROWS), expected())
    side.patch(np.asarray([9]), created=9, thread=0, kind=0, deleted=1)  # forgotten: no dead row, a new position
    side.publish(3)
    assert not side.live(ROWS)[9] and np.array_equal(side.live(ROWS), expected())
    side.patch(np.asarray([50]), created=50, thread=0, kind=0, deleted=0)  # restored (row 50 was forgotten)
    side.publish(4)
    assert side.live(ROWS)[50] and np.array_equal(side.live(ROWS), expected())
    with pytest.raises(ValueError):
        side.live(ROWS)[0] = False  # shared between searches: read-only
