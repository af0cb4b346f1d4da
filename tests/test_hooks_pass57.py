"""Pass 57, hook capture, ``trace`` and ``otlp`` leftovers.

* A Gemini CLI trace names its chat's session: the ``sessionId`` inside the chat file (a bounded
  read of its head), not the file's name, nor the hook's own ``session_id`` (which an older Gemini
  CLI's ``/resume`` left as a new id while writing to the resumed chat: chatRecordingService.ts
  took the chat's id, ``config.setSessionId`` came later).
* Gemini CLI joins the ``hooksConfig.disabled`` lists of the user's and the project's settings
  (settingsSchema.ts: ``mergeStrategy: UNION``); each file was judged alone.
* A call keeps its input as shown (cut at 64 KiB a string) from the moment it opens, and what
  pairing reads of it whole: 20 Writes of 2 MB were held whole until the tree was built.
* ``tailread`` named another transcript than the tree when payload timestamps were far off the
  capture clock (its early stop compared capture times only).
* Written once: the stored-events recipe of ``trace`` and ``otlp`` (``tree.stored_trace``), the
  backward line reader (``toolkit.reverse.lines_backward``), the agents' names (``hooks.events``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.hooks import capture, store
from builders import cli_json
from hooks_builders import BASE_NS, MS, tool_calls

SESSION = "9d2c1f3e-5b6a-4c7d-8e9f-0a1b2c3d4e5f"
CHAT = "4b5c6d7e-1111-4222-8333-944455556666"
OURS = "agentscan hook --agent gemini"


def _gemini(event: str, at_ms: int, transcript: str, **fields: Any) -> dict[str, Any]:
    from hooks_builders import iso_at

    return {"session_id": SESSION, "transcript_path": transcript, "cwd": "/work/repo", "hook_event_name": event,
            "timestamp": iso_at(at_ms), **fields}


def _store(payloads: list[dict[str, Any]], agent: str = "gemini") -> None:
    root = store.data_dir()
    for n, payload in enumerate(payloads):
        capture.capture(root, agent, orjson.dumps(payload), BASE_NS + n * MS)


def _chats(home: Path) -> Path:
    folder = home / ".gemini" / "tmp" / "ab12" / "chats"
    folder.mkdir(parents=True)
    return folder


# --- 1. a Gemini trace names its chat's session ---------------------------------------------------


def test_a_resumed_gemini_session_names_the_chat_by_the_session_id_inside_it(isolated_home: Path) -> None:
    """Failed before: ``transcript_session_id`` was always null for Gemini CLI."""
    chat = _chats(isolated_home) / f"session-2026-12-07T08-00-{CHAT[:8]}.jsonl"
    head = {"sessionId": CHAT, "projectHash": "ab12", "startTime": "2026-12-07T08:00:00.000Z", "kind": "main"}
    chat.write_bytes(orjson.dumps(head) + b"\n" + orjson.dumps({"id": "m1", "type": "user", "content": "hi"}) + b"\n")
    # The hooks name another id (the session started anew, then resumed this chat).
    _store([_gemini("BeforeAgent", 0, str(chat), prompt="go on"),
            _gemini("AfterAgent", 1000, str(chat), prompt="go on", prompt_response="done")])
    session = cli_json("trace", SESSION)["session"]
    assert session["transcript_session_id"] == f"gemini:{CHAT}"
    assert session["transcript_found"] is True and session["id"] == f"gemini:{SESSION}"


def test_a_legacy_chat_a_subagents_and_a_gone_one(isolated_home: Path) -> None:
    from agentscan.hooks.crosscheck import transcript_session_id

    legacy = _chats(isolated_home) / "session-2026-01-01T10-00-4b5c6d7e.json"
    legacy.write_text(json.dumps({"sessionId": CHAT, "projectHash": "ab12", "messages": [{"x": "y" * 100_000}]},
                                 indent=2))
    assert transcript_session_id("gemini", str(legacy)) == f"gemini:{CHAT}"
    sub = legacy.parent / CHAT / "5e6f7a8b-0000-4000-8000-000000000001.jsonl"
    assert transcript_session_id("gemini", str(sub)) == f"gemini:{CHAT}"  # its parent's, by its folder
    assert transcript_session_id("gemini", str(legacy.parent / "session-gone-00000000.jsonl")) is None
    assert transcript_session_id("gemini", "") is None


# --- 2. Gemini CLI's disabled lists, joined -------------------------------------------------------


def _settings(path: Path, config: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def test_agentscan_disabled_in_the_projects_settings_turns_off_the_users_entry(isolated_home: Path,
                                                                               tmp_path: Path) -> None:
    """Failed before: the user's file was judged alone, and said nothing."""
    import os

    from agentscan.hooks.status import hooks_report

    entry = {"hooks": [{"type": "command", "command": OURS, "name": "agentscan", "timeout": 5000}]}
    _settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [entry]}})
    project = tmp_path / "project"
    listed = _settings(project / ".gemini" / "settings.json", {"hooksConfig": {"disabled": ["agentscan"]}})
    report = hooks_report(home=isolated_home, cwd=project, env=dict(os.environ))
    (user,) = [config for config in report["installed"] if config["agent"] == "gemini"]
    assert user["scope"] == "user" and user["problem"] is not None
    assert f'"hooksConfig.disabled" in {listed} lists "agentscan"' in user["problem"]
    # Listed nowhere: nothing to say.
    _settings(listed, {"hooksConfig": {"disabled": ["someone-else"]}})
    (user,) = [c for c in hooks_report(home=isolated_home, cwd=project, env=dict(os.environ))["installed"]
               if c["agent"] == "gemini"]
    assert user["problem"] is None


