"""Hook capture, pass 28: a completion captured before its request still makes one call
(Claude Code runs hooks asynchronously); a Cursor shell or MCP execution whose ``after…``
never came is exported ``unfinished`` with an end, not as a 0 ms success; ``doctor`` says when
agentscan's hook is registered twice on an event, so each event is stored twice."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, hook_command
from hooks_builders import (
    BASE_NS, CONVERSATION, MS, Replay, after_shell, before_mcp, before_shell, failure, only, post, pre, prompt,
    shell_input, stop, trace_doc, walk,
)
from otlp_builders import by_name, one, otlp, read_otlp_file

runner = CliRunner()
SESSION = "22222222-3333-4444-5555-666666666666"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "session_id": SESSION, "prompt_id": "p-1", "cwd": "/repo",
            "permission_mode": "default", **fields}


def bash_pre(command: str, tool_use_id: str | None, **fields: Any) -> dict[str, Any]:
    ids = {"tool_use_id": tool_use_id} if tool_use_id else {}
    return claude("PreToolUse", tool_name="Bash", tool_input={"command": command}, **ids, **fields)


def bash_post(command: str, tool_use_id: str | None, **fields: Any) -> dict[str, Any]:
    ids = {"tool_use_id": tool_use_id} if tool_use_id else {}
    return claude("PostToolUse", tool_name="Bash", tool_input={"command": command}, tool_response={}, **ids, **fields)


def export(tmp_path: Path, query: str) -> list[Any]:
    out = tmp_path / "spans.jsonl"
    result = otlp(query, "-o", str(out))
    assert result.exit_code == 0, result.output
    [spans] = read_otlp_file(out)
    return spans


def ns_of(iso: str | None) -> int:
    from agentscan.timeutil import parse_iso

    moment = parse_iso(iso or "")
    assert moment is not None
    return int(round(moment.timestamp() * 1_000_000)) * 1000


# --- 1: a PostToolUse captured before its PreToolUse -------------------------------------------


def test_a_completion_captured_before_its_request_makes_one_call(data_dir: Path, tmp_path: Path) -> None:
    """Two parallel Bash calls; ``pwd``'s hooks were captured the wrong way round."""
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="look around"), at_ms=0)
    replay.send(bash_pre("ls", "toolu_ls"), at_ms=100)
    replay.send(bash_post("pwd", "toolu_pwd", duration_ms=12), at_ms=140)
    replay.send(bash_pre("pwd", "toolu_pwd"), at_ms=150)
    replay.send(bash_post("ls", "toolu_ls"), at_ms=400)
    replay.send(claude("Stop"), at_ms=500)

    [turn] = trace_doc(SESSION)["turns"]
    calls = [n for n in walk(turn["nodes"]) if n["kind"] == "tool"]
    assert sorted((c["id"], c["provenance"], c["status"]) for c in calls) == [
        ("toolu_ls", "native", "ok"), ("toolu_pwd", "native", "ok")]
    pwd = only(turn["nodes"], id="toolu_pwd")
    # starts when its PreToolUse was captured; captured first, the completion leaves it the
    # agent's own duration rather than an end before its start
    assert ns_of(pwd["started_at"]) == BASE_NS + 150 * MS
    assert ns_of(pwd["ended_at"]) == BASE_NS + 162 * MS
    assert turn["summary"]["orphans"] == 0 and turn["summary"]["tool_calls"] == 2
    [wave] = [n for n in turn["nodes"] if n["kind"] == "wave"]  # they overlapped, and still do
    assert wave["input"] == {"calls": 2}
    text = runner.invoke(app, ["trace", SESSION]).stdout
    assert "orphan" not in text and text.count("tool Bash") == 2

    spans = export(tmp_path, f"claude:{SESSION}")
    ls_span, pwd_span = sorted(by_name(spans, "execute_tool Bash"), key=lambda s: s.start)
    assert (pwd_span.start, pwd_span.end) == (BASE_NS + 150 * MS, BASE_NS + 162 * MS)
    assert pwd_span.attrs["agentscan.tool.status"] == "ok" and pwd_span.attrs["agentscan.provenance"] == "native"
    assert (ls_span.start, ls_span.end) == (BASE_NS + 100 * MS, BASE_NS + 400 * MS)


