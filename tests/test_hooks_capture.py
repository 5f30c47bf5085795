"""What capture takes from real sessions: the forms people write decisions and conventions in,
options picked by letter, fixes through edits, commands, and state that spans two captures.

Entries come from Claude Code's JSONL line shapes (parse_record, as the transcript reader
sees them), so the tests feed what the host writes.
"""

from __future__ import annotations

import pytest

from server.hooks.extract import extract, statements_in
from server.hooks.transcript import parse_record

ROOT = "/home/dev/shop-api"


def user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}, "timestamp": "2026-09-01T10:00:00Z"}


def say(text: str) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "timestamp": "2026-09-01T10:00:05Z"}


def tool(name: str, tool_input: dict, tool_id: str) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}, "timestamp": "2026-09-01T10:00:06Z"}


def result(tool_id: str, text: str, error: bool = False) -> dict:
    return {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}]},
        "timestamp": "2026-09-01T10:00:07Z"}


def entries(*records: dict) -> list:
    return [e for r in records for e in parse_record(r)]


def statements(*records: dict) -> list[tuple[str, str]]:
    return [(s.kind, s.content) for s in extract(entries(*records), root=ROOT).statements]


@pytest.mark.parametrize("text", [
    "Wait, from now on, never push directly to main.",
    "From now on, never push directly to main.",
])
def test_a_rule_after_an_interjection_is_kept(text):
    """A leading "wait," says nothing about whether the rule holds."""
    assert [s.content for s in statements_in(text, None, from_user=True)] == ["From now on, never push directly to main."]


@pytest.mark.parametrize(("text", "kind"), [
    ("We're moving from Celery to Dramatiq for the background jobs.", "decision"),
    ("Use the prefix mv/ for the branch name.", "preference"),
    ("We're not using tsc here, Node 24 strips the types.", "preference"),
    ("The types in types.ts cannot be changed as they match the JSONL format.", "preference"),
    ("Can we move each class to a separate file and make index.ts the main entry?", "decision"),
])
def test_decisions_and_conventions_in_the_forms_people_write_them(text, kind):
    assert [s.kind for s in statements_in(text, None, from_user=True)] == [kind]


@pytest.mark.parametrize("text", [
    "Can you use the debugger for this one?", "Use a scratch file for now.", "Let's look at the logs together.",
])
def test_questions_and_requests_of_the_moment_are_not_conventions(text):
    assert statements_in(text, None, from_user=True) == []


@pytest.mark.parametrize("reply", ["B.", "b", "Let's implement option B", "let's go with option B please"])
def test_an_option_picked_by_letter_is_stored_as_the_options_text(reply):
    """The pick resolves to the option the assistant's previous reply listed under that label."""
    offer = say("Two ways to do it:\n\nA) Keep the cron job and add a lock file.\n"
                "B) Move the job to a Dramatiq actor with a retry policy.\n\nWhich do you prefer?")
    assert statements(user("How should the nightly sync run?"), offer, user(reply)) == [
        ("decision", "Chose option B: Move the job to a Dramatiq actor with a retry policy.")]


def test_a_pick_without_options_on_offer_stores_nothing():
    assert statements(user("How should the nightly sync run?"), say("It runs from cron."), user("B.")) == []


def test_an_option_offered_in_one_capture_and_picked_in_the_next_is_resolved():
    """A host captures after each reply: the offer and the pick arrive in two chunks; the carry links them."""
    first = extract(entries(user("Which queue?"), say("1. **Redis** — simple, already deployed\n2. **RabbitMQ** — durable")),
                    root=ROOT)
    second = extract(entries(user("let's do option 2")), root=ROOT, carry=first.carry)
    assert [(s.kind, s.content, s.turn) for s in second.statements] == [
        ("decision", "Chose option 2: RabbitMQ — durable.", 2)]


def test_a_fix_quotes_the_error_and_keeps_what_the_edit_wrote():
    """Not the pytest tally ("1 failed in 0.41s") and not just the path: the error line and the added code."""
    note = statements(
        user("the orders test fails"),
        tool("Bash", {"command": "pytest tests/test_orders.py"}, "t1"),
        result("t1", "Exit code 1\nE   KeyError: 'cursor'\nFAILED tests/test_orders.py::test_page - KeyError: 'cursor'\n"
                     "1 failed in 0.41s", error=True),
        say("The handler reads the cursor without a default, because the first page has none."),
        tool("Edit", {"file_path": f"{ROOT}/app/orders.py", "old_string": "cursor = params['cursor']",
                      "new_string": "cursor = params.get('cursor', 0)"}, "t2"),
        result("t2", "The file has been updated."),
        tool("Bash", {"command": "pytest tests/test_orders.py"}, "t3"),
        result("t3", "1 passed in 0.30s"),
    )[-1]
    assert note[0] == "note"
    assert "FAILED tests/test_orders.py::test_page - KeyError: 'cursor'" in note[1]
    assert "app/orders.py (cursor = params.get('cursor', 0))" in note[1]
    assert "0.41s" not in note[1]