@pytest.mark.parametrize(("user", "project", "off_in"), [
    ({"enabled": False}, {"enabled": True}, None),  # the project's replaces the user's: on (was said off)
    ({}, {"enabled": False}, "project"),  # the project's turns the user's entry off (was not said)
    ({"enabled": False}, {}, "here"),
])
def test_hooks_turned_off_is_the_projects_setting_else_the_users(isolated_home: Path, tmp_path: Path, user: Any,
                                                                  project: Any, off_in: str | None) -> None:
    import os

    from agentscan.hooks.status import hooks_report

    entry = {"hooks": [{"type": "command", "command": OURS, "name": "agentscan", "timeout": 5000}]}
    _settings(isolated_home / ".gemini" / "settings.json", {"hooksConfig": user, "hooks": {"BeforeAgent": [entry]}})
    folder = tmp_path / "project"
    listed = _settings(folder / ".gemini" / "settings.json", {"hooksConfig": project})
    (report,) = [c for c in hooks_report(home=isolated_home, cwd=folder, env=dict(os.environ))["installed"]
                 if c["agent"] == "gemini"]
    if off_in is None:
        assert report["problem"] is None
    else:
        where = "here" if off_in == "here" else f"in {listed}"
        assert report["problem"].startswith(f'"hooksConfig.enabled": false {where} turns off every Gemini CLI hook')


