"""Recall's newer-first order (server/updates/newer_first.py): an update the write-time rules did not link comes
first when the query asks for both alike; look-alikes and what the query names keep their place."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from server.updates import newer_first
from server.updates.statements import analyse
from server.updates import Weights, judge

OLD = "vercel.json sets maxDuration to 10 seconds for the functions under app/api."
#: When the older memories were written (the service's clock is later: these are past notes).
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
QUERY = "maxDuration in vercel.json for the functions"
NEW = ("API functions get maxDuration 30 in vercel.json; PayPal order capture sometimes takes 12 to 15 seconds "
       "and was timing out.")


def _remember(service, text: str, days: int, thread: str = "t") -> int:
    return service.remember(text, thread=thread, created_at=T0 + timedelta(days=days)).id


def _ranks(service, query: str, k: int = 5) -> list[int]:
    return [m.id for m in service.recall(query, thread="t", k=k).memories]


def test_an_update_the_rules_did_not_link_comes_first_unlabelled(service):
    assert judge(analyse(OLD), analyse(NEW), 0.6, Weights()) is None  # no change word: not linked on write
    old, new = _remember(service, OLD, 0), _remember(service, NEW, 30)
    _remember(service, "The donate page is statically rendered and revalidated every 60 seconds.", 10)
    service.embed_backlog()
    assert service.get(old).superseded_by is None  # nothing is linked ...
    result = service.recall(QUERY, thread="t")
    ids = [m.id for m in result.memories]
    assert ids[:2] == [new, old]  # ... yet the newer statement comes first
    first, second = result.memories[:2]
    assert first.score == second.score  # as likely an answer as the one it may update
    assert (first.superseded_by, first.label, second.superseded_by, second.label) == (None, None, None, None)


def test_the_older_keeps_its_place_when_the_query_names_what_only_it_holds(service):
    old = _remember(service, "The functions under app/api get maxDuration 10 in vercel.json.", 0)
    cron = _remember(service, "The cron functions get maxDuration 30 in vercel.json.", 30)
    service.embed_backlog()
    assert _ranks(service, "maxDuration of the app/api functions in vercel.json")[0] == old
    assert _ranks(service, "maxDuration of the cron functions in vercel.json")[0] == cron


def test_look_alikes_events_and_turns_keep_the_rankings_order(service, monkeypatch):
    """Asked alike (the query names neither side), two environments, two deployments and two chat turns
    come in the ranking's own order: each newer one is another fact, not an update."""
    _remember(service, "The staging database host is db-stg-1.internal, port 5432.", 0)
    _remember(service, "The production database host is db-prod-1.internal, port 6432.", 30)
    _remember(service, "Release v2.4.0 went to production as deployment #1841.", 0)
    _remember(service, "Release v2.4.1 went to production as deployment #1842 after the hotfix.", 30)
    service.remember(OLD, thread="turns", kind="turn", created_at=T0)
    service.remember(NEW, thread="turns", kind="turn", created_at=T0 + timedelta(days=30))
    service.embed_backlog()
    asked = [("database host port", "t"), ("release deployment production", "t"), (QUERY, "turns")]
    got = [[m.id for m in service.recall(q, thread=thread).memories] for q, thread in asked]
    monkeypatch.setattr(newer_first, "order", lambda ranked, *rest: list(ranked))
    ranking_alone = [[m.id for m in service.recall(q, thread=thread).memories] for q, thread in asked]
    assert got == ranking_alone
    assert all(ids[0] < ids[1] for ids in ranking_alone)  # the older first: each case would be moved


def test_a_newer_memory_below_the_first_k_is_looked_for_within_the_window(service):
    old, new = _remember(service, OLD, 0), _remember(service, NEW, 30)
    for n in range(12):
        _remember(service, f"vercel.json functions under app/api note {n}: keep handlers small and stateless.", 5 + n)
    service.embed_backlog()
    ranked = _ranks(service, QUERY, k=newer_first.WINDOW)
    assert new in ranked and ranked.index(new) < ranked.index(old)
    assert _ranks(service, QUERY, k=1) == [new]