def test_an_error_the_person_pasted_then_confirmed_fixed_becomes_a_fix_note():
    found = statements(
        user("Autopaint crashed:\n\nUncaught TypeError: Cannot read properties of undefined (reading 'getchar')\n"
             "    at textGetter (drawing-utils.js:13:1)"),
        say("The macros do not pass `textManager` to the drawing functions, so `textGetter` gets undefined."),
        tool("Edit", {"file_path": f"{ROOT}/src/macros.js", "old_string": "drawGrid({ params, layer })",
                      "new_string": "drawGrid({ params, layer, textManager: pchrome.textManager })"}, "t1"),
        result("t1", "The file has been updated."),
        user("It's working now, thanks!"),
    )
    assert len(found) == 1 and found[0][0] == "note"
    assert found[0][1].startswith("Fix for \"Uncaught TypeError: Cannot read properties of undefined (reading 'getchar')\"")
    assert "textManager: pchrome.textManager" in found[0][1] and "confirmed" in found[0][1]


def test_commands_that_run_the_program_are_kept_and_one_off_looks_are_not():
    found = statements(
        user("check the converter still works"),
        tool("Bash", {"command": "which node && file $(which node)"}, "t1"), result("t1", "/usr/bin/node"),
        tool("Bash", {"command": "git status"}, "t2"), result("t2", "nothing to commit"),
        tool("Bash", {"command": "node src/index.ts"}, "t3"), result("t3", "Found 3 JSONL file(s)"),
    )
    assert found == [("snippet", "Run command that worked: `node src/index.ts`")]


def test_an_edit_turn_keeps_what_changed_not_only_the_path():
    found = extract(entries(user("add a header"), tool("MultiEdit", {"file_path": f"{ROOT}/src/out.ts", "edits": [
        {"old_string": "push(text)", "new_string": "push(`### Line #${n}`)\npush(text)"}]}, "t1")), root=ROOT)
    assert "[edited] src/out.ts: push(`### Line #${n}`)" in found.turns[-1].text


def test_the_word_error_in_prose_opens_no_problem():
    """Only a pasted error line (with its "SomethingError: …") starts a problem waiting for its fix."""
    assert statements(user("Add an Error boundary component around the cart page"),
                      say("I added it because the cart crashes the whole page otherwise."),
                      user("next, the footer")) == []


def test_an_error_left_open_when_the_session_ends_is_an_open_problem():
    """Pasted, never answered: at the session's last capture it becomes a task, not a fix."""
    records = entries(user("CI says:\n\nModuleNotFoundError: No module named 'polars'\n\nlooking at it tomorrow"))
    assert extract(records, root=ROOT).statements == []  # not final: it may still be fixed
    found = extract(records, root=ROOT, final=True).statements
    assert [(s.kind, s.content, s.tags) for s in found] == [
        ("task", "Open problem: \"ModuleNotFoundError: No module named 'polars'\" (not fixed when the session ended).",
         ("open-problem",))]


def test_where_the_assistant_says_things_are_is_a_location_fact():
    found = statements(user("where is the parser?"),
                       say("The tokenizer is defined in `src/lexer.ts`. Each class now lives in its own file under `src/`, "
                           "and `src/index.ts` is the main entry. Is the config stored in `app/settings.py`?"))
    assert found == [
        ("fact", "The tokenizer is defined in `src/lexer.ts`."),
        ("fact", "Each class now lives in its own file under `src/`, and `src/index.ts` is the main entry."),
    ]