def test_an_install_for_the_user_warns_of_agentscan_disabled_in_the_projects_settings(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the install looked at the file it wrote only."""
    from builders import invoke

    project = tmp_path / "project"
    listed = _settings(project / ".gemini" / "settings.json", {"hooksConfig": {"disabled": ["agentscan"]}})
    monkeypatch.chdir(project)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0
    assert f'"hooksConfig.disabled" in {listed} lists "agentscan"' in " ".join(result.stderr.split())


# --- 3. a call's input, bounded from the start ----------------------------------------------------


def _claude_line(at_ns: int, event: str, **fields: Any) -> bytes:
    payload = {"session_id": SESSION, "cwd": "/w", "prompt_id": "p1", "hook_event_name": event, **fields}
    return orjson.dumps({"v": 1, "received_at_ns": at_ns, "agent": "claude", "event": event, "session_id": SESSION,
                         "turn_id": "p1", "payload": payload}) + b"\n"


def test_twenty_large_writes_are_not_held_whole_until_the_tree_is_built(tmp_path: Path) -> None:
    """Failed before (66 MB at the peak: every Write's 2 MB input kept whole in its call)."""
    from agentscan.hooks.draft import TEXT_LIMIT
    from agentscan.hooks.tree import stored_trace
    from test_hooks_stream_pass56 import _peak

    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True)
    with path.open("wb") as out:
        out.write(_claude_line(BASE_NS, "UserPromptSubmit", prompt="write them"))
        for n in range(20):
            at = BASE_NS + (n + 1) * 3_000_000_000
            tool_input = {"file_path": f"/w/f{n}.txt", "content": f"{n}" + "x" * 2_000_000}
            out.write(_claude_line(at, "PreToolUse", tool_name="Write", tool_input=tool_input, tool_use_id=f"t{n}"))
            out.write(_claude_line(at + MS, "PostToolUse", tool_name="Write", tool_input={"file_path": f"/w/f{n}.txt"},
                                   tool_use_id=f"t{n}", tool_response={"success": True}))
    session = store.StoredSession("claude", SESSION, str(path))
    trace = stored_trace(session, str(tmp_path))
    calls = trace.turns[0].nodes
    assert len(calls) == 20 and all(call.status == "ok" for call in calls)
    assert len(calls[0].input["content"]) == TEXT_LIMIT and calls[0].input["file_path"] == "/w/f0.txt"
    assert _peak(lambda: stored_trace(session, str(tmp_path))) < 45_000_000  # (66 MB before; 33 MB now)


def test_inputs_that_differ_past_the_cut_still_pair_each_with_its_own(isolated_home: Path) -> None:
    """Gemini CLI sends no call id: its calls pair by their whole input, not the part shown."""
    common = "y" * 70_000
    first, second = {"file_path": "/w/a", "content": common + "A"}, {"file_path": "/w/a", "content": common + "B"}
    failed = {"llmContent": "", "returnDisplay": "", "error": {"message": "disk full", "type": "io"}}
    chat = "/h/.gemini/tmp/ab12/chats/session-x.jsonl"
    _store([_gemini("BeforeAgent", 0, chat, prompt="write"),
            _gemini("BeforeTool", 100, chat, tool_name="write_file", tool_input=first),
            _gemini("BeforeTool", 110, chat, tool_name="write_file", tool_input=second),
            _gemini("AfterTool", 200, chat, tool_name="write_file", tool_input=second, tool_response=failed),
            _gemini("AfterTool", 300, chat, tool_name="write_file", tool_input=first,
                    tool_response={"llmContent": "ok", "returnDisplay": "ok"}),
            _gemini("AfterAgent", 400, chat, prompt="write", prompt_response="done")])
    (turn,) = cli_json("trace", SESSION)["turns"]
    calls = tool_calls(turn["nodes"])  # (in a wave: they overlapped)
    assert [call["status"] for call in calls] == ["ok", "error"]  # (a tie by what is shown: both orphans)
    assert calls[0]["input"]["content"] == calls[1]["input"]["content"]  # (the same, as shown: cut)


# --- 4. the tail names what the tree names, whatever the payloads' clocks -----------------------


def test_the_tail_agrees_with_the_tree_in_400_random_sessions(tmp_path: Path) -> None:
    """Failed before (in 172 of these 400): an earlier line whose payload timestamp is far ahead
    of the capture clock (or a best one whose timestamp is far behind) was never read."""
    from agentscan.hooks import tailread
    from test_hooks_unlisted_tail_pass56 import SECOND, SESSION as TAILED, _iso, _line, _tree_says

    disagree, found = [], 0
    for trial in range(400):
        rng = random.Random(trial)
        lines, at = [], BASE_NS
        for n in range(rng.randint(1, 30)):
            at += rng.randint(0, 20 * SECOND)
            captured = at - rng.randint(0, 25 * SECOND)  # written up to 25 s after its capture
            fields: dict[str, Any] = {}
            if rng.random() < 0.5:
                fields["transcript_path"] = f"/t/{n}.jsonl"
            if rng.random() < 0.3:
                fields["timestamp"] = _iso(captured + rng.choice((-1, 1)) * rng.randint(0, 3600) * SECOND)
            lines.append(_line(captured, "Stop", **fields))
        path = Path(store.session_path(str(tmp_path / str(trial)), "claude", TAILED))
        path.parent.mkdir(parents=True)
        path.write_bytes(b"".join(lines))
        session = store.StoredSession("claude", TAILED, str(path))
        named = _tree_says(session)
        found += named is not None
        if tailread.latest_transcript_path(session) != named:
            disagree.append(trial)
    assert disagree == [] and found > 300


# --- 5, 6. split by theme, written once -----------------------------------------------------------


def test_the_merge_and_the_stores_reader_live_apart_with_room() -> None:
    """merging.py was 399 lines and store.py 392 (the limit is 400)."""
    import agentscan.hooks as package

    folder = Path(package.__file__).parent
    sizes = {name: len((folder / name).read_text(encoding="utf-8").splitlines())
             for name in ("merging.py", "ourentries.py", "store.py", "envelopes.py")}
    assert max(sizes.values()) <= 300, sizes


def test_written_once() -> None:
    import inspect

    from agentscan.hooks import events, status, tailread, tree
    from agentscan.otlp import sources
    from agentscan.toolkit import reverse

    assert "stored_trace(" in inspect.getsource(sources._tree)
    assert "stored_trace(" in inspect.getsource(tree.trace_session)
    assert "in_capture_order" not in inspect.getsource(sources)
    assert tailread.lines_backward is reverse.lines_backward
    assert status.HOOK_AGENTS is events.HOOK_AGENTS and set(events.HOOK_AGENTS) == {"claude", "cursor", "gemini"}


def test_the_terminals_words_for_the_agents_need_no_config_reader() -> None:
    """``HOOK_AGENTS`` lived in ``hooks.status``, which reads every agent's config (and imports
    ``install``, ``configreport``): the terminal's words for an agent imported all of it."""
    import subprocess
    import sys

    code = ("import sys; from agentscan.cli import render; from agentscan.cli.hookfix_text import both_scopes_text; "
            "both_scopes_text({'agent': 'gemini', 'also_installed': '/h/.gemini/settings.json', "
            "'path': '/p/.gemini/settings.json'}, '', render.terminal()); "
            "print('agentscan.hooks.status' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# --- 7. the contract's `hook --agent cursor|claude`, and gemini --------------------------------


@pytest.mark.parametrize("page", ["hooks.md", "cli-hooks.md"])
def test_the_docs_call_gemini_an_additive_deviation_from_the_contract(page: str) -> None:
    text = (Path(__file__).parent.parent / "docs" / page).read_text(encoding="utf-8")
    assert "--agent cursor|claude`" in text and "additive deviation" in " ".join(text.split())
