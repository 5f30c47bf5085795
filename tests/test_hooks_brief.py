"""What a new session is shown: the session-start brief across kinds, and the prompt hook's choices."""

from __future__ import annotations

import pytest

from server.hooks import inject
from server.hooks.inject import clip, prompt_context, session_context

THREAD = "shop-api"


def remember(service, content: str, kind: str, day: int, tags: tuple[str, ...] = ("hook",)) -> int:
    return service.remember(content, kind=kind, thread=THREAD, tags=list(tags), source="hook", daily=False,
                            created_at=f"2026-09-{day:02d}T10:00:00Z").id


def test_one_kind_never_fills_the_session_start_brief(service):
    """Many newer decisions do not push out the convention, the command and the fix."""
    remember(service, "Use the prefix mv/ for branch names.", "preference", 1)
    remember(service, "Test command that worked: `pnpm test --filter api`", "snippet", 2, ("hook", "command", "test"))
    remember(service, 'Fix for "KeyError: cursor": changed app/orders.py (cursor = params.get("cursor", 0)).', "note", 3,
             ("hook", "fix"))
    topics = ["Redis caching", "Stripe billing", "gRPC transport", "Kafka events", "S3 uploads", "JWT sessions",
              "Sentry alerts", "Celery beat", "OpenAPI specs", "Docker images", "Terraform state", "Nginx proxy"]
    for day, topic in enumerate(topics, start=10):
        remember(service, f"Decision {day}: {topic} stays as designed in review {day * 7}.", "decision", day)
    text = session_context(service, THREAD, 200).text
    assert "mv/ for branch names" in text and "pnpm test --filter api" in text and "KeyError: cursor" in text
    assert "Nginx proxy" in text  # the newest decision leads its kind


def test_the_brief_keeps_the_newest_command_per_purpose_and_no_one_off_looks(service):
    remember(service, "Lint command that worked: `which golangci-lint && file $(which golangci-lint)`", "snippet", 1,
             ("hook", "command", "lint"))
    remember(service, "Test command that worked: `pytest -x tests`", "snippet", 2, ("hook", "command", "test"))
    remember(service, "Test command that worked: `pytest -q -n 4 tests`", "snippet", 3, ("hook", "command", "test"))
    text = session_context(service, THREAD, 600).text
    assert "pytest -q -n 4 tests" in text
    assert "pytest -x tests" not in text and "which golangci-lint" not in text


@pytest.mark.parametrize("prompt", ["thanks!", "hi", "ok, looks good", "Perfect, thank you very much.", "go ahead"])
def test_small_talk_gets_nothing_even_when_a_turn_matches_it(service, prompt):
    remember(service, "user: Looks really good, thanks! Perfect. Go ahead and hi to the team.", "turn", 1, ())
    assert inject.small_talk(prompt)
    assert prompt_context(service, THREAD, prompt, 300, 0.0, set()).text == ""


@pytest.mark.parametrize("prompt", ["thanks, now make the retry count 5", "ok what port does staging use?"])
def test_a_question_after_a_thank_you_is_not_small_talk(prompt):
    assert not inject.small_talk(prompt)


@pytest.mark.parametrize("prompt", ["merci beaucoup !", "Danke schön", "¡Muchas gracias!", "Grazie mille", "obrigado",
                                    "dziękuję", "Спасибо большое!", "ありがとうございます", "好的，谢谢", "감사합니다",
                                    "شكراً", "धन्यवाद", "👍", "🙏🎉", "+1"])
def test_small_talk_in_other_languages_and_emoji_gets_nothing_even_when_a_turn_matches_it(service, prompt):
    """The thank-you of a person who prompts in their own language is small talk too, and so is an emoji."""
    remember(service, f"user: {prompt} The staging deploy works now.", "turn", 1, ())
    assert inject.small_talk(prompt)
    assert prompt_context(service, THREAD, prompt, 300, 0.0, set()).text == ""


@pytest.mark.parametrize("prompt", ["merci, et le port de staging ?", "спасибо, а какой порт у staging?", "部署怎么做",
                                    "修复测试", "Исправь баг в push-to-talk", "क्या पोर्ट है?", "deploy", "🚀 deploy v2"])
def test_a_question_in_another_language_is_not_small_talk(prompt):
    assert not inject.small_talk(prompt)