def test_a_failed_commands_error_code_and_hint_stay_in_the_turn():
    """The evidence of a failure is often only in its output: the error code, the hint, the version."""
    found = extract(entries(
        user("install the test deps"),
        tool("Bash", {"command": "npm install --save-dev jest"}, "t1"),
        result("t1", "Exit code 1\nnpm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\n"
                     "npm error Found: node@23.1.0\ngyp ERR! stack Error: `make` failed with exit code: 2\n"
                     + "\n".join(f"npm error   added package {i}" for i in range(40))
                     + "\nnpm error A complete log of this run can be found in: /home/dev/.npm/_logs/x.log", error=True),
    ), root=ROOT)
    text = found.turns[-1].text
    assert "[ran] npm install --save-dev jest → failed: " in text
    assert "npm error code ERESOLVE" in text and "node@23.1.0" in text
    assert len(text) < 900  # bounded: not the whole log


def test_a_written_design_doc_keeps_its_headings_past_the_first_lines():
    doc = "# Plan\n" + "\n".join(f"Paragraph {i} explains the background of the design in some detail." for i in range(40))
    doc += "\n## Storage\nconfig_dir: ~/.skills\n## CLI\nThe sync command copies every skill."
    found = extract(entries(user("write the design"), tool("Write", {"file_path": f"{ROOT}/docs/design.md",
                                                                     "content": doc}, "t1")), root=ROOT)
    text = found.turns[-1].text
    assert "# Plan" in text and "## Storage" in text and "config_dir: ~/.skills" in text and "## CLI" in text


def test_an_edit_keeps_the_heading_or_definition_around_its_change():
    found = extract(entries(user("fix the retry"), tool("Edit", {
        "file_path": f"{ROOT}/app/retry.py",
        "old_string": "def backoff(attempt):\n    return 2 ** attempt",
        "new_string": "def backoff(attempt):\n    return min(2 ** attempt, 30)"}, "t1")), root=ROOT)
    assert "[edited] app/retry.py: def backoff(attempt):; return min(2 ** attempt, 30)" in found.turns[-1].text


@pytest.mark.parametrize("text", [
    "The loading spinner on the status card is no need.",
    "status cards should use div tags",
    "The retry banner is not needed on mobile.",
    "页面标题统一使用中文。",
    "组件不要使用 class 写法！",
])
def test_terse_rules_and_rules_in_other_languages_are_conventions(text):
    """People write rules tersely, or in their own language: still the person's convention."""
    found = statements(user(text))
    assert found and found[0][0] == "preference" and found[0][1].lower().rstrip(".。！") == text.lower().rstrip(".。！")


def test_chinese_sentences_are_split_at_their_own_full_stops():
    found = statements(user("这个项目很好。以后都用 pnpm 安装依赖。"))
    assert [content for _, content in found] == ["以后都用 pnpm 安装依赖。"]


def test_what_the_host_puts_around_the_persons_words_is_not_theirs():
    """Cursor sends the typed words in <user_query>, beside its own blocks of instructions and context."""
    found = extract(entries(user(
        "<attached_files>\n<file path=\"plan.md\">Never edit generated files.</file>\n</attached_files>\n"
        "<system_reminder>Always use the todo tool. Don't stop until every to-do is done.</system_reminder>\n"
        "<user_query>\nthe status page should use div tags for its cards\n</user_query>")), root=ROOT)
    assert [t.text for t in found.turns] == ["the status page should use div tags for its cards"]
    assert [s.content for s in found.statements] == ["The status page should use div tags for its cards."]


def test_a_hosts_block_outside_a_query_wrapper_is_dropped_too():
    found = extract(entries(user("<open_and_recently_viewed_files>\nAlways prefer tabs over spaces in every file.\n"
                                 "</open_and_recently_viewed_files>\nWe always use pnpm for installs.")), root=ROOT)
    assert [s.content for s in found.statements] == ["We always use pnpm for installs."]


def test_text_the_host_repeats_in_every_session_is_not_the_persons_rule(service, tmp_path):
    """Cursor's plan-mode build message arrives as the user's words in each session; once it recurs in a
    second session it is the host's template: what the first session took from it is erased, and nothing
    of it is stored again, while the person's own rule stays."""
    import json

    from server.hooks.capture import capture
    from server.hooks.protocol import HookInput
    from server.hooks.sessions import Sessions

    template = ("Implement the plan as specified, it is attached for your reference. Do NOT edit the plan file "
                "itself. Don't stop until you have completed all the to-dos.")
    sessions = Sessions(tmp_path / "sessions")

    def session(name: str, own: str) -> None:
        path = tmp_path / f"{name}.jsonl"
        records = [{"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{template}\n\n{own}\n</user_query>"}]}},
                   {"role": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}}]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        capture(service, HookInput("cursor", "stop", name, tmp_path, path), "shop-api", sessions)

    def rules() -> list[str]:
        return [r.content for r in service.store.recent_memories("shop-api", 50) if r.kind != "turn"]

    session("s1", "We always deploy from the release branch.")
    assert any("Do NOT edit the plan file" in r for r in rules())
    session("s2", "Never log the card numbers in the payment service.")
    assert not any("plan file" in r or "to-dos" in r for r in rules())
    assert "We always deploy from the release branch." in rules()
    assert "Never log the card numbers in the payment service." in rules()


