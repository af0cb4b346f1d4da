"""`agentscan trace`: real Claude/VS Code payloads, whole Cursor turns, ids, summaries, cross-checks."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks import has_hook_events, hook_event_counts
from agentscan.hooks.crosscheck import transcript_session_id
from hooks_builders import (
    CONVERSATION, GENERATION, WORKSPACE, Replay, cursor, cursor_transcript_path, load_fixture, only, post, pre,
    prompt, response, stop, subagent_start, subagent_stop, thought, trace_doc, walk,
)

runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, prompt_id: str | None = "p-1", **fields: object) -> dict:
    """A Claude payload in the fixture's shape (session s1, cwd C:\\Repo)."""
    payload: dict = {"hook_event_name": event, "session_id": "s1", "cwd": "C:\\Repo", **fields}
    if prompt_id:
        payload["prompt_id"] = prompt_id
    return payload


def test_the_real_claude_payloads_rebuild_into_one_turn(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send_all(load_fixture("claude-code-default-events.json"))

    doc = trace_doc("claude:s1")
    assert doc["schema"] == "agentscan.trace/1" and doc["warnings"] == []
    session = doc["session"]
    assert (session["id"], session["agent"], session["workspace"], session["status"]) == ("claude:s1", "claude", "C:\\Repo", "ended")
    # events without a prompt_id belong to the session, not to a turn
    assert [n["name"] for n in session["nodes"]] == [
        "SessionStart", "InstructionsLoaded", "ConfigChange", "CwdChanged", "DirectoryAdded", "SessionEnd",
    ]
    [turn] = doc["turns"]
    assert (turn["id"], turn["prompt"]) == ("p1", "Inspect this repo")
    nodes = turn["nodes"]
    read = only(nodes, kind="tool", name="Read")
    assert (read["id"], read["status"], read["provenance"], read["detail"]["duration_ms"]) == ("t1", "ok", "native", 12)
    # the Bash denial and failure have no PreToolUse in the fixture: orphans, with their own status
    assert only(nodes, kind="tool", id="t2")["status"] == "denied"
    assert only(nodes, kind="tool", id="t3")["status"] == "error"
    assert {n["provenance"] for n in nodes if n["id"] in ("t2", "t3")} == {"orphan"}
    explore = only(nodes, kind="subagent")
    # the fixture has no Agent call that started it: kept under the turn, marked as unplaced
    assert (explore["name"], explore["id"], explore["status"], explore["provenance"]) == ("Explore", "a1", "ok", "orphan")
    compaction = only(nodes, kind="event", name="PreCompact")
    assert [c["name"] for c in compaction["children"]] == ["PostCompact"]
    assert [n["status"] for n in nodes if n["name"] in ("Stop", "StopFailure")] == ["completed", "error"]
    assert turn["summary"]["tool_calls"] == 1 and turn["summary"]["tokens"] is None


def test_vscode_payload_timestamps_order_the_tree_and_a_prompt_opens_a_derived_turn(data_dir: Path) -> None:
    # shuffled on purpose: the payloads' own ISO timestamps decide the order, not arrival
    events = load_fixture("vscode-agent-hooks-events.json")
    Replay(data_dir, agent="vscode").send_all(list(reversed(events)))

    doc = trace_doc("vscode:v1")
    [turn] = doc["turns"]
    assert (turn["id"], turn["prompt"]) == ("derived-1", "Inspect")
    edit = only(turn["nodes"], kind="tool", name="editFiles")
    assert (edit["started_at"], edit["ended_at"], edit["status"]) == ("2026-08-22T14:00:02.000Z", "2026-08-22T14:00:03.000Z", "ok")
    assert edit["provenance"] == "inferred"  # placed in a turn that was itself inferred
    assert [n["name"] for n in turn["nodes"] if n["kind"] == "event"] == ["PreCompact", "Stop"]


def cursor_session(replay: Replay) -> None:
    """Two Cursor turns: skills, a subagent, tokens, and a transcript path that shows up late."""
    replay.send(cursor("sessionStart", session_id=CONVERSATION, is_background_agent=False, composer_mode="agent",
                       transcript_path=None, generation_id=""), at_ms=0)
    replay.send(prompt("<user_query>/review the hook code, then /summarize. See and/or http://x.io/a</user_query>",
                       transcript_path=None), at_ms=10)
    replay.send(thought("I should use the **code-review** skill here.", duration_ms=800), at_ms=20)
    skill = {"file_path": "/home/dev/.cursor/skills-cursor/code-review/SKILL.md"}
    replay.send(pre("Read", skill, "read-1"), at_ms=30)
    replay.send(post("Read", skill, "read-1"), at_ms=40)
    task = {"description": "find hook files", "prompt": "list them", "subagent_type": "explore"}
    replay.send(pre("Task", task, "task-1"), at_ms=50)
    replay.send(subagent_start("sub-1", "find hook files", tool_call_id="task-1"), at_ms=60)
    replay.send(subagent_stop("find hook files"), at_ms=4260)
    replay.send(post("Task", task, "task-1"), at_ms=4270)
    replay.send(response("Done.", input_tokens=1000, output_tokens=50), at_ms=4300)
    replay.send(stop(input_tokens=1180, output_tokens=80, cache_read_tokens=900, cache_write_tokens=100), at_ms=4310)
    second = "c3d5e7f9-2d4f-4b6c-9e8a-0f1b2c3d4e5f"
    replay.send(prompt("thanks", generation=second), at_ms=6000)
    replay.send(stop(generation=second, input_tokens=1500, output_tokens=20, cache_read_tokens=1200, cache_write_tokens=10), at_ms=6100)


def test_a_cursor_session_has_turns_subagents_skills_commands_and_tokens(data_dir: Path) -> None:
    cursor_session(Replay(data_dir))
    doc = trace_doc(CONVERSATION[:8])

    session = doc["session"]
    assert (session["workspace"], session["status"]) == (WORKSPACE, "stopped")
    assert session["transcript_path"] == cursor_transcript_path()
    assert session["transcript_session_id"] == f"cursor:{CONVERSATION}"
    assert [n["name"] for n in session["nodes"]] == ["sessionStart"]
    first, second = doc["turns"]
    assert first["id"] == GENERATION
    task = only(first["nodes"], kind="tool", name="Task")
    [sub] = task["children"]
    # nested by the Task call's id; its stop (no subagent_id, as documented) paired by type and task
    assert (sub["kind"], sub["id"], sub["provenance"], sub["status"]) == ("subagent", "sub-1", "correlated", "ok")
    assert sub["detail"]["duration_ms"] == 4200 and sub["detail"]["tool_call_count"] == 3

    summary = first["summary"]
    assert summary["skills"] == [{"name": "code-review", "source": "skill_file", "provenance": "inferred"}]
    assert summary["commands"] == [
        {"name": "review", "source": "prompt", "provenance": "inferred"},
        {"name": "summarize", "source": "prompt", "provenance": "inferred"},
    ]
    assert summary["skill_mentions"] == [{"name": "code-review", "source": "thought", "provenance": "inferred"}]
    assert summary["tokens"] == {"input": 180, "cache_read": 900, "cache_write": 100, "output": 80, "reasoning": 0, "total": 1260}
    assert (summary["tools"], summary["subagents"], summary["wall_time_ms"]) == ({"Read": 1, "Task": 1}, 1, 4300)
    assert summary["thoughts"] == {"count": 1, "chars": 44, "duration_ms": 800}
    assert summary["status"] == "completed"

    total = doc["summary"]
    assert total["turns"] == 2 and total["wall_time_ms"] == 6100
    # context-like counts from the latest snapshot, output and cache writes summed
    assert total["tokens"] == {"input": 290, "cache_read": 1200, "cache_write": 110, "output": 100, "reasoning": 0, "total": 1700}
    assert second["summary"]["tool_calls"] == 0


def test_the_human_trace_is_an_indented_tree(data_dir: Path) -> None:
    cursor_session(Replay(data_dir))
    result = runner.invoke(app, ["trace", f"cursor:{CONVERSATION}"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    # The transcript the hooks named is not on disk here: its path, said so (not an id made from it).
    [transcript] = [line for line in text.splitlines() if line.startswith("  transcript  ")]
    assert CONVERSATION in transcript and transcript.endswith(".jsonl (not found)"), transcript
    assert "turn 1" in text and "turn 2" in text
    assert "|- tool Task  find hook files  ok" in text
    assert "|  `- subagent explore  ok  4.2 s" in text
    assert "prompt: <user_query>/review" in text


def test_a_subagent_stop_without_id_pairs_with_the_unique_open_start_of_its_type(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(subagent_start("s-a", "task A", tool_call_id="none", subagent_type="explore"), at_ms=0)
    replay.send(subagent_start("s-b", "task B", tool_call_id="none", subagent_type="shell"), at_ms=1)
    replay.send(subagent_stop("task B", subagent_type="shell"), at_ms=10)
    replay.send(subagent_stop("task C", subagent_type="explore"), at_ms=20)  # a different task rules s-a out

    nodes = trace_doc()["turns"][0]["nodes"]
    assert only(nodes, id="s-b")["status"] == "ok"  # paired with the stop of its type
    assert only(nodes, id="s-a")["status"] is None
    # No Task call "none" exists: both starts stay under the turn marked orphan (their place is
    # unknown), and so does the stop of task C, which found no start.
    assert {only(nodes, id=i)["provenance"] for i in ("s-a", "s-b")} == {"orphan"}
    stray = only(nodes, kind="subagent", id=None)
    assert (stray["name"], stray["provenance"], stray["status"]) == ("explore", "orphan", "ok")


def test_claude_subagent_work_nests_under_the_agent_call_and_batches_regroup_calls(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    agent_input = {"description": "explore", "prompt": "find", "subagent_type": "Explore"}
    grep, glob = {"pattern": "hook"}, {"pattern": "*.py"}
    replay.send_all([
        claude("UserPromptSubmit", prompt="/release now"),
        claude("UserPromptExpansion", expansion_type="slash_command", command_name="release", command_args="now", command_source="project"),
        claude("PreToolUse", tool_name="Agent", tool_input=agent_input, tool_use_id="toolu_agent"),
        claude("SubagentStart", agent_id="a1", agent_type="Explore"),
        claude("PreToolUse", tool_name="Grep", tool_input=grep, tool_use_id="toolu_g", agent_id="a1", agent_type="Explore"),
        claude("PostToolUse", tool_name="Grep", tool_input=grep, tool_response={}, tool_use_id="toolu_g", agent_id="a1", agent_type="Explore"),
        claude("SubagentStop", agent_id="a1", agent_type="Explore", last_assistant_message="found"),
        claude("PostToolUse", tool_name="Agent", tool_input=agent_input, tool_response={}, tool_use_id="toolu_agent"),
        claude("PreToolUse", tool_name="Skill", tool_input={"skill": "pdf"}, tool_use_id="toolu_s"),
        claude("PreToolUse", tool_name="mcp__github__search_issues", tool_input={"q": "bug"}, tool_use_id="toolu_m"),
        claude("PreToolUse", tool_name="Glob", tool_input=glob, tool_use_id="toolu_gl"),
        claude("PermissionRequest", tool_name="Glob", tool_input=glob),
        claude("PostToolUse", tool_name="Skill", tool_input={"skill": "pdf"}, tool_response={}, tool_use_id="toolu_s"),
        claude("PostToolUse", tool_name="mcp__github__search_issues", tool_input={"q": "bug"}, tool_response={}, tool_use_id="toolu_m"),
        claude("PostToolUse", tool_name="Glob", tool_input=glob, tool_response={}, tool_use_id="toolu_gl"),
        claude("PostToolBatch", tool_calls=[{"tool_name": "mcp__github__search_issues", "tool_use_id": "toolu_m"},
                                            {"tool_name": "Glob", "tool_use_id": "toolu_gl"}]),
        claude("Stop", stop_hook_active=False, last_assistant_message="ok"),
    ])

    turn = trace_doc("claude:s1")["turns"][0]
    nodes = turn["nodes"]
    agent = only(nodes, kind="tool", name="Agent")
    [sub] = agent["children"]
    assert (sub["id"], sub["provenance"]) == ("a1", "correlated")
    assert [(c["name"], c["status"]) for c in sub["children"]] == [("Grep", "ok")]
    batch = only(nodes, kind="event", name="PostToolBatch")
    assert sorted(c["id"] for c in batch["children"]) == ["toolu_gl", "toolu_m"]
    assert [c["name"] for c in only(nodes, id="toolu_gl")["children"]] == ["PermissionRequest"]
    assert not [n for n in walk(nodes) if n["kind"] == "wave"]  # the batch took its calls out of the wave
    summary = turn["summary"]
    assert summary["mcp"] == {"github": {"search_issues": 1}}
    assert summary["tools"] == {"Agent": 1, "Glob": 1, "Grep": 1, "Skill": 1}
    assert summary["skills"] == [{"name": "pdf", "source": "skill_tool", "provenance": "native"}]
    assert {(c["name"], c["source"]) for c in summary["commands"]} == {("release", "prompt"), ("release", "expansion")}


def test_cursor_cli_turns_come_from_prompt_and_stop_when_generation_is_the_conversation(data_dir: Path) -> None:
    replay = Replay(data_dir)
    cli = {"generation": CONVERSATION}  # the CLI repeats the conversation id
    for text in ("first", "second"):
        replay.send(prompt(text, **cli))
        replay.send(pre("Grep", {"pattern": text}, f"g-{text}", **cli))
        replay.send(post("Grep", {"pattern": text}, f"g-{text}", **cli))
        replay.send(stop(**cli))
    turns = trace_doc()["turns"]
    assert [(t["id"], t["prompt"]) for t in turns] == [("derived-1", "first"), ("derived-2", "second")]
    assert [only(t["nodes"], kind="tool")["input"]["pattern"] for t in turns] == ["first", "second"]


def test_step_scoped_generation_ids_fold_into_their_turn(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("go"))
    replay.send(thought("step", generation=f"{GENERATION}-3-1v0i"))
    [turn] = trace_doc()["turns"]
    assert turn["id"] == GENERATION and only(turn["nodes"], kind="thought")["input"]["text"] == "step"


def test_ids_resolve_bare_prefixed_or_by_unique_prefix(data_dir: Path) -> None:
    replay = Replay(data_dir)
    for conversation in ("abcdef01-0000-4000-8000-000000000001", "abcdef02-0000-4000-8000-000000000002"):
        replay.send(prompt("hi", conversation=conversation))
    assert trace_doc("abcdef01-0000-4000-8000-000000000001")["session"]["id"] == "cursor:abcdef01-0000-4000-8000-000000000001"
    assert trace_doc("cursor:abcdef02")["session"]["native_id"] == "abcdef02-0000-4000-8000-000000000002"

    ambiguous = runner.invoke(app, ["trace", "abcdef0"])
    assert ambiguous.exit_code == 1
    assert "cursor:abcdef01-0000-4000-8000-000000000001" in ambiguous.stderr
    assert "cursor:abcdef02-0000-4000-8000-000000000002" in ambiguous.stderr
    for unknown in ("ffffffff", "claude:abcdef01"):
        result = runner.invoke(app, ["trace", unknown, "--json"])
        assert result.exit_code == 1, unknown
        assert f"no hook events for {unknown!r}; see `agentscan hooks install`" in result.stderr
    short = runner.invoke(app, ["trace", "abc"])
    assert short.exit_code == 1 and "'abc' is too short: give at least 6 characters" in short.stderr


def test_bad_store_lines_are_warnings_and_strict_turns_them_into_exit_1(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("hi"))
    path = data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl"
    with path.open("ab") as handle:
        handle.write(b"{not json\n" + orjson.dumps({"received_at_ns": "soon"}) + b"\n")
    doc = trace_doc()
    assert [(w["line"], w["message"]) for w in doc["warnings"]] == [
        (2, "not a JSON envelope"), (3, "envelope without payload or time"),
    ]
    assert doc["turns"][0]["prompt"] == "hi"
    assert runner.invoke(app, ["--strict", "trace", CONVERSATION, "--json"]).exit_code == 1


def test_show_can_ask_whether_a_session_has_hook_events(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("one"))
    replay.send(stop())
    assert has_hook_events("cursor", CONVERSATION)
    assert not has_hook_events("claude", CONVERSATION)
    assert not has_hook_events("cursor", "0000")
    assert hook_event_counts([f"cursor:{CONVERSATION}", "claude:nope", "garbage"]) == {f"cursor:{CONVERSATION}": 2}


@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    [
        ("claude", "/home/u/.claude/projects/-work-repo/0a1b2c3d-1111-4222-8333-444455556666.jsonl",
         "claude:0a1b2c3d-1111-4222-8333-444455556666"),
        ("claude", "C:\\Users\\u\\.claude\\projects\\C--Repo\\s1\\subagents\\agent-a1.jsonl", "claude:s1"),
        ("cursor", "/home/u/.cursor/projects/x/agent-transcripts/c1/c1.jsonl", "cursor:c1"),
        ("cursor", "/home/u/.cursor/projects/x/agent-transcripts/c2.jsonl", "cursor:c2"),
        ("cursor", "/home/u/.cursor/projects/x/agent-transcripts/c1/subagents/k9.jsonl", "cursor:c1"),
        ("cursor", "/tmp/notes.txt", None),
        ("cursor", None, None),
    ],
)
def test_a_transcript_path_maps_to_the_agentscan_session_id(agent: str, path: str | None, expected: str | None) -> None:
    assert transcript_session_id(agent, path) == expected


def test_the_captured_times_are_local_as_trace_list_s_are(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``trace --list`` shows local time; the trace itself said UTC instants (``…Z``)."""
    import time
    from datetime import datetime, timezone

    from hooks_builders import BASE_NS

    cursor_session(Replay(data_dir))
    try:
        with monkeypatch.context() as patch:  # (not ``monkeypatch.undo()``: the isolated home stays)
            patch.setenv("TZ", "Asia/Tokyo")
            time.tzset()
            text = runner.invoke(app, ["trace", f"cursor:{CONVERSATION}"]).stdout
    finally:
        time.tzset()
    [line] = [line for line in text.splitlines() if line.startswith("  captured")]
    start = datetime.fromtimestamp(BASE_NS / 1e9, timezone.utc).astimezone(
        __import__("zoneinfo").ZoneInfo("Asia/Tokyo"))
    assert line.startswith(f"  captured    {start:%Y-%m-%d %H:%M:%S} .. "), line
    assert "Z" not in line


def test_an_upper_case_id_opens_the_trace_as_show_takes_it(data_dir: Path) -> None:
    cursor_session(Replay(data_dir))
    for query in (CONVERSATION.upper(), f"cursor:{CONVERSATION[:8].upper()}"):
        result = runner.invoke(app, ["trace", query])
        assert result.exit_code == 0, (query, result.stderr)
        assert f"session cursor:{CONVERSATION}" in result.stdout