def test_the_prompt_hook_puts_statements_before_turns_and_shows_a_reversing_turn_after_the_one_it_reverses(service):
    """The statement comes first; a since-reversed turn is shown with the later turn right after it, each
    marked (issue 32 item 5: an automatic link never hides the older memory, the reader judges)."""
    old = remember(service, "user: The retry setting should be on by default for the webhook retry worker.", "turn", 1, ())
    new = remember(service, "user: Change of plan: the webhook retry setting is off by default, unset means off.",
                   "turn", 5, ())
    fact = remember(service, "The webhook retry setting is off unless MEMVAULT_RETRY is set.", "fact", 4)
    found = prompt_context(service, THREAD, "is the webhook retry setting on by default?", 600, 0.0, set())
    assert found.ids == (fact, old, new)
    assert f"(possibly outdated by #{new})" in found.text and f"(newer than #{old}, which it may update)" in found.text


def test_clip_finds_the_matching_line_of_a_multi_line_message():
    """A spec's lines without full stops are pieces of their own, so the one that matches is kept."""
    spec = ("I want a tool that reads every JSONL file in the folder and writes one markdown file for each\n\n"
            + "\n".join(f"Rule {i}: output the block number {i} with its heading and a blank line" for i in range(12))
            + "\nSkip any entries where `isMeta === true`\n"
            + "\n".join(f"Also handle the case {i} of the message content shapes" for i in range(12)))
    assert "isMeta === true" in clip(spec, 60, "which entries does it skip?")


def test_an_open_problem_is_shown_until_a_later_fix_names_its_error(service):
    remember(service, "Open problem: \"ModuleNotFoundError: No module named 'polars'\" (not fixed when the session ended).",
             "task", 1, ("hook", "open-problem"))
    assert "Open problem" in session_context(service, THREAD, 600).text
    remember(service, "Fix for \"ModuleNotFoundError: No module named 'polars'\": changed pyproject.toml (polars==1.9.0).",
             "note", 2, ("hook", "fix"))
    text = session_context(service, THREAD, 600).text
    assert "Open problem" not in text and "polars==1.9.0" in text


def test_a_long_statement_shown_clipped_at_session_start_can_be_shown_again_for_its_tail(service):
    """The brief showed its first sentences; a prompt about its last one gets that sentence."""
    filler = " ".join(f"Step {i} of the migration touched the orders table and its indexes." for i in range(12))
    note = remember(service, f"Fix for the slow orders page: {filler} The cure was a partial index on status, "
                           "created concurrently on the live database in the maintenance window with the workers paused.",
                    "note", 1, ("hook", "fix"))
    start = session_context(service, THREAD, 600)
    assert note in start.ids and "partial index" not in start.text
    again = prompt_context(service, THREAD, "what was the cure for the slow orders page, which index?", 300, 0.0,
                           set(start.ids))
    assert note in again.ids and "partial index on status" in again.text


@pytest.mark.parametrize("prompt", ["thanks, that's all for now", "ok thanks, that is all for today, bye"])
def test_a_longer_goodbye_is_small_talk(service, prompt):
    remember(service, "user: That's all for the migration, thanks; now the orders page.", "turn", 1, ())
    assert inject.small_talk(prompt)
    assert prompt_context(service, THREAD, prompt, 300, 0.0, set()).text == ""


def test_one_common_word_shared_with_a_turn_injects_nothing(service):
    remember(service, "user: The lint rules for the orders service live in eslint.config.js.", "turn", 1, ())
    assert prompt_context(service, THREAD, "what are the rules of cricket?", 300, 0.0, set()).text == ""
    assert "eslint.config.js" in prompt_context(service, THREAD, "where are the lint rules?", 300, 0.0, set()).text


def test_a_paraphrase_in_another_form_of_the_words_still_counts():
    """"installing" asks about what "installed" says: a light stem joins them."""
    assert inject.strong_match("why did installing the deps fail?", "npm installed the deps after the pin")
    assert not inject.strong_match("why did installing fail?", "the docs page")


def test_the_excerpt_of_one_long_line_is_the_part_around_the_question():
    """An edit's lines joined into one: the excerpt is the part that answers, not the line's head."""
    line = "assistant: [edited] src/app.vue: " + "; ".join(f"<span class='c{i}'>item {i}</span>" for i in range(60))
    line += "; <div class='footer'>Powered by Nuxt</div>; " + "; ".join(f"<p>row {i}</p>" for i in range(30))
    assert "footer" in clip(line, 60, "what does the footer say?")