def test_html_custom_elements_the_person_pastes_are_kept():
    found = extract(entries(user("the <status-card>Online</status-card> element should use div tags inside")), root=ROOT)
    assert "<status-card>Online</status-card>" in found.turns[-1].text


@pytest.mark.parametrize(("command", "purpose"), [
    ("sudo systemctl reload nginx", "Reload"),
    ("sudo docker compose -f /srv/stack/docker-compose.yml restart web", "Restart"),
    ("rm -rf .next node_modules/.cache", "Clean"),
    ("npx shadcn@latest add dialog badge", "Install"),
    ("pnpm add zod", "Install"),
    ("npx convex deploy", "Deploy"),
])
def test_commands_that_put_a_change_live_or_set_the_project_up_are_kept(command, purpose):
    """Not only test/lint/build: reloading a service, restarting a container, cleaning a cache and adding a
    dependency are what a later session asks "how do I …" about, on a server as much as in a repository."""
    found = statements(user("apply it"), tool("Bash", {"command": command}, "t1"), result("t1", ""))
    assert [f for f in found if f[0] == "snippet"] == [("snippet", f"{purpose} command that worked: `{command}`")]


@pytest.mark.parametrize("command", ["sudo docker ps", "rm -rf shop-api-old/", "pip install -r requirements.txt",
                                     "pnpm remove lodash"])
def test_looks_and_one_off_removals_are_still_not_commands_worth_keeping(command):
    found = statements(user("check"), tool("Bash", {"command": command}, "t1"), result("t1", ""))
    assert not [f for f in found if f[0] == "snippet"]


def test_a_problem_told_in_words_then_edited_becomes_a_fix_note():
    """Aider and Cursor keep no tool output: "I'm getting redirected to the admin site" is the only error
    there is. The assistant's explanation and the edit close it when the person moves on."""
    found = statements(
        user("When I open shop.example.com I am getting redirected to admin.example.com. Can you help?"),
        say("The redirect is due to an authentication check: the `auth_token` cookie is required by the location block."),
        tool("Edit", {"file_path": f"{ROOT}/nginx/shop.conf", "old_string": "if ($cookie_auth_token = \"\") { return 302; }\n",
                      "new_string": "proxy_pass http://localhost:5080;"}, "t1"),
        user("next, the favicon"),
    )
    assert len(found) == 1 and found[0][0] == "note"
    note = found[0][1]
    assert note.startswith('Fix for "When I open shop.example.com I am getting redirected to admin.example.com."')
    assert "auth_token" in note and "proxy_pass http://localhost:5080" in note


@pytest.mark.parametrize("text", ["Can we get the errors logged to a file?", "How do I get rid of the 404 page?",
                                  "it works now, thanks", "please show the list of users"])
def test_requests_and_confirmations_are_not_problems_told_in_words(text):
    assert statements(user(text), say("Because the handler is missing, I added it."), user("next, the footer")) == []


def test_a_problem_stays_open_while_the_person_asks_to_try_again():
    """ "I fixed the permissions, can you try again?" sends the assistant back at the same problem: the edit
    that follows is its fix."""
    found = statements(
        user("i'm still getting the 401 error."),
        say("Setting `BypassLocalAuth=true` should let the proxy through."),
        user("hold on, I fixed the permissions on qbt.conf so that you can update it. Can you try again?"),
        tool("Edit", {"file_path": f"{ROOT}/qbt.conf", "old_string": "Port=5080", "new_string": "Port=5080\nBypassLocalAuth=true"}, "t1"),
        user("next, the favicon"),
    )
    assert len(found) == 1 and found[0][1].startswith('Fix for "i\'m still getting the 401 error."')
    assert "BypassLocalAuth=true" in found[0][1]


