"""Cursor sessions that were not listed or were empty (issue 17): plain-text
transcripts, CLI stores with no transcript, composers only a workspace DB
lists, and composers whose bubbles carry no text (their turns are in
``agentKv`` rows).

No public repository holds a Cursor DB or store as a data file
(fixtures/real/SOURCES.md), and no plain-text transcript whose source and
licence could be pinned down was found, so these are built by hand from the
documented formats (docs/providers/cursor.md); each expected number is a
hand count written beside the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.model import TokenUsage
from agentscan.scan import liveness
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from cursor_builders import (
    add_store_messages,
    agentkv_rows,
    assistant,
    bubble,
    composer_data,
    make_state_db,
    make_workspace_db,
    state_db_path,
    transcripts_dir,
    user,
    write_chat_store,
    write_transcript,
)

S = "5e1f0c3a-1111-4222-8333-444444444444"
S2 = "5e1f0c3a-2222-4222-8333-444444444444"
CWD = "/Users/dev/Desktop/coding/return-it"

# Shaped like the plain-text transcripts Cursor wrote before JSONL (a public
# one reads the same way); content made up.  Hand count: 2 prompts; replies
# with text: turn 4 ("The dev server is running…") and turn 6 ("The app is
# configured…") = 2 (turns 2, 3, 5 only think and call tools); tool calls:
# LS, Shell, ReadFile, ReadFile = 4; the Shell's working_directory is the cwd.
TEXT_TRANSCRIPT = f"""user:
<user_query>
start return it, I want to see the app running in the browser
</user_query>

assistant:
[Thinking] **Preparing to run dev server**
[Tool call] LS
  target_directory: {CWD}/terminals

[Tool result] LS

assistant:
[Thinking] **Starting dev server**
[Tool call] Shell
  command: npm run dev
  working_directory: {CWD}
  description: Start Next.js dev server

[Tool result] Shell
> next dev
ready on http://localhost:3000

assistant:
[Thinking] **Prompting user to open localhost**

I'll notify the user to open their browser at localhost:3000.
The dev server is running. Open `http://localhost:3000` in your browser.

user:
<user_query>
it's showing a 404 error
</user_query>

assistant:
[Thinking] **Checking server output**
[Tool call] ReadFile
  path: {CWD}/next.config.js
  offset: 12
[Tool call] ReadFile
  path: {CWD}/app/page.tsx

[Tool result] ReadFile

[Tool result] ReadFile

assistant:
[Thinking] **Noticing basePath causes 404 at root**

