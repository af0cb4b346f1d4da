"""Pass 29: what ``list``/``show`` say of prompts and tool calls.

* The IDE extensions' context blocks (``<ide_opened_file>``, ``<ide_selection>``,
  ``<ide_diagnostics>``) are no prompt and no title, in every reader that finds one.
* A call the user declined is ``denied`` (card and ``--full`` alike), not an error,
  for every agent; an OTLP span of one is no ERROR.
* A question call (``AskUserQuestion``) is summarised by its question and the answers
  picked; a todo list (``TodoWrite``) by its counts, not by sorted JSON.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.bounds import Bounds
from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.providers.claude.records import real_prompt_text
from agentscan.providers.codex.detail import output_status
from agentscan.providers.cursor.ide import tool_event
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from codex_builders import at, function_call, function_output, meta, rollout_path, turn_context, user_message, write_rollout
from gemini_builders import call, gemini, tokens, user, write_chat
from gemini_builders import meta as gemini_meta
from otlp_builders import one, otlp, read_otlp_file

runner = CliRunner()
S = "29292929-1111-4000-8000-000000000000"
OPENED = ("<ide_opened_file>The user opened the file /home/dev/project/mix.exs in the IDE. "
          "This may or may not be related to the current task.</ide_opened_file>")
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
            "tell you how to proceed.")
QUESTION = "Which rig do these beads belong to? (This is a single-app project — should I use 'spotter'?)"


def _ts(second: int) -> str:
    return f"2026-11-02T10:00:{second:02d}.000Z"


def _reply(second: int, blocks: list | None = None) -> dict:
    return claude_assistant(S, _ts(second), msg_id=f"m{second}", request_id=f"r{second}", usage=claude_usage(10, 5),
                            uuid=f"a{second}", blocks=blocks or [{"type": "text", "text": "done"}])


def _use(call_id: str, name: str, **tool_input: object) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def _result(second: int, call_id: str, content: str, *, error: bool = False, **extra: object) -> dict:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": error}
    return claude_user(S, _ts(second), [block], uuid=f"res-{call_id}", **extra)


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


# -- IDE context ------------------------------------------------------------------------


def _ide_session(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, _ts(0), [{"type": "text", "text": OPENED}], uuid="u0"),  # context alone: no prompt
        _reply(1),
        claude_user(S, _ts(2), [{"type": "text", "text": OPENED}, {"type": "text", "text": "bump the deps"}], uuid="u1"),
        _reply(3),
        claude_user(S, _ts(4), [{"type": "text", "text": "<ide_selection>The user selected the lines 1 to 3 from /x.ex:\n"
                                                        "defmodule X do\n</ide_selection>explain this"},
                                {"type": "text", "text": "<ide_diagnostics>[]</ide_diagnostics>"}], uuid="u2"),
        _reply(5),
    ])


def test_ide_context_is_no_title_and_no_prompt(isolated_home: Path) -> None:
    _ide_session(isolated_home)
    (row,) = _json("list")["sessions"]
    assert row["title"] == "bump the deps"  # was "<ide_opened_file>The user opened the file …"
    assert row["counts"]["prompts"] == 2
    texts = [p["text"] for p in _json("show", S)["session"]["prompts"]]
    assert [" ".join(t.split()) for t in texts] == ["bump the deps", "explain this"]
    assert "<ide_" not in runner.invoke(app, ["show", S, "--full", "--no-pager"]).stdout


def test_an_ide_tag_typed_inside_a_prompt_is_kept(isolated_home: Path) -> None:
    # Only what the extension sends (a block of its own, or ahead of the text) is its context.
    typed = "Why does the extension send <ide_selection>the lines</ide_selection> to the model?"
    claude_session_file(isolated_home, S, [claude_user(S, _ts(0), typed, uuid="u0"), _reply(1)])
    (row,) = _json("list")["sessions"]
    assert row["title"] == typed


def test_tokens_table_facts_name_the_session_as_its_row(isolated_home: Path) -> None:
    _ide_session(isolated_home)
    scanner = Scanner(home=isolated_home, env={}, use_cache=False)
    provider = scanner.provider("claude")
    (ref,) = provider.discover(scanner.ctx)
    with scanner:
        facts = ClaudeProvider().table_facts(ref, scanner.ctx)
    assert facts is not None and facts.title == "bump the deps"


def test_an_unclosed_ide_tag_is_kept_and_many_cost_no_rescan() -> None:
    def prompt(text: str) -> dict:
        return {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}

    assert real_prompt_text(prompt("what does <ide_foo> mean")) == "what does <ide_foo> mean"
    assert real_prompt_text(prompt(OPENED)) is None
    hostile = "<ide_a>" * 200_000 + "x"
    started = time.perf_counter()
    assert real_prompt_text(prompt(hostile)) == hostile
    assert time.perf_counter() - started < 1.0  # one pattern per block would rescan the rest from each tag


# -- declined calls, questions and todo lists (Claude) -----------------------------------


def _tools_session(home: Path) -> None:
    todos = [{"content": "read", "status": "completed", "activeForm": "Reading"},
             {"content": "fix", "status": "completed", "activeForm": "Fixing"},
             {"content": "test", "status": "in_progress", "activeForm": "Running the tests"},
             {"content": "ship", "status": "pending", "activeForm": "Shipping"}]
    questions = [
        {"question": QUESTION, "header": "Rig prefix", "multiSelect": False,
         "options": [{"label": "spotter", "description": "Use 'spotter'"}, {"label": "No rig", "description": "None"}]},
        {"question": "Which tools should we set up?", "header": "Tools", "multiSelect": False,
         "options": [{"label": "Credo", "description": "lint"}]},
    ]
    claude_session_file(home, S, [
        claude_user(S, _ts(0), "set the project up", uuid="u0"),
        _reply(1, [_use("t_rm", "Bash", command="rm -rf build"), _use("t_edit", "Edit", file_path="/a.py"),
                   _use("t_old", "Write", file_path="/b.py"), _use("t_kind", "Bash", command="make")]),
        _result(2, "t_rm", REJECTED, error=True, toolUseResult="User rejected tool use"),
        _result(3, "t_edit", "String to replace not found in file.", error=True,
                toolUseResult="Error: String to replace not found in file."),
        _result(4, "t_old", REJECTED, error=True, toolUseResult="Error: " + REJECTED),  # Claude Code 1.0.x
        _result(5, "t_kind", "The user doesn't want to proceed with this tool use.", error=True,
                toolDenialKind="user-rejected", toolUseResult={"stdout": "", "stderr": "", "is_error": True}),
        _reply(6, [_use("t_todo", "TodoWrite", todos=todos)]),
        _result(7, "t_todo", "Todos have been modified successfully.",
                toolUseResult={"oldTodos": [], "newTodos": todos}),
        _reply(8, [_use("t_ask", "AskUserQuestion", questions=questions)]),
        _result(9, "t_ask", "User has answered your questions: …",
                toolUseResult={"questions": questions,
                               "answers": {QUESTION: "No rig", "Which tools should we set up?": "Credo"}}),
        _reply(10),
    ])


EXPECTED_TOOLS = [
    ("Bash", "rm -rf build", "denied"),
    ("Edit", "/a.py", "error"),
    ("Write", "/b.py", "denied"),
    ("Bash", "make", "denied"),
    ("TodoWrite", "todos: 4 (2 done, 1 in progress: Running the tests)", "ok"),
    ("AskUserQuestion", f"{QUESTION} (+1 more) → No rig; Credo", "ok"),
]


def test_declined_calls_are_denied_and_questions_and_todos_read_as_words(isolated_home: Path) -> None:
    _tools_session(isolated_home)
    tools = _json("show", S)["session"]["tools"]
    assert [(t["name"], t["summary"], t["status"]) for t in tools] == EXPECTED_TOOLS


def test_the_card_and_the_full_view_mark_a_declined_call_denied(isolated_home: Path) -> None:
    _tools_session(isolated_home)
    card = runner.invoke(app, ["show", S]).stdout
    # The words --full and --json use (pass 50: ``NO`` and ``ERR`` were a second spelling), aligned.
    assert "  denied Bash: rm -rf build" in card and "  error  Edit: /a.py" in card
    assert "  ok     AskUserQuestion: Which rig" in card
    full = runner.invoke(app, ["show", S, "--full", "--no-pager"]).stdout
    assert "Bash  denied" in full and "Edit  error" in full
    assert '{"todos"' not in full and '{"questions"' not in full


def test_the_huge_transcript_reader_says_the_same(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``show`` of a transcript read from its end (``tail.py``) gives the forward detail."""
    _tools_session(isolated_home)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    provider, bounds = ClaudeProvider(), Bounds()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    assert provider.shows_from_row(ref, ctx)
    tail = provider.detail_with_row(ref, ctx, bounds, provider.row(ref, ctx))
    assert tail is not None
    assert [(t.name, t.summary, t.status) for t in tail.tools] == EXPECTED_TOOLS