def test_the_memory_with_the_questions_rare_word_comes_first():
    """Ranked by the search below four edits sharing the question's common words, the one turn holding its
    rare word ("skip") is put first: with room for two lines, it is the one that answers."""
    from types import SimpleNamespace

    edits = [SimpleNamespace(content=f"assistant: [edited] src/convert.ts: the converter reads JSONL entries {i}")
             for i in range(4)]
    spec = SimpleNamespace(content="user: the converter should skip entries where isMeta is true in the JSONL")
    assert inject._by_coverage("which JSONL entries does the converter skip?", [*edits, spec])[0] is spec


def test_a_paraphrase_below_the_score_threshold_that_holds_most_of_the_question_is_injected(service):
    """The threshold judges the exact words shared; a turn holding most of the question's terms (in any
    form) is about it even when the question is worded differently. Two shared terms are not enough."""
    remember(service, "user: Update the generated markdown to include `### Line #nnn` before each entry.", "turn", 1, ())
    asked = prompt_context(service, THREAD, "what heading goes in front of every entry in the generated markdown?",
                           300, 0.99, set())
    assert "### Line #nnn" in asked.text
    assert prompt_context(service, THREAD, "how is markdown generated for a blog?", 300, 0.99, set()).text == ""


def test_a_match_deep_in_a_long_memory_counts_like_one_in_its_first_line(service):
    """A reply whose answer sits after its first 32 words: the question's words there make it a strong
    match (judged by the opening words alone, it injected nothing)."""
    opening = ("Here is a concise picture of the repo: Next.js in apps/web, a Fastify API in services/api talking to "
               "the database over a connection string, plus ingest and ai services, each with its own worker, "
               "build step, deploy target, scheduler, queue, cache and logging setup for staging and preview. ")
    reply = remember(service, "assistant: " + opening + "For production use managed Postgres: Neon, serverless.", "turn", 1, ())
    assert inject.strong_match("which managed Postgres for production?", "assistant: " + opening + "managed Postgres")
    found = prompt_context(service, THREAD, "which managed Postgres should we go with for production?", 300, 0.5, set())
    assert reply in found.ids and "Neon" in found.text


def test_the_best_match_shows_more_of_a_long_reply_than_one_line(service):
    """The question's words fill one line's worth of the reply's sentences; the best match's longer excerpt
    also holds the sentence that answers (which shares fewer of them)."""
    matching = " ".join(f"The api reads env var SERVICE_{i}_TOKEN from the vault for worker {i}." for i in range(7))
    reply = remember(service, f"assistant: Deployment notes. {matching} The api needs DATABASE_URL as well. "
                              + " ".join(f"Unrelated step {i} about the docs site." for i in range(20)), "turn", 1, ())
    found = prompt_context(service, THREAD, "which env var does the api read?", 450, 0.0, set())
    assert found.ids[0] == reply and "DATABASE_URL" in found.text


def test_a_leading_hit_sharing_two_terms_is_shown_below_the_score_threshold(service):
    """A long reply holds two of a wordy question's terms: its keyword score is low, but as one of the
    search's first hits it is shown; a hit sharing one term is not."""
    filler = " ".join(f"Change {i} touched the weekly digest layout and its empty state copy." for i in range(12))
    reply = remember(service, f"assistant: Review fixes. {filler} Unknown values of the feed query's topic now "
                              "return 400 with an invalid topic error instead of being passed through.", "turn", 1, ())
    remember(service, "user: The topic strip on the home page needs a scrollbar fix.", "turn", 2, ())
    question = "what does the feed endpoint answer for an unrecognised topic?"
    hits = service.find(question, k=8, thread=THREAD).hits
    assert hits[0].memory_id == reply
    threshold = (hits[0].score or 0.0) * 1.5  # above the reply's score, within twice it
    found = prompt_context(service, THREAD, question, 450, threshold, set())
    assert found.ids == (reply,) and "invalid topic" in found.text


