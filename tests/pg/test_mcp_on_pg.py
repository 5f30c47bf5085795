"""The MCP-level tests of remember/recall/forget, thread_prompt, resources, curate, export and import,
run unchanged through `mcp.Client` against a PostgreSQL store (tests/pg/conftest.py swaps `settings`)."""

from __future__ import annotations

from test_curate_mcp import (  # noqa: F401 - collected here to run on PostgreSQL
    test_bad_input_gets_a_clear_error_result,
    test_dedupe_previews_then_applies_and_recall_shows_the_label,
    test_export_and_import_by_archive_name,
)
from test_mcp import (  # noqa: F401
    test_bad_input_gets_a_clear_error_and_nothing_is_stored,
    test_origin_of_a_memory_is_the_client_that_wrote_it,
    test_remember_recall_forget_round_trip,
    test_tool_contract_is_pinned,
)
from test_threads import (  # noqa: F401
    test_a_budget_too_small_for_soul_md_alone_still_returns_a_marked_cut,
    test_archive_hides_a_thread_from_the_list_and_keeps_it,
    test_bad_and_hostile_resource_uris_are_not_found,
    test_bad_messages_are_refused_whole,
    test_every_resource_reads,
    test_global_prompts_order_by_priority_and_only_active_ones_count,
    test_large_memory_md_is_served_with_a_truncation_marker,
    test_the_thread_prompt_prompt_inserts_the_context,
    test_thread_prompt_assembles_in_the_documented_order,
    test_thread_prompt_bad_input_is_an_error,
    test_thread_prompt_respects_the_budget_and_says_what_it_left_out,
    test_window_keeps_only_the_last_n_messages_newest_last,
)

pytestmark = __import__("pytest").mark.anyio