def test_a_second_result_replaces_the_first_answer() -> None:
    from agentscan.detailmodel import ToolEvent
    from agentscan.toolkit.detail import DetailCollector

    collector = DetailCollector(Bounds())
    collector.add_tool(ToolEvent(name="AskUserQuestion", summary="Which?"), key="k")
    collector.finish_tool("k", status="ok", answer="A")
    collector.finish_tool("k", status="ok", answer="B")
    assert [t.summary for t in collector.tools()] == ["Which? → B"]


def test_a_declined_call_is_no_error_span(isolated_home: Path, tmp_path: Path) -> None:
    _tools_session(isolated_home)
    out = tmp_path / "traces.jsonl"
    assert otlp("--output", str(out)).exit_code == 0
    spans = [span for trace in read_otlp_file(out) for span in trace]
    declined = [s for s in spans if s.attrs.get("gen_ai.tool.call.id") == "t_rm"][0]
    assert declined.attrs["agentscan.tool.status"] == "denied"
    assert declined.status == 0 and "error.type" not in declined.attrs  # was ERROR, error.type "denied"
    failed = one(spans, "execute_tool Edit")
    assert failed.status == 2 and failed.attrs["error.type"] == "error"


# -- declined calls (Gemini, Codex, Cursor) ----------------------------------------------