@pytest.mark.parametrize("days", [0, -30])
def test_only_a_later_memory_goes_first(service, days):
    """Written at the same time or before, the 'newer' one is not newer: the ranking stands."""
    old = _remember(service, OLD, 0)
    _remember(service, NEW, days)
    service.embed_backlog()
    assert _ranks(service, QUERY)[0] == old


def test_a_recorded_possible_update_goes_first_whatever_the_scores_unless_the_query_names_the_older(service):
    """The update model's possible update (recorded on write, storage PossibleUpdate) moves the newer memory
    above the one it names, however much better the older one scores; a query naming what only the
    older holds keeps it first; a possible update naming another memory moves nothing."""
    from server.storage.protocol import PossibleUpdate

    old = _remember(service, "Nightly builds run on the Jenkins box ci-01 with the monorepo pipeline script.", 0)
    new = _remember(service, "GitHub Actions now: the workflow uploads coverage reports to Codecov, posts a summary "
                             "comment on the release PR, and the nightly builds run there too.", 30)
    other = _remember(service, "Release notes are drafted by hand every Friday.", 10)
    service.embed_backlog()
    asked, naming_old = "where do nightly builds run?", "which Jenkins box runs nightly builds?"
    assert _ranks(service, asked)[:2] == [old, new]  # the ranking alone: the older, fuller sentence first
    with service.db.write() as conn:
        service.store.set_possible_update(conn, new, PossibleUpdate(other, 0.5))
    assert _ranks(service, asked)[:2] == [old, new]  # it names another memory: nothing moves
    with service.db.write() as conn:
        service.store.set_possible_update(conn, new, PossibleUpdate(old, 0.15))
    assert _ranks(service, asked)[:2] == [new, old]
    assert _ranks(service, naming_old)[0] == old
    assert service.get(old).superseded_by is None  # nothing superseded or labelled


@pytest.mark.anyio
async def test_a_likely_possible_update_labels_the_older_possibly_outdated_through_mcp(service):
    """Through the MCP client: a possible update of at least OUTDATED_LABEL, both shown, newer above: the older
    is labelled possibly outdated with the call that confirms it; below that probability, or with the newer
    not shown, no label; confirming it (curate_memory supersede) makes it a real link."""
    from mcp import Client

    from server.app import build_server
    from server.storage.protocol import PossibleUpdate

    old = _remember(service, "Nightly builds run on the Jenkins box ci-01 with the monorepo pipeline script.", 0)
    new = _remember(service, "GitHub Actions now: the workflow uploads coverage reports to Codecov, posts a summary "
                             "comment on the release PR, and the nightly builds run there too.", 30)
    service.embed_backlog()
    asked = {"query": "where do nightly builds run?", "thread": "t"}

    def labels(result) -> dict[int, str | None]:
        return {m["id"]: m["label"] for m in result.structured_content["memories"]}

    async with Client(build_server(service, start_background=False)) as client:
        for probability, labelled in ((0.15, False), (newer_first.OUTDATED_LABEL, True)):
            with service.db.write() as conn:
                service.store.set_possible_update(conn, new, PossibleUpdate(old, probability))
            found = await client.call_tool("recall", asked)
            assert [m["id"] for m in found.structured_content["memories"]][:2] == [new, old]
            got = labels(found)
            assert got[new] is None
            assert (got[old] is not None and got[old].startswith(f"possibly outdated: memory {new}, written later")
                    and f'ids=[{old}], replacement_id={new}' in got[old]) == labelled, (probability, got)
        first_only = await client.call_tool("recall", {**asked, "k": 1})
        assert labels(first_only) == {new: None}  # k=1: the newer alone is shown
        confirm = await client.call_tool("curate_memory", {"action": "supersede", "ids": [old], "replacement_id": new,
                                                           "dry_run": False})
        assert not confirm.is_error
        after = labels(await client.call_tool("recall", asked))
        assert after.get(old) in (None, f"superseded by memory {new}") and service.get(old).superseded_by == new