The app's root is set to /return-it, so / is a 404.
The app is configured with a `basePath` of `/return-it`.
Open it at `http://localhost:3000/return-it`.
"""


def _write_text_transcript(home: Path, name: str = f"{S}.txt") -> Path:
    path = transcripts_dir(home, "Users-dev-Desktop-coding-return-it") / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TEXT_TRANSCRIPT, "utf-8")
    return path


def test_a_plain_text_transcript_is_a_session(isolated_home: Path) -> None:
    _write_text_transcript(isolated_home)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    assert row.id == f"cursor:{S}"
    assert row.title == "start return it, I want to see the app running in the browser"
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (2, 2, 4)
    assert row.cwd == CWD
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == [row.title, "it's showing a 404 error"]
    assert [r.text.splitlines()[0] for r in detail.responses] == [
        "The dev server is running. Open `http://localhost:3000` in your browser.",
        "The app is configured with a `basePath` of `/return-it`.",
    ]
    assert [(t.name, t.summary) for t in detail.tools] == [
        ("LS", f"{CWD}/terminals"), ("Shell", "npm run dev"),
        ("ReadFile", f"{CWD}/next.config.js"), ("ReadFile", f"{CWD}/app/page.tsx"),
    ]


def test_a_jsonl_transcript_beats_the_text_one_of_the_same_id(isolated_home: Path) -> None:
    _write_text_transcript(isolated_home)
    write_transcript(isolated_home, "Users-dev-Desktop-coding-return-it", S, [user("the jsonl prompt"), assistant("ok")], flat=True)
    (row,) = Scanner().list_sessions()
    assert row.title == "the jsonl prompt" and row.path.endswith(".jsonl")


def test_a_text_file_not_named_by_an_id_is_not_a_transcript(isolated_home: Path) -> None:
    _write_text_transcript(isolated_home, name="notes.txt")
    assert Scanner().list_sessions() == []


# -- the Agent CLI store without a transcript ----------------------------------------------


def _store(home: Path) -> Path:
    directory = write_chat_store(
        home, CWD, S,
        meta={"schemaVersion": 1, "createdAtMs": 1780000000000, "updatedAtMs": 1780000900000, "cwd": CWD},
        store={"agentId": S, "name": "Fix the basePath", "createdAt": 1780000000000, "lastUsedModel": "claude-4-sonnet"},
    )
    add_store_messages(directory, [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nwhy is / a 404?\n</user_query>"}]},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "look at next.config.js"},
                                          {"type": "tool-call", "toolCallId": "t1", "toolName": "ReadFile",
                                           "args": {"path": f"{CWD}/next.config.js"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "t1", "result": "basePath: '/return-it'"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "basePath is /return-it: open /return-it."}]},
    ])
    return directory


def test_a_cli_store_with_no_transcript_is_listed_and_shown(isolated_home: Path) -> None:
    _store(isolated_home)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    # Hand count of the 5 messages: 1 prompt (the system one is not), 1 reply
    # with text, 1 tool call; the store records no tokens.
    assert row.id == f"cursor:{S}"
    assert (row.title, row.cwd, row.model) == ("Fix the basePath", CWD, "claude-4-sonnet")
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 1, 1)
    assert row.tokens is None
    assert row.started_at.timestamp() == 1780000000
    assert row.path.endswith("store.db")
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == ["why is / a 404?"]
    assert [r.text for r in detail.responses] == ["basePath is /return-it: open /return-it."]
    assert [t.name for t in detail.tools] == ["ReadFile"]
    (report_row,) = token_report(scanner).rows
    assert report_row.tokens is None


@pytest.mark.skipif(not liveness.supported(), reason="/proc is Linux-only")
def test_a_cli_store_is_running_while_its_store_is_open(isolated_home: Path) -> None:
    directory = _store(isolated_home)
    with open(directory / "store.db", "ab"):
        assert Scanner().show(S).row.running is True


def test_a_store_of_a_chat_that_has_a_transcript_is_not_listed_twice(isolated_home: Path) -> None:
    _store(isolated_home)
    write_transcript(isolated_home, "p", S, [user("from the transcript")], flat=True)
    (row,) = Scanner().list_sessions()
    assert row.title == "Fix the basePath" and row.path.endswith(".jsonl")


# -- composers only a workspace DB lists ----------------------------------------------------


def test_a_workspace_only_composer_with_an_inline_conversation(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home))  # the global DB knows nothing of it
    make_workspace_db(isolated_home, "file:///Users/dev/src/old%20app", [{
        "composerId": S, "name": "Old composer", "createdAt": 1700000000000, "lastUpdatedAt": 1700000600000,
        "conversation": [
            bubble("b1", 1, "rename the helper"),
            bubble("b2", 2, "Renamed.", tokens=(1200, 80), model="claude-3.5-sonnet",
                   toolFormerData={"name": "edit_file", "status": "completed", "rawArgs": '{"target_file": "a.py"}'}),
            bubble("b3", 2, "", tokens=(300, 20)),
        ],
    }])
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    # Hand count: tokens 1200 + 300 in, 80 + 20 out; 1 prompt, 1 reply with
    # text, 1 tool call; the folder URI's %20 is a space.
    assert (row.id, row.title, row.cwd) == (f"cursor:{S}", "Old composer", "/Users/dev/src/old app")
    assert row.tokens == TokenUsage(input=1500, output=100)
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 1, 1)
    assert row.model == "claude-3.5-sonnet"
    (report_row,) = token_report(scanner).rows
    assert report_row.tokens == TokenUsage(input=1500, output=100)
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == ["rename the helper"]
    assert [(t.name, t.status) for t in detail.tools] == [("edit_file", "ok")]


def test_a_workspace_db_gives_the_cwd_of_a_global_composer(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home), composers=[composer_data(S, name="No workspace named", bubbles=["b1"])],
                  bubbles={S: [bubble("b1", 1, "hello")]})
    make_workspace_db(isolated_home, "file:///Users/dev/src/api", [{"composerId": S, "name": "No workspace named"}],
                      key="composer.composerHeaders")
    (row,) = Scanner().list_sessions()
    assert row.cwd == "/Users/dev/src/api"


# -- bubbles with no text: the turns are in agentKv rows ------------------------------------


def test_textless_bubbles_read_their_turns_from_agentkv(isolated_home: Path) -> None:
    rows = agentkv_rows([
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nadd a health endpoint\n</user_query>"}],
         "providerOptions": {"cursor": {"requestId": "req-1", "modelName": "gpt-5"}}},
        {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Write", "args": {"path": "/srv/api/health.py"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "result": "ok"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Added GET /health."}]},
        # Another composer's request: not this session's.
        {"role": "user", "content": "<user_query>\nsomething else\n</user_query>",
         "providerOptions": {"cursor": {"requestId": "req-other"}}},
        {"role": "assistant", "content": "unrelated"},
    ])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(S, bubbles=["b1", "b2"])],
                  bubbles={S: [bubble("b1", 1, "", requestId="req-1"), bubble("b2", 2, "", requestId="req-1")]},
                  raw_rows=rows)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    # Hand count of req-1's rows: 1 prompt, 1 reply with text, 1 tool call.
    assert row.title == "add a health endpoint"
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 1, 1)
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == ["add a health endpoint"]
    assert [r.text for r in detail.responses] == ["Added GET /health."]
    assert [t.name for t in detail.tools] == ["Write"]
