"""The memory commands of `memvault` in-process (`server.cli.main`): what they print piped, with --json and on
a terminal, and their exit codes. (Spawned as the installed command: test_cli_e2e.py; on PostgreSQL:
tests/pg/test_cli_on_pg.py.)"""

from __future__ import annotations

import io
import json

import pytest

from server.cli import main
from server.cli.output import Output


def _json(cli, *args):
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_remember_list_show_and_recall_print_plain_lines_when_piped(cli):
    assert cli("remember", "We deploy billing with Helm", "--kind", "decision", "--thread", "shop", "--tags", "deploy,infra") \
        == (0, "1\n", "memvault: Stored as memory 1 (thread shop).\n")
    code, out, _ = cli("remember", "I prefer short answers", "--kind", "preference")
    assert (code, out) == (0, "2\n")
    code, out, err = cli("list")
    assert code == 0 and err == ""
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [
        ("2", "preference", "global", "I prefer short answers"), ("1", "decision", "shop", "We deploy billing with Helm")]
    code, out, _ = cli("recall", "billing helm", "--thread", "shop")
    first = out.splitlines()[0].split("\t")
    assert (first[0], first[3], first[4], first[6]) == ("1", "decision", "shop", "We deploy billing with Helm")
    code, out, _ = cli("show", "1")
    lines = out.splitlines()
    assert "thread: shop" in lines and "tags: deploy,infra" in lines and "origin: memvault cli" in lines
    assert lines[lines.index("# content") + 1] == "We deploy billing with Helm"
    assert any(line.endswith("\tcreated through remember by memvault cli") for line in lines)


def test_json_output_is_the_services_result(cli):
    stored = _json(cli, "remember", "Tests run with make test", "--thread", "shop", "--kind", "snippet")
    assert (stored["id"], stored["status"], stored["thread"]) == (1, "stored", "shop")
    listing = _json(cli, "list", "--thread", "shop")
    assert (listing["total"], listing["memories"][0]["content"]) == (1, "Tests run with make test")
    detail = _json(cli, "show", "1")
    assert detail["memory"]["kind"] == "snippet" and detail["history"][0]["what"].startswith("created through remember")
    found = _json(cli, "recall", "make test", "--thread", "shop")
    assert found["search"] == "hybrid" and found["memories"][0]["id"] == 1
    [shop] = [t for t in _json(cli, "stats") if t["thread"] == "shop"]
    assert (shop["live"], shop["by_kind"], shop["duplicates"]) == (1, {"snippet": 1}, 0)
    assert [t["thread"] for t in _json(cli, "threads")][0] == "shop"


def test_edit_forget_restore_and_pin_change_the_memory_and_say_so(cli):
    cli("remember", "We deploy billing with Helm", "--thread", "shop")
    code, out, err = cli("edit", "1", "--text", "We deploy billing with Argo CD")
    assert (code, out) == (0, "2\n") and "Memory 1 is now memory 2" in err
    code, out, err = cli("edit", "2", "--tags", "deploy", "--importance", "0.8")
    assert (code, out) == (0, "2\n") and "tags [] → [deploy], importance 0.5 → 0.8" in err
    assert _json(cli, "show", "1")["memory"]["states"] == ["superseded by 2"]
    code, _, err = cli("forget", "2")
    assert code == 0 and "Memory 2 is forgotten" in err
    assert [m["id"] for m in _json(cli, "list", "--forgotten")["memories"]] == [2]
    assert _json(cli, "list")["memories"][0]["id"] == 1  # the old version is the live one left
    code, out, err = cli("restore", "2")
    assert code == 0 and "restored memory 2" in err
    code, _, err = cli("pin", "2")
    assert code == 0 and "pinned memory 2" in err
    assert _json(cli, "show", "2")["memory"]["states"] == ["pinned"]
    history = [e["what"] for e in _json(cli, "show", "2")["history"]]
    assert "forget: memory 2 (from the terminal)" in history and "restore: restored memory 2" in history