def test_a_cancelled_gemini_call_is_denied(isolated_home: Path) -> None:
    t0 = "2026-05-01T10:00:0"
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-29292929.jsonl", [
        gemini_meta(S),
        user("u1", t0 + "1.000Z", "read it"),
        gemini("g1", t0 + "2.000Z", "", usage=tokens(10, 1), calls=[
            call("c1", "read_file", {"file_path": "README.md"}, status="cancelled"),
            call("c2", "read_file", {"file_path": "b.md"}, status="error"),
        ]),
    ])
    tools = _json("show", S)["session"]["tools"]
    assert [t["status"] for t in tools] == ["denied", "error"]
    card = runner.invoke(app, ["show", S]).stdout
    assert "  denied read_file: README.md" in card and "  error  read_file: b.md" in card


def test_a_codex_call_the_user_declined_is_denied(isolated_home: Path) -> None:
    thread = "29292929-2222-4000-8000-000000000000"
    write_rollout(rollout_path(isolated_home / ".codex", thread, at(0)), [
        meta(thread, at(0)), turn_context(at(1)), user_message(at(2), "clean up"),
        function_call(at(3), "shell", {"command": ["bash", "-lc", "rm -rf build"]}, "c1"),
        function_output(at(4), "c1", "exec command rejected by user"),
        function_call(at(5), "shell", {"command": ["bash", "-lc", "make"]}, "c2"),
        function_output(at(6), "c2", "Exit code: 2\nmake: *** No rule"),
    ])
    tools = _json("show", thread)["session"]["tools"]
    assert [(t["summary"], t["status"]) for t in tools] == [("rm -rf build", "denied"), ("make", "error")]
    assert output_status("patch rejected by user") == "denied"
    assert output_status("patch rejected: empty patch") == "error"  # the tool refused it: an error


def test_a_cursor_call_the_user_rejected_is_denied() -> None:
    statuses = [tool_event({"name": "run_terminal_cmd", "status": status}, None).status
                for status in ("completed", "error", "rejected", "cancelled", "loading")]
    assert statuses == ["ok", "error", "denied", "denied", "unknown"]
