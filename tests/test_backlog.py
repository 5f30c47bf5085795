"""A recall never waits for the embedding backlog; queries go ahead of backfill batches; long texts
are embedded as passages (issue 19, issue 14 item 8)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from server.embedding import passages as passages_mod
from server.embedding.backfill import BATCH_SIZE, CANDIDATE_LIMIT as RECALL_EMBED_LIMIT
from server.embedding.embedders import HashEmbedder, MiniLMEmbedder
from server.embedding.passages import MAX_PASSAGES, PASSAGE_WORDS, SINGLE_MAX_WORDS, passages
from server.ranking import KEYWORD_CANDIDATES
from server.recall import RECALL_DRAIN_LIMIT


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return super().embed(texts)


@pytest.fixture
def counting(settings, clock):
    from server.service import MemoryService

    embedder = CountingEmbedder()
    svc = MemoryService.open(settings, embedder=embedder, clock=clock)
    svc.recall("warm up: index the memory files", thread="t")
    svc.indexer.run_once()  # their units, so that only what the test stores is pending
    embedder.texts = 0
    yield svc, embedder
    svc.close()


def test_a_recall_over_a_backlog_embeds_its_query_and_a_few_of_its_candidates_and_says_what_is_pending(counting):
    service, embedder = counting
    for n in range(60):
        service.remember(f"backlog note {n} about the payments queue", thread="t")
    service.remember("a note in another thread", thread="elsewhere")
    embedder.texts = 0  # remember may embed its text to judge updates (server/linker.py); count the recall's
    first = service.recall("payments queue", thread="t", k=5)
    # Its query, and at most RECALL_EMBED_LIMIT of what was just written and of its best keyword candidates
    assert 1 < embedder.texts <= 1 + RECALL_EMBED_LIMIT
    assert 60 - RECALL_EMBED_LIMIT <= first.pending_embeddings < 60  # the other thread's is not in scope
    assert first.search == "mixed" and first.keyword_candidates == KEYWORD_CANDIDATES
    left = first.unembedded_candidates
    assert 0 < left <= first.pending_embeddings
    assert f"Ranked by keyword alone for {left} of the {KEYWORD_CANDIDATES} keyword candidates" in first.note
    assert f"{first.pending_embeddings} memories in the searched threads are not embedded yet" in first.note
    assert any(m.match == "keyword" for m in first.memories)  # found by keyword meanwhile
    second = service.recall("payments queue", thread="t", k=5)
    assert second.pending_embeddings < first.pending_embeddings  # each recall embeds a few more of its own
    service.indexer.run_once()
    after = service.recall("payments queue", thread="t", k=5)
    assert after.pending_embeddings == 0 and (after.note is None or "not embedded" not in after.note)
    assert after.search == "hybrid" and after.unembedded_candidates == 0
    assert any(m.match == "both" for m in after.memories)


def test_a_recall_embeds_no_more_than_the_embedders_speed_fits(counting, monkeypatch):
    """On a loaded machine (a text costs more than the recall's time bound) a recall embeds none of its
    candidates: it ranks them by keyword and says so, rather than waiting."""
    service, embedder = counting
    for n in range(20):
        service.remember(f"backlog note {n} about the payments queue", thread="t")
    service.recall("warm", thread="t", k=1)  # what was just written: embedded by this first recall
    monkeypatch.setattr(service.indexer, "_seconds_per_text", 1.0)
    embedder.texts = 0
    result = service.recall("payments queue", thread="t", k=5)
    assert embedder.texts == 1 and result.search == "mixed"  # its query only
    assert result.unembedded_candidates == result.pending_embeddings > 0


def test_a_recalled_thread_is_embedded_before_the_rest_of_the_backlog(counting):
    """The backfill serves the thread asked about last before older queued memories of other threads."""
    service, _ = counting
    old = [service.remember(f"imported note {n} on the harbour", thread="import").id for n in range(3 * BATCH_SIZE)]
    asked = [service.remember(f"release note {n}", thread="app").id for n in range(2 * BATCH_SIZE)]
    # Vectors `remember` already computed are stored by the next recall without embedding anything
    # (Indexer.store_known): those leave the queue whatever their thread.
    computed = set(service.indexer._known)
    service.indexer.prefer(("import",))  # asked about the import a moment ago
    service.recall("zebra crossing", thread="app", k=1)  # embeds what was just written (the last batch's worth)
    service.indexer.run_once(limit=BATCH_SIZE)
    waiting = {p.memory_id for p in service.store.pending(1000)}
    assert not waiting & set(asked) and waiting == set(old) - computed and waiting


def test_a_few_just_remembered_memories_are_embedded_by_the_recall_itself(counting):
    service, embedder = counting
    stored = [service.remember(f"fresh decision {n}: use the blue deployment", thread="t").id for n in range(3)]
    assert 3 <= RECALL_DRAIN_LIMIT
    embedder.texts = 0  # remember may embed its text to judge updates (server/linker.py); count the recall's
    result = service.recall("blue deployment", thread="t", k=5)
    # the two written behind the first and the query (remember embedded the first, its vector is reused)
    assert embedder.texts == 2 + 1 and result.pending_embeddings == 0 and result.note is None
    assert {m.id for m in result.memories if m.match == "both"} == set(stored)


def test_a_recall_does_not_wait_for_a_batch_of_other_memories(counting, monkeypatch):
    service, embedder = counting
    monkeypatch.setattr("server.embedding.backfill.BATCH_WAIT_SECONDS", 0.2)
    service.remember("one fresh memory", thread="t")
    embedder.texts = 0  # remember may embed its text to judge updates (server/linker.py); count the recall's
    with service.indexer._lock:  # a backfill batch is running and does not finish
        started = time.perf_counter()
        result = service.recall("fresh memory", thread="t")
        took = time.perf_counter() - started
    # Its own keyword candidate is stored beside the batch (no wait for the backfill's lock), with the vector
    # remember computed: only the query is embedded
    assert result.pending_embeddings == 0 and embedder.texts == 1 and took < 5
    assert result.memories[0].match == "both" and result.search == "hybrid"


def test_a_memory_the_running_batch_embeds_is_found_by_meaning(counting):
    """The backfill took the just-remembered memory into its batch: the recall waits for that batch."""
    service, embedder = counting
    stored = service.remember("we settled on the blue deployment", thread="t").id
    holding, release = threading.Event(), threading.Event()
    embed = service.indexer._embed

    def slow_batch(batch: list) -> int:
        holding.set()
        release.wait(5)
        return embed(batch)

    service.indexer._embed = slow_batch  # type: ignore[method-assign]
    worker = threading.Thread(target=service.indexer.run_once)
    worker.start()
    assert holding.wait(5)
    threading.Timer(0.1, release.set).start()
    started = time.perf_counter()
    result = service.recall("blue deployment", thread="t")
    took = time.perf_counter() - started
    worker.join()
    assert took < 1.5  # woken by the batch's end, not by the 2 s bound
    assert result.pending_embeddings == 0 and result.memories[0].id == stored
    assert result.memories[0].match == "both"


def test_the_backfill_commits_batch_by_batch(counting):
    service, _ = counting
    for n in range(3 * BATCH_SIZE + 2):
        service.remember(f"note {n}", thread="t")
    commits = []
    real = service.store.store_vectors
    service.store.store_vectors = lambda vectors: commits.append(len(vectors)) or real(vectors)  # type: ignore[method-assign]
    assert service.indexer.run_once() == 3 * BATCH_SIZE + 2
    assert commits == [BATCH_SIZE] * 3 + [2]


def test_a_query_goes_ahead_of_the_next_backfill_batch():
    """A single text (a recall's query) waits for the batch being encoded, not for the rest of the backlog."""
    embedder = MiniLMEmbedder(batch_size=2)
    order: list[str] = []

    def run(texts: list[str]) -> np.ndarray:
        order.append("query" if texts == ["the query"] else "batch")
        time.sleep(0.05)
        return np.ones((len(texts), embedder.dimensions), dtype=np.float32)

    embedder._run, embedder._max_batch, embedder._started = run, 2, True
    embedder._ready.set()
    backlog = threading.Thread(target=embedder.embed, args=([f"text {n}" for n in range(20)],))
    backlog.start()
    time.sleep(0.08)  # the backfill is in its second batch of ten
    started = time.perf_counter()
    embedder.embed(["the query"])
    waited = time.perf_counter() - started
    backlog.join()
    assert order.index("query") <= 3 and order.count("batch") == 10
    assert waited < 0.3  # one batch of 50 ms and its own 50 ms, not the 400 ms of the backlog left


def test_short_texts_are_one_passage_and_long_ones_overlapping_windows():
    short = " ".join(f"w{i}" for i in range(SINGLE_MAX_WORDS))
    assert passages(short) == [short]
    words = [f"w{i}" for i in range(1000)]
    text = " ".join(words)
    out = passages(text)
    assert out[0] == text  # the whole text first: what the model reads of it, as before passages
    windows = [p.split() for p in out[1:]]
    assert all(len(w) <= PASSAGE_WORDS for w in windows)
    assert windows[0][0] == "w0" and windows[-1][-1] == "w999"
    covered = {w for window in windows for w in window}
    assert covered == set(words)
    assert all(set(a) & set(b) for a, b in zip(windows, windows[1:]))  # neighbours overlap
    huge = " ".join(f"w{i}" for i in range(20_000))
    assert len(passages(huge)) <= MAX_PASSAGES


def test_a_fact_in_the_middle_of_a_long_memory_is_found_by_meaning(settings, clock, monkeypatch):
    """End to end: the backfill embeds passages, vector search ranks the memory by its best one."""
    from server.service import MemoryService

    monkeypatch.setattr(passages_mod, "SINGLE_MAX_WORDS", 20)
    monkeypatch.setattr(passages_mod, "PASSAGE_WORDS", 10)
    monkeypatch.setattr(passages_mod, "PASSAGE_STRIDE", 5)
    svc = MemoryService.open(settings, embedder=HashEmbedder(), clock=clock)
    try:
        filler = " ".join(f"filler{i}" for i in range(60))
        long_id = svc.remember(f"{filler} zeppelin hangar inventory {filler}", thread="t").id
        svc.indexer.run_once()
        rows = svc.db.conn.execute("SELECT passages FROM vector_rows WHERE memory_id = ?", (long_id,)).fetchone()[0]
        assert rows == len(passages_mod.passages(svc.get(long_id).content)) > 5
        hits = svc.store.knn(svc.embedder.embed(["zeppelin hangar inventory"])[0], 3, _scope("t"))
        whole = float(svc.embedder.embed([svc.get(long_id).content])[0] @ svc.embedder.embed(["zeppelin hangar inventory"])[0])
        assert next(iter(hits)) == long_id and 1 - hits[long_id] > whole + 0.2  # the passage is far closer
    finally:
        svc.close()


def _scope(thread: str):
    from server.storage.protocol import Scope

    return Scope(threads=(thread, ""))


def test_on_onnx_runtime_a_query_runs_beside_the_batch_being_encoded():
    """ONNX Runtime sessions take concurrent calls: the query does not wait for the batch in progress."""
    embedder = MiniLMEmbedder(batch_size=4)
    batch_running, batch_may_end, batch_done = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def run(texts: list[str]) -> np.ndarray:
        if texts == ["the query"]:
            seen.append(batch_running.is_set() and not batch_done.is_set())
        else:
            batch_running.set()
            batch_may_end.wait(2)
            batch_done.set()
        return np.ones((len(texts), embedder.dimensions), dtype=np.float32)

    embedder._run, embedder._max_batch, embedder._started, embedder.runtime = run, 4, True, "onnx"
    embedder._ready.set()
    backlog = threading.Thread(target=embedder.embed, args=([f"text {n}" for n in range(4)],))
    backlog.start()
    assert batch_running.wait(5)
    embedder.embed(["the query"])  # would block until batch_may_end if it waited for its turn
    batch_may_end.set()
    backlog.join()
    assert seen == [True]


def test_a_memory_embedded_to_judge_its_write_is_not_embedded_again(counting):
    """remember embeds a statement to judge it as an update (the model ready, no queue); the backfill
    stores that vector rather than embedding the same text a second time. Edited since, or long (more
    passages than the one text), it is embedded as usual."""
    service, embedder = counting
    first = service.remember("The payments service targets Python 3.12.", thread="t").id
    assert embedder.texts == 1  # embedded once, to judge the write
    assert service.indexer.run_once() == 1
    assert embedder.texts == 1  # the backfill stored it without embedding it again
    with service.db.read() as conn:
        stored = service.store.vectors(conn, [first])[first]
    assert np.allclose(np.atleast_2d(stored)[0], embedder.embed(["The payments service targets Python 3.12."])[0])
    embedder.texts = 0
    long_text = " ".join(f"word{n}" for n in range(400))
    service.remember(long_text, thread="t")
    service.indexer.run_once()
    assert embedder.texts > 2  # its first passage to judge it, then every passage by the backfill


def test_the_backfill_embeds_texts_of_similar_length_together_and_the_oldest_first(counting):
    """A batch pads to its longest text: the backfill picks, from the queue ahead, the batch of similar
    lengths that holds the oldest memory (so nothing waits behind shorter newcomers)."""
    service, _ = counting
    lengths = [3, 40, 3, 40, 3, 40, 3, 40, 3, 40, 3, 40, 3, 40, 3, 40]
    ids = [service.remember(f"memory {n} " + "word " * size, thread="t").id for n, size in enumerate(lengths)]
    service.indexer.run_once(limit=BATCH_SIZE)
    waiting = {p.memory_id for p in service.store.pending(100)}
    short = {i for i, size in zip(ids, lengths) if size == 3}
    assert set(ids) - waiting == short  # the oldest is short: the short ones, together
    service.indexer.run_once(limit=BATCH_SIZE)
    assert not service.store.pending(100)


@pytest.fixture(autouse=True)
def _notes_wait_for_the_backfill(monkeypatch):
    """These notes stand for what waits for the backfill (turns, long texts): a short statement is embedded when it
    is written, whatever the queue (server/linker.py, SHORT_STATEMENT), and would leave no backlog here."""
    from server import linker

    monkeypatch.setattr(linker, "SHORT_STATEMENT", 0)


# -- a burst of statements: their vectors were computed at write time (issue 32 item 3, issue 34 item 1) --
@pytest.fixture
def statements_embedded_on_write(monkeypatch):
    """Short statements are embedded when written, whatever the queue (undoes the module's fixture)."""
    from server import linker

    monkeypatch.setattr(linker, "SHORT_STATEMENT", 600)


def test_a_burst_keeps_as_many_computed_vectors_as_the_linker_keeps_of_the_same_arrays():
    """A cap of 1,024 dropped the first 332 vectors of a 1,356-write burst (bench/updates.py --at-once): their
    questions, asked at once, were ranked by keyword alone. The arrays are the linker's own (shared)."""
    from server import linker
    from server.embedding import backfill

    assert backfill.KNOWN_VECTORS >= linker.RECENT_VECTORS >= 4096


def test_a_recall_stores_the_computed_vectors_of_its_own_threads_first(counting, statements_embedded_on_write,
                                                                        monkeypatch):
    """Asked right after a burst, the thread written first is ranked by the vectors remember computed for it,
    though a recall stores at most KNOWN_PER_RECALL of them and later threads' are newer."""
    monkeypatch.setattr("server.embedding.backfill.KNOWN_PER_RECALL", 20)
    service, embedder = counting
    first = [service.remember(f"The service number {n} listens on port {8000 + n}.", thread="early").id
             for n in range(20)]
    for n in range(30):
        service.remember(f"Decision {n}: the batch job {n} runs at {n % 24}:00 UTC.", thread="late")
    assert embedder.texts == 50  # each embedded once, to judge its write
    monkeypatch.setattr(service.indexer, "_seconds_per_text", 1.0)  # a loaded machine: a recall embeds nothing
    embedder.texts = 0
    result = service.recall("which port does service number 3 listen on", thread="early", k=5)
    assert embedder.texts == 1  # the query: the thread's vectors were stored, none embedded again
    assert result.search == "hybrid" and result.pending_embeddings == 0
    with service.db.read() as conn:
        assert len(service.store.vectors(conn, first)) == len(first)


def test_the_backfill_stores_the_vectors_writes_computed_before_it_embeds_anything(counting,
                                                                                   statements_embedded_on_write):
    """The backfill thread (settle) stores every vector remember computed before its next batch: they wait
    neither for the queue's order nor for a recall."""
    service, embedder = counting
    for n in range(3 * BATCH_SIZE):
        service.remember(f"The worker {n} uses queue q{n}.", thread="t")
    turns = [service.remember(f"user: a passing remark number {n}", kind="turn", thread="chat").id for n in range(2)]
    embedder.texts = 0
    assert service.indexer.run_once(limit=1, settle=True) == 1  # one batch of one memory
    assert {p.memory_id for p in service.store.pending(100)} <= set(turns)  # the statements are all stored
    assert embedder.texts <= 1  # what the batch embedded; the statements were not embedded again


def test_a_recall_starts_no_candidate_batch_its_time_bound_cannot_fit(counting, monkeypatch):
    """On a loaded machine a recall's own text costs more than the backfill's speed says: the recall embeds
    a few at a time, learns the slower speed from them, and stops at its bound rather than finishing a
    batch of 8 started in time (in-process timers: 100-240 ms past the 60 ms bound)."""
    service, embedder = counting
    for n in range(40):
        service.remember(f"backlog note {n} about the payments queue", thread="t")
    service.recall("warm", thread="t", k=1)  # what was just written: embedded by this first recall
    slow = embedder.embed

    def embed_slowly(texts: list[str]) -> np.ndarray:
        time.sleep(0.03 * len(texts))  # 6x what the backfill measured (FIRST_GUESS_SECONDS)
        return slow(texts)

    monkeypatch.setattr(embedder, "embed_urgent", embed_slowly)
    monkeypatch.setattr(service.indexer, "_seconds_per_text", 0.005)
    embedder.texts = 0
    result = service.recall("payments queue", thread="t", k=5)
    assert 1 < embedder.texts <= 1 + 4  # the query and one small batch, not 8 or 12 candidates
    assert result.search == "mixed" and result.unembedded_candidates > 0
    assert service.indexer._urgent_ratio > 1  # the next recall fits fewer


def test_a_recall_whose_earlier_stages_spent_its_bound_embeds_no_candidate(counting, monkeypatch):
    service, embedder = counting
    for n in range(20):
        service.remember(f"backlog note {n} about the payments queue", thread="t")
    service.recall("warm", thread="t", k=1)
    monkeypatch.setattr("server.recall.EMBED_BY_SECONDS", 0.0)  # stages 1-3 took it all (a loaded machine)
    embedder.texts = 0
    result = service.recall("payments queue", thread="t", k=5)
    assert embedder.texts == 1 and result.search == "mixed"
    assert result.unembedded_candidates == result.pending_embeddings > 0


def test_the_candidates_a_recall_ranked_without_a_vector_are_the_backfills_next_batch(counting, monkeypatch):
    """Under load a recall embeds few of its own candidates: the backfill embeds the rest next, before the
    oldest of the queue (the next question is often about the same thing)."""
    service, embedder = counting
    for n in range(20):
        service.remember(f"an older note {n} on the weather", thread="t")
    harbour = [service.remember(f"a later note {n} on the harbour crane", thread="t").id for n in range(20)]
    service.recall("warm", thread="t", k=1)  # what was just written: embedded by this first recall
    monkeypatch.setattr(service.indexer, "_seconds_per_text", 1.0)  # a loaded machine: a recall embeds nothing
    result = service.recall("harbour crane", thread="t", k=5)
    assert result.unembedded_candidates > BATCH_SIZE
    waiting = {p.memory_id for p in service.store.pending(100)}
    service.indexer.run_once(limit=BATCH_SIZE)
    embedded = waiting - {p.memory_id for p in service.store.pending(100)}
    assert len(embedded) == BATCH_SIZE and embedded <= set(harbour)