def test_a_problem_open_at_the_last_stop_is_stored_when_the_session_ends_with_nothing_new(service, tmp_path):
    """The session's last lines were read at a Stop; the SessionEnd that follows has nothing new to read,
    and must still store the problem that was open (else a session that ends on its fix loses it)."""
    import json

    from server.hooks.capture import capture
    from server.hooks.protocol import HookInput
    from server.hooks.sessions import Sessions

    sessions = Sessions(tmp_path / "sessions")
    path = tmp_path / "s1.jsonl"
    records = [user("ModuleNotFoundError: No module named 'polars'"),
               tool("Edit", {"file_path": f"{ROOT}/pyproject.toml", "old_string": "[deps]", "new_string": "[deps]\npolars = \"1.9\""}, "t1")]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    capture(service, HookInput("claude-code", "stop", "s1", tmp_path, path), "shop-api", sessions)
    assert not [r for r in service.store.recent_memories("shop-api", 50) if r.kind != "turn"]
    capture(service, HookInput("claude-code", "session-end", "s1", tmp_path, path), "shop-api", sessions)
    notes = [r.content for r in service.store.recent_memories("shop-api", 50) if r.kind == "note"]
    assert len(notes) == 1 and "No module named 'polars'" in notes[0] and 'polars = "1.9"' in notes[0]


def test_the_package_manager_a_project_uses_is_a_fact_once():
    found = statements(user("drop the icons preset"),
                       tool("Bash", {"command": "cd /home/dev/shop-api && pnpm remove @unocss/preset-icons"}, "t1"),
                       result("t1", "devDependencies:\n- @unocss/preset-icons 66.5.10"),
                       tool("Bash", {"command": "pnpm add zod"}, "t2"), result("t2", "+ zod 3.23.8"))
    assert [f for f in found if f[0] == "fact"] == [
        ("fact", "The project uses pnpm as its package manager (`pnpm remove @unocss/preset-icons` worked).")]


@pytest.mark.parametrize("command", ["npm i -g skillz-cli", "npx pnpm@9 --version", "pip install httpx"])
def test_the_default_package_managers_and_one_off_runners_say_nothing_about_the_project(command):
    found = statements(user("install it"), tool("Bash", {"command": command}, "t1"), result("t1", "ok"))
    assert not [f for f in found if f[0] == "fact"]


def test_a_summarys_labelled_paths_are_location_facts():
    """Assistants label where things are ("**Output Location**: `path`", a part's name over its path, a heading
    over a line holding only the path); a place label comes before a part's name, and a label that is not a
    place ("Run:") or lists what a step touched ("Files changed:") gives nothing."""
    found = statements(user("make the exporter"), say(
        "## Done\n\n**Session Storage Location**: `~/.claude/projects/`\n"
        "1. **Slash Command** (`~/.claude/commands/export.md`)\n2. **Python Export Script** (`~/tools/export.py`)\n"
        "Run: `npm test`\n**Files changed**: `src/app.py`\n### 📂 Output Location:\n`~/claude_sessions/exports/DATE_ID/`\n"))
    assert found == [
        ("fact", "Session Storage Location: `~/.claude/projects/`."),
        ("fact", "Python Export Script: `~/tools/export.py`."),
        ("fact", "Output Location: `~/claude_sessions/exports/DATE_ID/`."),
    ]


def test_keep_in_mind_after_another_clause_is_remembered():
    """People add a standing fact to a reply about the moment ("… but keep in mind …"); "note" alone
    mid-sentence is not a request."""
    found = statements(user("that looks good and would work but keep in mind often i have multiple claude code "
                            "sessions running at one time in the same folder."),
                       say("Noted."), user("the build is slow today, we should note the timing of each step"))
    assert found == [("fact", "Often i have multiple claude code sessions running at one time in the same folder.")]


def test_a_file_the_assistant_makes_with_its_purpose_is_a_location_fact():
    """Aider says where things go only before its edit block ("To create an index file for the schemas, which
    exports them all …, here is the block for `schemas/index.ts`"); an offer to add something is not a fact."""
    found = statements(user("add the schemas index"), say(
        "To create an index file for the schemas, which exports all the schemas for easier imports elsewhere in "
        "the project, here is the *SEARCH/REPLACE* block for `schemas/index.ts`:\n\nWould you like me to add these "
        "suggestions to the `future_development.md` file?"))
    assert found == [("fact", "To create an index file for the schemas, which exports all the schemas for easier "
                              "imports elsewhere in the project, here is the *SEARCH/REPLACE* block for "
                              "`schemas/index.ts`")]