def test_a_later_memory_the_query_misses_is_shown_right_after_the_one_it_may_update(service):
    """Issue 32: a possible update worded after the new state, which the query does not reach, is attached right
    after the older memory the query found -- labelled newer, the older possibly outdated -- and nothing moves
    above the memory found; an unrecorded memory is not attached."""
    from server.storage.protocol import PossibleUpdate

    old = _remember(service, "Nightly builds run on the Jenkins box ci-01 with the monorepo pipeline script.", 0)
    new = _remember(service, "GitHub Actions workflow ships coverage to Codecov and comments on release PRs.", 30)
    _remember(service, "Release notes are drafted by hand every Friday.", 10)
    service.embed_backlog()
    asked = "which Jenkins box runs the nightly builds?"
    assert _ranks(service, asked, k=1) == [old]  # the query alone finds the older memory only
    with service.db.write() as conn:
        service.store.set_possible_update(conn, new, PossibleUpdate(old, newer_first.OUTDATED_LABEL))
    shown = service.recall(asked, thread="t", k=1).memories
    assert [m.id for m in shown] == [old, new]
    assert shown[1].label.startswith(f"newer: written after memory {old}")
    assert shown[0].label.startswith(f"possibly outdated: memory {new}, written later")
    assert shown[0].score == shown[1].score and service.get(old).superseded_by is None