def test_the_brief_ends_with_the_last_replies_of_earlier_sessions(service):
    """Where the statements leave room, the newest substantial assistant replies (a session's summary);
    a short one ("You're welcome") and the person's own turns are not among them."""
    remember(service, "Use the prefix mv/ for branch names.", "preference", 1)
    summary = remember(service, "assistant: Export system complete. The script lives in ~/claude_sessions/"
                                "export_claude_session.py and the slash command /user:export runs it; exports go "
                                "to ~/claude_sessions/exports with session_info.json, summary.txt and the raw "
                                "JSONL copy, one timestamped folder per export.", "turn", 2, ())
    remember(service, "assistant: You're welcome.", "turn", 3, ())
    remember(service, "user: Please write the README for the exporter and add the hook section to it later on.",
             "turn", 4, ())
    start = session_context(service, THREAD, 550)
    assert "mv/ for branch names" in start.text and "/user:export" in start.text and summary in start.ids
    assert "You're welcome" not in start.text and "write the README" not in start.text


def test_a_long_turn_shown_clipped_at_session_start_can_be_shown_again_for_its_tail(service):
    """The brief showed a long reply's opening; a prompt about its end gets the part that answers."""
    filler = " ".join(f"Step {i} moved the exporter's output handling into its own helper." for i in range(14))
    reply = remember(service, f"assistant: Summary of the exporter work. {filler} Sessions are told apart by a "
                              "marker file written into the project folder.", "turn", 1, ())
    start = session_context(service, THREAD, 550)
    assert reply in start.ids and "marker file" not in start.text
    again = prompt_context(service, THREAD, "how does the exporter tell sessions apart, which marker?", 450, 0.0,
                           set(start.ids))
    assert reply in again.ids and "marker file" in again.text


@pytest.mark.parametrize(("one", "other"), [("validates", "validation"), ("migrated", "migration"),
                                            ("generating", "generation")])
def test_a_verb_and_its_ation_noun_share_a_stem(one, other):
    assert inject.stem(one) == inject.stem(other)


def test_the_prompt_hook_finds_a_design_line_by_the_verb_of_its_noun(service):
    """ "what library validates the config?" against a design doc's "using `zod` validation"."""
    remember(service, "assistant: [edited] DESIGN.md: ConfigManager handles loading, saving and environment overrides "
                      "of the config using `zod` validation.", "turn", 1, ())
    found = prompt_context(service, THREAD, "what library validates the config?", 300, 0.0, set())
    assert "zod" in found.text


def test_a_reply_to_the_persons_report_does_not_hide_the_report(service):
    """A later turn on the same subject replaces an earlier one only from the same side: the assistant's
    answer to the person's account of a problem does not reverse it, and the account says what was wrong."""
    report = remember(service, "user: the push-to-talk hotkey inserts the same text every time, no idea why",
                      "turn", 1, ())
    reply = remember(service, "assistant: To look at the push-to-talk hotkey and why the text is inserted every time, "
                              "please add the hotkey files.", "turn", 2, ())
    found = prompt_context(service, THREAD, "what was wrong with the push-to-talk hotkey?", 450, 0.0, set())
    assert report in found.ids and reply in found.ids and "the same text every time" in found.text


def test_room_the_lines_leave_shows_a_cut_line_whole(service):
    """Lines are cut to a fixed size so several fit; when few match, the room they leave goes to the cut ones,
    first to those it completes."""
    long = remember(service, "assistant: Export notes. " + " ".join(
        f"The export hook step {i} writes the session log." for i in range(30)), "turn", 1, ())
    short = remember(service, "user: the export hook should run at the end of a chat. " + " ".join(
        f"Filler remark {i} about the weather." for i in range(12)) + " Use the Stop hook for it.", "turn", 2, ())
    found = prompt_context(service, THREAD, "which export hook should run at the end of a chat?", 450, 0.0, set())
    assert set(found.ids) == {long, short} and "Use the Stop hook for it." in found.text
    assert found.tokens <= 450


def test_a_cyrillic_question_matches_another_form_of_its_words_and_not_its_function_words():
    """Russian inflects by ending ("модели" / "модель", "диктовки" / "диктовку"); "для" and "что" say
    nothing about the subject."""
    query = "какие модели используются для диктовки?"
    assert inject.strong_match(query, "Для диктовку делаем через модель Whisper и VAD.")
    assert not inject.strong_match(query, "Что нужно для проекта и какие у него планы?")