def test_forget_of_several_ids_forgets_each_it_can_and_reports_every_outcome(cli, capsys):
    """`memvault forget 1 999999 2`: per id, not all or nothing; exit 3 because one id does not exist."""
    cli("remember", "first", "--thread", "shop")
    cli("remember", "second", "--thread", "shop")
    code, out, err = cli("forget", "1", "999999", "2", "--json")
    assert code == 3
    assert [(o["id"], o["status"]) for o in json.loads(out)] == [(1, "forgotten"), (999999, "not_found"), (2, "forgotten")]
    code, _, err = cli("forget", "1", "999999")
    assert code == 3 and "Memory 1 was already forgotten." in err and "999999: not forgotten: No memory 999999" in err
    assert "1 of 2 ids forgotten" in err
    with pytest.raises(SystemExit):
        cli("forget", "--help")
    assert "each id is forgotten on its own, not all or nothing" in " ".join(capsys.readouterr().out.split()).lower()


def test_show_names_a_possible_update_both_ways_and_the_command_that_confirms_it(cli, settings):
    """The update model's guess below its linking threshold (storage PossibleUpdate; the hash embedder makes
    none itself): `show` of the older names the later memory and the curate command; of the newer, the older."""
    from server.compose import open_service
    from server.storage.protocol import PossibleUpdate

    cli("remember", "The docs site is hosted on GitHub Pages", "--thread", "docs")
    cli("remember", "Docs hosting: Cloudflare Pages, built from main", "--thread", "docs")
    service = open_service(settings.with_(embedder="hash"))
    try:
        with service.db.write() as conn:
            service.store.set_possible_update(conn, 2, PossibleUpdate(1, 0.42))
    finally:
        service.close()
    code, out, _ = cli("show", "1")
    assert code == 0 and ("possibly outdated by: 2 (p 0.42; not linked — `memvault curate supersede --ids 1 "
                          "--replacement-id 2 --apply` confirms): Docs hosting: Cloudflare Pages, built from main") in out
    assert "possibly updates: 1 (p 0.42; not linked): The docs site is hosted on GitHub Pages" in cli("show", "2")[1]
    detail = _json(cli, "show", "1")
    assert [(p["memory"]["id"], p["probability"]) for p in detail["possibly_updated_by"]] == [(2, 0.42)]
    code, _, err = cli("curate", "supersede", "--ids", "1", "--replacement-id", "2", "--apply")
    assert code == 0 and "possibly" not in cli("show", "1")[1]  # confirmed: a link now, no longer a guess
    assert _json(cli, "show", "1")["memory"]["states"] == ["superseded by 2"]
    assert "possibly" not in cli("show", "2")[1] and _json(cli, "show", "2")["possibly_updates"] is None


def test_a_chain_of_updates_names_the_current_version_in_show_and_in_recall(cli):
    """Memory 1, superseded by 2, which 3 superseded, which 4 superseded: `show 1` names 4 as the current version
    with the chain, and recall labels each old one with 4 and the way there (issue 35)."""
    cli("remember", "The release is due 2024-06-20", "--kind", "fact")
    for n, date in ((1, "2025-03-31"), (2, "2025-04-30"), (3, "2025-05-30")):
        assert cli("edit", str(n), "--text", f"The release is due {date}")[0] == 0
    lines = cli("show", "1")[1].splitlines()
    assert lines[lines.index("superseded by: 2: The release is due 2025-03-31"):][:3] == [
        "superseded by: 2: The release is due 2025-03-31", "current version: 4: The release is due 2025-05-30",
        "chain: 1 → 2 → 3 → 4"]
    detail = _json(cli, "show", "1")
    assert (detail["current"]["id"], detail["chain"]) == (4, [1, 2, 3, 4])
    direct = _json(cli, "show", "3")  # replaced by the current version itself: nothing more to say
    assert (direct["superseded_by"]["id"], direct["current"], direct["chain"]) == (4, None, [])
    labels = {m["id"]: m["label"] for m in _json(cli, "recall", "when is the release due")["memories"]}
    assert labels == {4: None, 3: "superseded by memory 4", 2: "superseded by memory 4, the current version (2 → 3 → 4)",
                      1: "superseded by memory 4, the current version (1 → 2 → 3 → 4)"}


def test_curate_errors_name_the_terminals_options(cli):
    """The curator's errors name --ids and the commands that show ids, not the MCP tool's arguments (issue 35)."""
    assert cli("curate", "restore") == (
        2, "", "memvault: restore needs --ids: the memory ids to act on, as `memvault list` or `memvault recall WORDS` "
        "shows them\n")
    code, _, err = cli("curate", "supersede", "--ids", "7", "--replacement-id", "8")
    assert (code, err) == (3, "memvault: No memory 7, 8; `memvault list` or `memvault recall WORDS` shows current "
                              "memory ids.\n")


