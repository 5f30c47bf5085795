"""Every limit a caller can hit: enforced with a message that names it, and configurable from the environment."""

from __future__ import annotations

import pytest

from server.config import Settings
from server.embedding.embedders import HashEmbedder
from server.errors import InvalidInput, NotFound, SetupError
from server.service import MemoryService
from server.validation import MAX_ID


@pytest.fixture
def small(tmp_path, clock):
    env = {
        "MEMVAULT_HOME": str(tmp_path / "small"),
        "MEMVAULT_MAX_CONTENT_BYTES": "100",
        "MEMVAULT_MAX_TAGS": "3",
        "MEMVAULT_MAX_TAG_CHARS": "8",
        "MEMVAULT_MAX_QUERY_CHARS": "20",
        "MEMVAULT_MAX_K": "4",
    }
    svc = MemoryService.open(Settings.from_env(env), embedder=HashEmbedder(), clock=clock)
    yield svc
    svc.close()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: s.remember("x" * 101), "content is 101 bytes, over the limit of 100; send less text or raise MEMVAULT_MAX_CONTENT_BYTES"),
        (lambda s: s.remember("é" * 51), "content is 102 bytes, over the limit of 100"),
        (lambda s: s.remember("ok", tags=["a", "b", "c", "d"]), "at most 3 are allowed (MEMVAULT_MAX_TAGS)"),
        (lambda s: s.remember("ok", tags=["ninechars"]), "of at most 8 characters"),
        (lambda s: s.remember("ok", tags=["x" * 40]), "raise MEMVAULT_MAX_TAG_CHARS"),
        (lambda s: s.recall("q" * 21), "over the limit of 20"),
        (lambda s: s.recall("q" * 21), "MEMVAULT_MAX_QUERY_CHARS"),
        (lambda s: s.recall("😀" * 25), "raise MEMVAULT_MAX_QUERY_CHARS"),
        (lambda s: s.recall("q", k=5), "k must be a whole number from 1 to 4 (MEMVAULT_MAX_K)"),
    ],
)
def test_each_limit_is_configurable_and_its_message_names_the_setting(small, call, message):
    with pytest.raises(InvalidInput) as err:
        call(small)
    assert message in str(err.value)


def test_values_at_the_configured_limits_are_accepted(small):
    assert small.remember("x" * 100, tags=["a", "b", "eightchr"]).status == "stored"
    assert small.recall("q" * 20, k=4).search == "hybrid"


def test_repeated_tags_count_once_and_a_huge_tag_list_is_refused_early(service):
    assert service.remember("one tag really", tags=["db"] * 1000).status == "stored"
    with pytest.raises(InvalidInput, match="more than 20 distinct tags"):
        service.remember("too many", tags=[f"t{i}" for i in range(1_000_000)])


@pytest.mark.parametrize("key", ["MEMVAULT_MAX_K", "MEMVAULT_MAX_CONTENT_BYTES", "MEMVAULT_MAX_TAGS"])
@pytest.mark.parametrize("raw", ["0", "-5", "lots"])
def test_a_nonsensical_limit_in_the_environment_stops_start_up_with_the_fix(key, raw):
    with pytest.raises(SetupError, match=key):
        Settings.from_env({key: raw})


def test_a_memory_id_beyond_sqlite_integers_is_invalid_input_not_a_crash(service):
    for bad in (MAX_ID + 1, 2**70):
        with pytest.raises(InvalidInput, match="positive whole number"):
            service.forget(bad)
    with pytest.raises(NotFound, match="No memory"):
        service.forget(MAX_ID)


def test_a_date_that_overflows_in_utc_is_refused_so_recall_never_meets_it(service):
    """9999-12-31T23:59-12:00 is year 10000 in UTC: storing it once used to break every later recall."""
    for bad in ("9999-12-31T23:59:59-12:00", "1970-01-01T00:00:00+01:00"):
        with pytest.raises(InvalidInput, match="out of range"):
            service.remember("dated", created_at=bad)
    service.remember("dated at the edge", created_at="9999-12-31T23:59:59Z")
    assert service.recall("dated edge", thread="*").memories[0].created_at == "9999-12-31T23:59:59Z"


@pytest.mark.parametrize("thread", ["web\n", "web\r\n", "../etc", "a/b", "a\\b", "", ".hidden", "x" * 129, "we b", "wéb"])
def test_thread_names_that_could_become_odd_file_names_are_refused(service, thread):
    with pytest.raises(InvalidInput, match="invalid thread"):
        service.remember("x", thread=thread)


def test_an_error_never_echoes_a_huge_argument(service):
    with pytest.raises(InvalidInput) as err:
        service.remember("x", thread="y" * 5_000_000)
    assert len(str(err.value)) < 400