def test_captured_at_the_same_moment_the_line_order_does_not_matter(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    replay.send(bash_post("ls", "toolu_1"), at_ms=100)
    replay.send(bash_pre("ls", "toolu_1"), at_ms=100)
    [turn] = trace_doc(SESSION)["turns"]
    [call] = turn["nodes"]
    assert (call["provenance"], call["status"]) == ("native", "ok")
    assert call["started_at"] == call["ended_at"] and ns_of(call["started_at"]) == BASE_NS + 100 * MS


def test_a_failure_captured_first_closes_its_call_inside_its_subagent(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    sub = {"agent_id": "ag1", "agent_type": "Explore"}
    task = {"subagent_type": "Explore", "prompt": "look", "description": "look"}
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Agent", tool_input=task, tool_use_id="toolu_agent"), at_ms=50)
    replay.send(claude("SubagentStart", **sub), at_ms=60)
    replay.send(claude("PostToolUseFailure", tool_name="Bash", tool_input={"command": "false"}, tool_use_id="toolu_f",
                       error="exit 1", is_interrupt=False, **sub), at_ms=200)
    replay.send(bash_pre("false", "toolu_f", **sub), at_ms=210)
    replay.send(claude("SubagentStop", **sub), at_ms=300)
    [turn] = trace_doc(SESSION)["turns"]
    subagent = only(turn["nodes"], kind="subagent")
    [call] = [n for n in subagent["children"] if n["kind"] == "tool"]
    assert (call["id"], call["status"], call["provenance"], call["detail"]["error"]) == ("toolu_f", "error", "native", "exit 1")
    assert ns_of(call["started_at"]) == BASE_NS + 210 * MS
    assert [n["kind"] for n in turn["nodes"] if n["kind"] == "tool" and n["provenance"] == "orphan"] == []


def test_without_ids_an_early_completion_pairs_by_input_only_within_the_hooks_jitter(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    replay.send(bash_post("ls", None), at_ms=100)
    replay.send(bash_pre("ls", None), at_ms=110)  # 10 ms later: the same call, paired by its input
    replay.send(bash_post("make", None), at_ms=1_000)
    replay.send(bash_pre("make", None), at_ms=9_000)  # 8 s later: another call; that completion was lost
    [turn] = trace_doc(SESSION)["turns"]
    ls = only(turn["nodes"], input_command="ls")
    assert (ls["provenance"], ls["status"], ns_of(ls["started_at"])) == ("correlated", "ok", BASE_NS + 110 * MS)
    makes = [n for n in turn["nodes"] if n["input"] == {"command": "make"}]
    assert sorted((n["provenance"], n["status"]) for n in makes) == [("native", None), ("orphan", "ok")]


def test_an_orphan_left_by_a_tie_is_not_taken_by_a_later_request(data_dir: Path) -> None:
    """Cursor reuses an id across a batch: two identical calls tie, and a later third one with
    that id does not take the completion the tie left (it was never waiting for a request)."""
    replay = Replay(data_dir)
    same = shell_input("git status")
    # 3 s apart: byte-identical events closer than 2 s count once (an event delivered twice)
    for at_s, payload in ((0, prompt("go")), (1, pre("Shell", same, "call-batch")), (4, pre("Shell", same, "call-batch")),
                          (7, post("Shell", same, "call-batch")), (8, pre("Shell", same, "call-batch"))):
        replay.send(payload, at_ms=at_s * 1000)
    [turn] = trace_doc()["turns"]
    assert sorted((n["provenance"], n["status"]) for n in turn["nodes"]) == [
        ("native", None), ("native", None), ("native", None), ("orphan", "ok")]


# --- 2: a Cursor before… with no after… ----------------------------------------------------------


def test_a_shell_or_mcp_execution_without_its_after_hook_is_unfinished_not_0_ms(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir)
    query = {"q": "cache"}
    replay.send(prompt("fix it"), at_ms=0)
    replay.send(pre("Shell", shell_input("pytest -q"), "t-shell"), at_ms=100)
    replay.send(before_shell("pytest -q"), at_ms=110)
    replay.send(post("Shell", shell_input("pytest -q"), "t-shell"), at_ms=300)  # its afterShellExecution was lost
    replay.send(pre("MCP:search", query, "t-mcp"), at_ms=400)
    replay.send(before_mcp("search", query, "docs"), at_ms=410)  # neither the after nor the post came
    replay.send(pre("Shell", shell_input("ls"), "t-ls"), at_ms=500)
    replay.send(before_shell("ls"), at_ms=510)
    replay.send(after_shell("ls"), at_ms=600)
    replay.send(post("Shell", shell_input("ls"), "t-ls"), at_ms=610)
    replay.send(stop(), at_ms=900)

    spans = export(tmp_path, f"cursor:{CONVERSATION}")
    lost, ls = sorted(by_name(spans, "shell"), key=lambda s: s.start)
    shell_call = [s for s in by_name(spans, "execute_tool Shell") if s.start == BASE_NS + 100 * MS][0]
    assert lost.parent == shell_call.span_id
    assert lost.attrs["agentscan.tool.status"] == "unfinished" and lost.status == 0
    # it ran at most until its call completed: that is its end, not its start
    assert (lost.start, lost.end) == (BASE_NS + 110 * MS, BASE_NS + 300 * MS)
    assert ls.attrs["agentscan.tool.status"] == "ok" and (ls.start, ls.end) == (BASE_NS + 510 * MS, BASE_NS + 600 * MS)

    mcp = one(spans, "tools/call search")
    assert mcp.attrs["agentscan.tool.status"] == "unfinished"
    root = [s for s in spans if not s.parent][0]
    # under a call that never completed either: until the turn was last seen
    assert (mcp.start, mcp.end) == (BASE_NS + 410 * MS, root.end) and root.end == BASE_NS + 900 * MS


def test_a_shell_whose_call_failed_ends_with_the_call_and_says_so(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir)
    command = shell_input("pytest -q")
    replay.send(prompt("fix it"), at_ms=0)
    replay.send(pre("Shell", command, "t-shell"), at_ms=100)
    replay.send(before_shell("pytest -q"), at_ms=110)
    replay.send(failure("Shell", command, "t-shell", failure_type="timeout"), at_ms=700)
    replay.send(before_shell("echo orphan"), at_ms=800)  # no Shell call in flight: at turn level
    replay.send(stop(), at_ms=900)
    spans = export(tmp_path, f"cursor:{CONVERSATION}")
    cut, orphan = sorted(by_name(spans, "shell"), key=lambda s: s.start)
    assert (cut.start, cut.end, cut.attrs["agentscan.tool.status"]) == (BASE_NS + 110 * MS, BASE_NS + 700 * MS, "timeout")
    assert (orphan.end, orphan.attrs["agentscan.tool.status"]) == (BASE_NS + 900 * MS, "unfinished")
    assert orphan.parent == [s for s in spans if not s.parent][0].span_id


# --- 3: doctor and an event registered twice ------------------------------------------------------


def write_json(path: Path, config: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def claude_group(matcher: str | None = None, copies: int = 1) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": hook_command("claude")}] * copies}
    return group if matcher is None else {"matcher": matcher, **group}


def ok(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def hooks_of(*args: str) -> dict[str, Any]:
    return orjson.loads(ok(*args, "doctor", "--json").stdout)["hooks"]


def suggested(text: str) -> list[str]:
    return [part for line in text.splitlines() if "stored twice:" in line
            for part in line.split("`")[1::2] if part.startswith("agentscan hooks")]


def test_a_second_entry_beside_one_for_every_tool_is_reported_stored_twice(isolated_home: Path) -> None:
    config = {"hooks": {event: [claude_group()] for event in CLAUDE_EVENTS}}
    config["hooks"]["PreToolUse"] = [claude_group(), claude_group("Bash")]  # Bash calls: stored twice
    config["hooks"]["Stop"] = [claude_group(copies=2)]  # two entries in one group
    write_json(isolated_home / ".claude" / "settings.json", config)
    [claude_config] = hooks_of()["installed"]
    assert claude_config["narrowed"] == []
    assert claude_config["stored_twice"] == [{"event": "PreToolUse", "entries": 2}, {"event": "Stop", "entries": 2}]
    out = ok("doctor").stdout
    assert f"{len(CLAUDE_EVENTS)}/{len(CLAUDE_EVENTS)} events, 2 stored twice" in out
    [line] = [line for line in out.splitlines() if "stored twice:" in line]
    assert "PreToolUse (2 entries), Stop (2 entries)" in line and "stored twice" in line
    [fix] = suggested(out)
    assert fix == "agentscan hooks install claude"
    ok(*shlex.split(fix)[1:])  # the fix it names is the one that works
    [claude_config] = hooks_of()["installed"]
    assert claude_config["stored_twice"] == [] and "stored twice" not in ok("doctor").stdout


def test_two_cursor_entries_without_a_matcher_are_stored_twice_and_the_fix_keeps_home(
    isolated_home: Path, tmp_path: Path,
) -> None:
    other = tmp_path / "other home"
    entry = {"command": hook_command("cursor"), "timeout": 5}
    hooks = {event: [entry] for event in CURSOR_EVENTS}
    hooks["preToolUse"] = [entry, {**entry, "matcher": ""}]
    write_json(other / ".cursor" / "hooks.json", {"version": 1, "hooks": hooks})
    [cursor] = hooks_of("--home", str(other))["installed"]
    assert cursor["stored_twice"] == [{"event": "preToolUse", "entries": 2}]
    [fix] = suggested(ok("--home", str(other), "doctor").stdout)
    assert fix == f"agentscan hooks install cursor --home '{other}'"
    ok(*shlex.split(fix)[1:])
    assert hooks_of("--home", str(other))["installed"][0]["stored_twice"] == []
    assert not (isolated_home / ".cursor").exists()  # the real home was left alone


def test_entries_under_two_narrower_matchers_are_narrowed_not_stored_twice(isolated_home: Path) -> None:
    write_json(isolated_home / ".claude" / "settings.json",
               {"hooks": {"PreToolUse": [claude_group("Bash"), claude_group("Read")]}})
    [claude_config] = hooks_of()["installed"]
    assert claude_config["stored_twice"] == []
    assert claude_config["narrowed"] == [{"event": "PreToolUse", "matchers": ["Bash", "Read"]}]