def test_attach_keeps_what_is_shown_above_and_is_bounded():
    """newer_first.attach: a newer memory shown above stays there; one shown below moves up right after the
    memory it may update; at most ATTACH_LIMIT are attached."""
    from server.storage.records import MemoryRow, PossibleUpdate

    def row(i: int, day: int) -> MemoryRow:
        # (each says it changed: attach's look-alike guard, _two_things, lets them be)
        return MemoryRow(id=i, thread="t", content=f"m{i} changed", kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {i: row(i, i) for i in range(1, 20)}
    maybe = PossibleUpdate(0, 0.5)
    ranked = [(2, 0.9), (1, 0.8), (3, 0.7), (4, 0.6)]
    got, attached = newer_first.attach(ranked, rows, {1: [(2, maybe)], 3: [(9, maybe)]})
    assert got == [(2, 0.9), (1, 0.8), (3, 0.7), (9, 0.7), (4, 0.6)] and attached == {9: 3}
    got, attached = newer_first.attach([(1, 0.9), (5, 0.8), (4, 0.7)], rows, {1: [(4, maybe), (6, maybe)]})
    assert got == [(1, 0.9), (6, 0.9), (5, 0.8), (4, 0.7)]  # the newest of its possible updates
    resembles = PossibleUpdate(0, 0.0)  # (newer_first.resembling's: found in this recall, not recorded on write)
    got, attached = newer_first.attach([(1, 0.9)], rows, {1: [(7, resembles), (4, PossibleUpdate(0, 0.02))]})
    assert got == [(1, 0.9), (4, 0.9)] and attached == {4: 1}  # the recorded one, though older than the resembling
    got, attached = newer_first.attach([(1, 0.9)], rows, {1: [(7, resembles), (4, resembles)]})
    assert attached == {7: 1}  # neither recorded: the newest
    many = {i: [(10 + i, maybe)] for i in range(1, 6)}
    got, attached = newer_first.attach([(i, 1.0 - i / 10) for i in range(1, 6)], rows, many)
    assert len(got) == 5 + newer_first.ATTACH_LIMIT and len(attached) == newer_first.ATTACH_LIMIT


def test_a_later_state_ranked_further_down_is_attached_but_a_look_alike_is_not():
    """newer_first.resembling: a later memory the query ranked below the shown ones is attached when it reads as a
    later state of a shown memory's subject; another environment's memory (a look-alike) or an earlier one is not."""
    from server.storage.records import MemoryRow

    def row(i: int, text: str, day: int) -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {1: row(1, "The staging database runs Postgres 14.", 1),
            2: row(2, "Upgraded: the staging database runs Postgres 16 now.", 5),
            3: row(3, "The production database runs Postgres 16.", 6),
            4: row(4, "Upgraded: the staging database runs Postgres 13.", 0)}
    found = newer_first.resembling([(1, 0.9)], [2, 3, 4], rows, lambda a, b: 0.9)
    assert [n for n, _ in found[1]] == [2]
    assert newer_first.resembling([(1, 0.9)], [2], rows, lambda a, b: 0.2) == {}  # their vectors disagree


#: Issue 32 item 5: with automatic capture most memories are turns. A later turn reversing an earlier decision.
ON_TURN = ("user: Let's make auto-capture on by default, so a fresh install remembers without any setup. "
           "Also keep the hook budgets at 550 tokens and write the changelog entry for it.")
OFF_TURN = ("assistant: I looked through the installer, the config loader and the three hooks again, and updated "
            "the tests for the loader while I was there. Auto-capture is off by default now: unset means off, and "
            "MEMVAULT_AUTO_CAPTURE=1 turns it on. The changelog says so as well, and the README's install section "
            "explains how to turn it on for a project.")


def _turn(service, text: str, days: int, thread: str = "t") -> int:
    return service.remember(text, thread=thread, kind="turn", source="hook", daily=False,
                            created_at=T0 + timedelta(days=days)).id


def test_a_later_turn_reversing_a_shown_turn_is_attached_after_it_as_an_excerpt_and_both_are_marked(service):
    """recall for "is auto-capture on by default?": the earlier "on by default" turn is what the query finds;
    the later turn that says "off by default now" comes right after it, marked newer, as the sentences about the
    subject only (a turn is long: the tokens stay bounded), and the earlier is marked possibly outdated."""
    old, new = _turn(service, ON_TURN, 0), _turn(service, OFF_TURN, 7)
    for n in range(6):
        _turn(service, f"user: note {n} on the hook budgets and the changelog entry for the release.", 1 + n)
    service.embed_backlog()
    shown = service.recall("is auto-capture on by default?", thread="t", k=1).memories
    assert [m.id for m in shown] == [old, new]
    assert shown[1].label.startswith(f"newer: written after memory {old}") and "an excerpt of turn" in shown[1].label
    assert shown[0].label.startswith(f"possibly outdated: memory {new}, written later")
    assert "unset means off" in shown[1].content and "installer" not in shown[1].content
    assert len(shown[1].content) <= newer_first.EXCERPT_CHARS
    assert service.get(old).superseded_by is None and service.get(new).content == OFF_TURN  # nothing linked or cut


def test_a_later_turn_about_a_look_alike_or_saying_the_same_is_not_attached(service):
    """Two services, two environments, two numbered members stay two things, and a later turn that agrees
    (no change, no other value, no setting turned) or says "now" of another thing attaches nothing."""
    pairs = [
        ("user: The staging database host is db-stg-1.internal on port 5432.",
         "user: The production database host is db-prod-1.internal on port 6432 now.", "which database host and port?"),
        ("user: The billing service runs 6 replicas behind the gateway.",
         "user: The tracking service runs 2 replicas behind the gateway now.", "how many replicas behind the gateway?"),
        ("user: Step 3 of the release checklist is tagging the build.",
         "user: Step 4 of the release checklist is now announcing the build.", "release checklist step"),
        ("user: Let's keep auto-capture on by default.", "assistant: Yes, auto-capture stays on by default.",
         "is auto-capture on by default?"),
        # chit-chat (LoCoMo): "now" is said of everything
        ("Melanie: I'm a big fan of pottery - the creativity and skill is awesome.",
         "Melanie: Seven years now, and I've finally found my real muses: painting and pottery.",
         "When did Melanie sign up for a pottery class?"),
    ]
    for i, (older, newer, asked) in enumerate(pairs):
        thread = f"t{i}"
        _turn(service, older, 0, thread)
        _turn(service, newer, 5, thread)
        service.embed_backlog()
        got = service.recall(asked, thread=thread, k=1).memories
        assert len(got) == 1 and got[0].label is None, (asked, [(m.content, m.label) for m in got])


def test_later_turns_excerpt_only_the_sentences_that_reverse():
    from server.storage.records import MemoryRow

    def row(i: int, text: str, day: int, kind: str = "turn") -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind=kind, source="hook", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {1: row(1, ON_TURN, 1), 2: row(2, OFF_TURN, 5), 3: row(3, OFF_TURN, 0), 4: row(4, OFF_TURN, 6, "note")}
    found, excerpts = newer_first.later_turns([(1, 0.9)], [1, 2, 3, 4], rows, "is auto-capture on by default?")
    assert [n for n, _ in found[1]] == [2]  # not the earlier turn, not a statement
    assert excerpts[2].startswith("Auto-capture is off by default now") and "installer" not in excerpts[2]


def test_a_later_state_holding_most_of_the_subject_is_attached_at_a_lower_cosine():
    """An update worded after the new state reads unlike the old sentence: holding most of its subject and
    saying that it changed, it is attached from ATTACH_COSINE_MOST; holding little of it, from PAIR_COSINE only."""
    from server.storage.records import MemoryRow

    def row(i: int, text: str, day: int) -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {1: row(1, "The staging database runs Postgres 14.", 1),
            2: row(2, "Upgraded: the database runs Postgres 16 now.", 5),
            3: row(3, "Upgraded to Postgres 16 now.", 6)}
    between = (newer_first.ATTACH_COSINE_MOST + newer_first.PAIR_COSINE) / 2
    found = newer_first.resembling([(1, 0.9)], [2, 3], rows, lambda a, b: between)
    assert [n for n, _ in found[1]] == [2]
    assert newer_first.resembling([(1, 0.9)], [2, 3], rows, lambda a, b: newer_first.ATTACH_COSINE_MOST - 0.05) == {}


def test_a_possible_update_recorded_below_possible_attaches_but_never_reorders():
    """A possible update recorded under model.POSSIBLE (a change word and a rare shared word, CUED_POSSIBLE) only
    brings the newer right after the older when that is shown; it does not move the newer above it."""
    from server.storage.records import MemoryRow, PossibleUpdate
    from server.updates import model

    def row(i: int, text: str, day: int) -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    old, new = 1, 2
    rows = {old: row(old, "The metadata catalog is DataHub at datahub.atlas.internal.", 0),
            new: row(new, "DataHub moved to datahub.data.acme-corp.net, behind SSO.", 30)}

    def order(probability: float) -> list[int]:
        ranked = newer_first.order([(old, 0.9), (new, 0.85)], rows, {}, "where is DataHub", lambda a, b: 0.47,
                                   {new: PossibleUpdate(old, probability)})
        return [m for m, _ in ranked]

    assert order(model.CUED_POSSIBLE) == [old, new]  # not reordered ...
    assert order(model.POSSIBLE) == [new, old]  # ... as one at POSSIBLE is
    got, attached = newer_first.attach([(old, 0.9)], rows, {old: [(new, PossibleUpdate(old, model.CUED_POSSIBLE))]})
    assert got == [(old, 0.9), (new, 0.9)] and attached == {new: old}


def test_a_recorded_look_alike_is_not_attached_unless_the_newer_says_it_changed():
    """Issue 32: whatever was recorded, attach does not show as the newer state a later memory about another thing
    (rules.other_things: another environment, service, file) that says nothing changed -- two look-alikes stay
    two; one that says it changed is attached."""
    from server.storage.records import MemoryRow, PossibleUpdate

    def row(i: int, text: str, day: int) -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {1: row(1, "On Windows, notes default to %USERPROFILE%\\Documents\\Quill.", 0),
            2: row(2, "On macOS, notes default to ~/Documents/Quill.", 5),
            3: row(3, "Print styles are in src/renderer/styles/print.css.", 1),
            4: row(4, "Print styles moved to src/renderer/print/print.css with the renderer split.", 6)}
    maybe = PossibleUpdate(0, 0.5)
    assert newer_first.attach([(1, 0.9)], rows, {1: [(2, maybe)]}) == ([(1, 0.9)], {})
    assert newer_first.attach([(3, 0.9)], rows, {3: [(4, maybe)]}) == ([(3, 0.9), (4, 0.9)], {4: 3})


def test_a_real_session_s_later_turn_removing_what_an_earlier_turn_installed_is_shown_after_it(service):
    """Issue 32 item 5 on text nobody here wrote (bench/data/real_sessions/octopulse.json, a Cursor session: the
    assistant installs @unocss/preset-icons with a Lucide collection, the person says it is not needed, the assistant
    removes it): asked what was installed, the earlier turn is found first and the later turn that removed it comes
    right after it, as an excerpt marked newer, the earlier labelled possibly outdated."""
    import json

    from spawn import ROOT

    data = json.loads((ROOT / "bench" / "data" / "real_sessions" / "octopulse.json").read_text(encoding="utf-8"))
    session = next(s for s in data["sessions"] if s["at"] == "2025-12-12T19:19:00")
    ids = {}
    for i, (kind, text, *_) in enumerate(session["steps"]):
        if kind in ("user", "assistant"):
            ids[i] = service.remember(f"{kind}: {text}", thread="t", kind="turn", source="hook", daily=False,
                                      created_at=T0 + timedelta(minutes=i)).id
    installed, removed = ids[5], ids[10]
    assert "Installed packages" in service.get(installed).content and "Removed" in service.get(removed).content
    shown = service.recall("which UnoCSS icon preset package did we install?", thread="t", k=3).memories
    assert [m.id for m in shown[:2]] == [installed, removed]
    assert shown[0].label.startswith(f"possibly outdated: memory {removed}, written later")
    assert shown[1].label.startswith(f"newer: written after memory {installed}") and "an excerpt" in shown[1].label
    assert "Removed `@unocss/preset-icons` package" in shown[1].content


def test_a_later_memory_saying_it_changed_that_the_model_weighs_as_an_update_is_attached_with_little_shared():
    """An update worded after the new state holds less than SUBJECT_SHARE of the old sentence's words (a pair of the
    update benchmark, a reader shown the old one alone): saying that it changed, reading like it and weighed by the
    update model at POSSIBLE or more, it is attached; a look-alike that says nothing changed is not, nor the same
    update when their vectors disagree."""
    from server.storage.records import MemoryRow

    def row(i: int, text: str, day: int) -> MemoryRow:
        return MemoryRow(id=i, thread="t", content=text, kind="note", source="remember", origin=None,
                         importance=0.5, tags=(), content_hash=str(i), created_at=day, updated_at=day, deleted_at=None,
                         superseded_by=None, recall_count=0, last_recalled_at=None)

    rows = {1: row(1, "Passkey ceremonies on the backend use github.com/duo-labs/webauthn, pinned to an old 2022 "
                      "pseudo-version.", 1),
            2: row(2, "Switched the Go side to github.com/go-webauthn/webauthn v0.13.4; the duo-labs module is archived "
                      "and didn't understand the hints or attestationFormats fields.", 5),
            3: row(3, "petrel-fhir-gateway's readiness check also calls Epic's /metadata endpoint and reports unready "
                      "when the EHR is down.", 1),
            4: row(4, "petrel-stock's readiness probe is /q/health/ready and only checks the datasource and Kafka.", 5)}
    found = newer_first.resembling([(1, 0.9), (3, 0.8)], [2, 4], rows, lambda a, b: 0.52)
    assert {older: [n for n, _ in later] for older, later in found.items()} == {1: [2]}
    assert newer_first.resembling([(1, 0.9)], [2], rows, lambda a, b: newer_first.PAIR_COSINE - 0.05) == {}
    assert newer_first.same_subject_later(rows[1], rows[2], lambda a, b: 0.52) is False  # ordering asks more