def test_curate_previews_and_applies_only_with_apply(cli):
    cli("remember", "Deploys go through Argo CD", "--thread", "shop")
    cli("remember", "deploys go through argo cd.", "--thread", "shop")
    code, out, err = cli("curate", "dedupe", "--thread", "shop")
    assert code == 0 and "Would apply: dedupe" in err and "run again with --apply" in err
    assert _json(cli, "list", "--superseded")["total"] == 0
    code, out, err = cli("curate", "dedupe", "--thread", "shop", "--apply")
    assert code == 0 and "Done: dedupe" in err
    assert [m["id"] for m in _json(cli, "list", "--superseded")["memories"]] == [1]
    result = _json(cli, "curate", "stats")
    assert result["action"] == "stats" and result["counts"]["superseded"] == 1


def test_global_prompts_from_the_terminal(cli):
    code, out, err = cli("prompts", "set", "style", "--content", "Answer briefly.", "--priority", "5")
    assert code == 0 and out == "style\t5\tyes\tAnswer briefly.\n" and "saved and active" in err
    assert _json(cli, "prompts", "deactivate", "style")["prompts"][0]["active"] is False


def test_exit_codes_say_what_went_wrong(cli, settings):
    assert cli("show", "42")[0] == 3  # no such memory
    code, _, err = cli("forget", "nope")
    assert code == 2 and "'nope' is not a memory id" in err
    code, _, err = cli("remember", "")
    assert code == 2 and "content" in err
    code, _, err = cli("list", "--since", "yesterday-ish")
    assert code == 2 and "since" in err
    cli("remember", "x", "--thread", "shop")
    code, _, err = cli("stats", "--thread", "nowhere")
    assert code == 3 and "no thread 'nowhere'" in err
    with pytest.raises(SystemExit) as usage:  # argparse's own usage errors
        main(["list", "--kind", "poem"])
    assert usage.value.code == 2


def test_long_listings_come_a_page_at_a_time(cli):
    for n in range(5):
        cli("remember", f"note number {n}", "--thread", "t")
    code, out, err = cli("list", "--thread", "t", "--limit", "2", "--offset", "2")
    assert [line.split("\t")[0] for line in out.splitlines()] == ["3", "2"]
    assert err == "memvault: showing 3-4 of 5; --offset 4 for more\n"


def test_on_a_terminal_tables_are_drawn_and_text_is_never_read_as_markup():
    buffer = io.StringIO()
    out = Output(stream=buffer, err=io.StringIO(), tty=True)
    out.table(["id", "memory", "state"], [[7, "use [red]bold[/red] and [/] as written", out.styled("pinned", "pinned")]],
              wide="memory")
    text = buffer.getvalue()
    assert "┃" in text and "━" in text  # a drawn table
    assert "[red]bold[/red]" in text and "[/]" in text  # shown as written, not interpreted
    assert "\x1b[" in text  # coloured
    piped = io.StringIO()
    Output(stream=piped, tty=False).table(["id", "memory"], [[7, "a\tb\nc"]])
    assert piped.getvalue() == "7\ta b c\n"


def test_progress_is_a_line_per_step_on_a_pipe_for_large_jobs_only():
    err = io.StringIO()
    out = Output(stream=io.StringIO(), err=err)
    with out.progress("imported") as report:
        report(10, 20)
    with out.progress("imported") as report:
        report(500, 1000)
        report(1000, 1000)
    assert err.getvalue() == "imported 500/1000 memories\nimported 1000/1000 memories\n"


def test_lines_of_memory_files_are_listed_only_when_asked(cli, settings):
    cli("remember", "a memory", "--thread", "shop")
    (settings.files_dir / "MEMORY.md").write_text("# MEMORY\n\n- We ship on Fridays\n")
    cli("recall", "ship")  # indexes the file
    assert [m["content"] for m in _json(cli, "list")["memories"]] == ["a memory"]
    listed = _json(cli, "list", "--files")["memories"]
    assert [(m["content"], m["location"]) for m in listed][0] == ("We ship on Fridays", "MEMORY.md:3")
    [glob] = [t for t in _json(cli, "stats") if t["thread"] == "global"]
    assert (glob["live"], glob["files"]) == (0, 1)
