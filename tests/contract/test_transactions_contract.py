"""The store's named transactions (storage/transactions.py), on both backends: each is one
transaction of the roles' own methods, so it must behave as those calls did in the callers."""

from __future__ import annotations

import pytest

from server.errors import InvalidInput
from server.storage.protocol import MemoryState, NewMemory, NewMessage, PossibleUpdate
from server.textindex import index_text


def _new(content: str, thread: str = "ops", at: int = 1_000, updated: int = 2_000) -> NewMemory:
    return NewMemory(thread=thread, content=content, kind="note", source="remember", origin=None, importance=0.5,
                     tags=(), content_hash=content, created_at=at, updated_at=updated, index_text=index_text(content))


def test_add_memory_stores_once_per_thread_and_touches_the_thread_at_the_later_time(svc):
    first, new = svc.store.add_memory(_new("the pipeline runs on Fridays", at=5_000, updated=3_000))
    again, new_again = svc.store.add_memory(_new("the pipeline runs on Fridays"))
    assert new and not new_again and again == first
    assert svc.store.get_thread("ops").last_active_at == 5_000  # max(created, updated)
    other, new_other = svc.store.add_memory(_new("the pipeline runs on Fridays", thread="web"))
    assert new_other and other != first


def test_forget_reports_the_state_before_and_forgets_once(svc):
    memory_id, _ = svc.store.add_memory(_new("keys rotate monthly"))
    assert svc.store.forget(memory_id, 9_000) == MemoryState("keys rotate monthly", None, None)
    assert svc.store.get([memory_id])[memory_id].deleted_at == 9_000
    assert svc.store.forget(memory_id, 9_500).deleted_at == 9_000  # already forgotten: unchanged
    assert svc.store.forget(memory_id + 100, 9_500) is None


def test_link_if_rereads_both_memories_and_links_only_while_they_pass(svc):
    older, _ = svc.store.add_memory(_new("the cache holds 10 minutes"))
    newer, _ = svc.store.add_memory(_new("the cache holds 30 minutes"))
    assert not svc.store.link_if(older, newer, 3_000, [newer], still=lambda row: False)
    assert svc.store.get([older])[older].superseded_by is None
    assert svc.store.link_if(older, newer, 3_000, [newer], still=lambda row: True)
    assert svc.store.get([older])[older].superseded_by == newer
    assert not svc.store.link_if(older, newer + 100, 3_000, [newer], still=lambda row: True)  # one is missing


def test_compress_unchanged_skips_a_memory_changed_since_the_plan(svc):
    kept, _ = svc.store.add_memory(_new("a long note about the deploy pipeline and its stages"))
    gone, _ = svc.store.add_memory(_new("another long note about the billing retries"))
    svc.store.forget(gone, 4_000)
    planned = {i: MemoryState(r.content, None, None) for i, r in svc.store.get([kept, gone]).items()}
    changed = svc.store.compress_unchanged(
        [(i, planned[i], "deploy pipeline stages", "summary", planned[i].content, index_text("deploy pipeline stages"))
         for i in (kept, gone)], 5_000)
    assert changed == [gone]
    assert svc.store.get([kept])[kept].compression == "summary"
    svc.store.restore_all([(kept, planned[kept].content, index_text(planned[kept].content), True, False, False)], 6_000)
    assert svc.store.get([kept])[kept].content == planned[kept].content


def test_claim_day_is_taken_once(svc):
    assert svc.store.claim_day("curator_last_run", "2026-11-28")
    assert not svc.store.claim_day("curator_last_run", "2026-11-28")
    assert svc.store.claim_day("curator_last_run", "2026-11-29")


def test_threads_prompts_and_possible_updates_in_one_call_each(svc):
    svc.store.save_thread("ops", 7_000, title="Operations")
    svc.store.append_messages("ops", [NewMessage("user", str(n)) for n in range(5)], 7_100, keep=3)
    assert svc.store.get_thread("ops").title == "Operations"
    assert [m.content for m in svc.store.recent_messages("ops", 10)] == ["2", "3", "4"]
    svc.store.save_global_prompt("tone", "be brief", 5, 7_200)
    assert svc.store.change_global_prompt("tone", 7_300, active=0)
    assert not svc.store.change_global_prompt("missing", 7_300, active=0)
    assert svc.store.remove_global_prompt("tone") and not svc.store.remove_global_prompt("tone")
    older, _ = svc.store.add_memory(_new("the queue is redis"))
    newer, _ = svc.store.add_memory(_new("the queue is rabbitmq"))
    maybe = PossibleUpdate(older, 0.6)
    svc.store.record_possible_updates({newer: maybe})
    assert svc.store.possible_updates_of([newer]) == {newer: maybe}
    assert svc.store.possible_updates_older([older]) == {older: {newer: maybe}}
    svc.store.record_possible_updates({newer: None})
    assert svc.store.possible_updates_of([newer]) == {}


def test_a_failing_check_writes_nothing(svc):
    memory_id, _ = svc.store.add_memory(_new("tabs, not spaces"))

    def refuse(row):
        raise InvalidInput("not editable")

    with pytest.raises(InvalidInput):
        svc.store.edit_details(memory_id, "preference", ("style",), 0.9, 8_000, check=refuse)
    assert svc.store.get([memory_id])[memory_id].kind == "note"
    svc.store.edit_details(memory_id, "preference", ("style",), 0.9, 8_000, check=lambda row: None)
    assert svc.store.get([memory_id])[memory_id].tags == ("style",)
