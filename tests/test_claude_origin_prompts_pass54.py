"""A user record another sender wrote is no prompt of the user's (``records.real_prompt_text``).

Claude Code (2.1.24x on) stamps each user message with who sent it: ``"origin": {"kind":
"human"}`` on what was typed, else a background task reporting in (``task-notification``), a
turn Claude Code resumes by itself (``auto-continuation``: the "usage limit has reset" nudge, a
``/goal``'s ``Goal set: …``), another agent's message (``peer``, ``coordinator``).  Shapes as
public readers of real transcripts record them (their repositories' tests, not copied):

* a 2.1.246 peer message, ``isMeta`` and ``origin: {"kind": "peer", "from", "name", "fromMode",
  "msg_id", "body"}`` (a Rust reader's test marked "Real shape", 2026-08-28; public code
  search index file id 69655786964);
* ``{"type": "user", "promptSource": "system", "origin": {"kind": "auto-continuation"},
  "message": {"content": "Goal set: fix CI. …"}}`` without ``isMeta`` ("the observed record",
  a Rust reader's test ``a_system_generated_prompt_is_not_a_human_prompt``, file id 69176896551);
* ``origin.kind`` values task-notification, auto-continuation, human, peer, coordinator in a
  census of 575 transcripts (2026-09-23, a session-postmortem skill's ``test_extract.py``, file id
  70081451098); a real 2.1.251 session's auto-continuation after a usage limit (file id 69555654700).

The same rule already held for a ``queued_command`` attachment's ``origin``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.providers.claude.records import real_prompt_text
from builders import claude_session_file
from claude_events import cli_json_at, lines_of

SID = "54545454-2222-4333-8444-555555555554"


def _user(uuid: str, ts: str, content: Any, **fields: Any) -> dict:
    return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": SID,
            "version": "2.1.270", "gitBranch": "main", "type": "user", "uuid": uuid, "timestamp": ts,
            "message": {"role": "user", "content": content}, **fields}


def _reply(uuid: str, ts: str, n: int) -> dict:
    return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": SID,
            "version": "2.1.270", "type": "assistant", "uuid": uuid, "timestamp": ts, "requestId": f"req_{n}",
            "message": {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-opus-5",
                        "content": [{"type": "text", "text": f"reply {n}"}],
                        "usage": {"input_tokens": 10, "output_tokens": 5}}}


def test_who_sent_a_user_record_decides_whether_it_is_a_prompt() -> None:
    typed = _user("u1", "2026-10-01T10:00:00.000Z", "fix CI", origin={"kind": "human"}, promptSource="typed")
    assert real_prompt_text(typed) == "fix CI"
    assert real_prompt_text(_user("u2", "2026-10-01T10:00:00.000Z", "legacy prompt")) == "legacy prompt"
    for origin in ({"kind": "auto-continuation"}, {"kind": "task-notification"}, {"kind": "coordinator"},
                   {"kind": "peer", "name": "reviewer"}):
        record = _user("u3", "2026-10-01T10:00:00.000Z", "Goal set: fix CI.", origin=origin)
        assert real_prompt_text(record) is None, origin
    # A kind not known to be another sender's (a chat app's ``channel``, a later build's) is read
    # as typed, as before: dropping a person's prompts would be the worse mistake.
    for origin in ({"kind": "channel"}, {"kind": "unclassified"}, {"kind": "cli"}, {}, "peer"):
        record = _user("u5", "2026-10-01T10:00:00.000Z", "ship it", origin=origin)
        assert real_prompt_text(record) == "ship it", origin
    # A subagent's task (its own transcript's first record) is shown as its task, whoever sent it.
    task = _user("u4", "2026-10-01T10:00:00.000Z", "Search the repo", origin={"kind": "coordinator"},
                 isSidechain=True, agentId="a1b2c3d")
    assert real_prompt_text(task) == "Search the repo"


def test_a_goal_set_by_claude_code_is_no_prompt_nor_the_title(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        _user("u0", "2026-10-01T09:59:59.000Z", "Goal set: keep CI green until the release.",
              origin={"kind": "auto-continuation"}, promptSource="system"),
        _user("u1", "2026-10-01T10:00:00.000Z", "fix CI", origin={"kind": "human"}, promptSource="typed"),
        _reply("a1", "2026-10-01T10:00:05.000Z", 1),
        _user("u2", "2026-10-01T10:20:00.000Z", "Your claude.ai usage limit has reset. Continue the task you were "
                                                "working on when the limit was reached; do not repeat work.",
              origin={"kind": "auto-continuation"}),
        _reply("a2", "2026-10-01T10:20:05.000Z", 2),
        _user("u3", "2026-10-01T10:30:00.000Z", "Background build finished with 0 errors",
              origin={"kind": "task-notification"}, promptSource="system"),
        _reply("a3", "2026-10-01T10:30:05.000Z", 3),
    ]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["title"] == "fix CI"
    assert row["counts"]["prompts"] == 1 and row["counts"]["responses"] == 3
    session = cli_json_at(tmp_path, monkeypatch, "--no-cache", "show", SID[:8])["session"]
    assert [prompt["text"] for prompt in session["prompts"]] == ["fix CI"]
    assert session["tokens"]["total"] == 45


def test_a_session_another_agent_drove_is_named_by_what_it_was_asked(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        _user("u1", "2026-10-01T10:00:00.000Z", "Review the PR and report back", origin={"kind": "peer", "name": "lead"}),
        _reply("a1", "2026-10-01T10:00:05.000Z", 1),
    ]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 0
    assert row["title"] == "Review the PR and report back"
    (cached,) = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]  # (the table's facts read from the ends)
    assert cached["title"] == "Review the PR and report back"
    assert cli_json_at(tmp_path, monkeypatch, "--no-cache", "show", SID[:8])["session"]["prompts"] == []


def _teammate(uuid: str, ts: str, body: str, **fields: Any) -> dict:
    # The lead's record of a teammate's message (agent teams), as readers of real lead
    # transcripts record it: a plain user record, no ``isMeta``, no ``origin`` (file ids
    # 51881009662, 62141385408, 70645823717 of the public code search index).
    return _user(uuid, ts, f'<teammate-message teammate_id="backend" color="blue" summary="status">{body}'
                           "</teammate-message>", **fields)


def test_a_teammates_message_to_the_lead_is_no_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        _user("u1", "2026-10-01T10:00:00.000Z", "Build the birthday app with a team", origin={"kind": "human"}),
        _reply("a1", "2026-10-01T10:00:05.000Z", 1),
        _teammate("t1", "2026-10-01T10:05:00.000Z", "API done, 12 tests pass"),
        _reply("a2", "2026-10-01T10:05:05.000Z", 2),
        _teammate("t2", "2026-10-01T10:06:00.000Z",
                  '{"type":"idle_notification","from":"backend","idleReason":"available"}'),
        _reply("a3", "2026-10-01T10:06:05.000Z", 3),
    ]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 1 and row["title"] == "Build the birthday app with a team"
    session = cli_json_at(tmp_path, monkeypatch, "--no-cache", "show", SID[:8])["session"]
    assert [prompt["text"] for prompt in session["prompts"]] == ["Build the birthday app with a team"]
    # A teammate's own transcript (a subagent's, ``isSidechain``) opens with its task so: its task.
    task = _teammate("s1", "2026-10-01T10:00:01.000Z", "Build the API", isSidechain=True, agentId="a1b2c3d")
    assert real_prompt_text(task) == task["message"]["content"]
    # (a subagent's record is told by its ``agentId`` too, should a build not mark it a sidechain)
    assert real_prompt_text({**task, "isSidechain": False}) == task["message"]["content"]
    coordinated = _user("s2", "2026-10-01T10:00:01.000Z", "Build the API", origin={"kind": "coordinator"}, agentId="a1")
    assert real_prompt_text(coordinated) == "Build the API"


def test_a_session_of_teammate_messages_alone_is_named_by_the_first(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    records = [_teammate("t1", "2026-10-01T10:00:00.000Z", "\nBuild the API\n"), _reply("a1", "2026-10-01T10:00:05.000Z", 1)]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 0 and row["title"] == "Build the API"


def test_a_teammates_message_queued_mid_turn_is_no_prompt() -> None:
    queued = {"type": "attachment", "uuid": "q1", "timestamp": "2026-10-01T10:00:08.000Z", "sessionId": SID,
              "attachment": {"type": "queued_command", "commandMode": "prompt",
                             "prompt": '<teammate-message teammate_id="qa">3 tests fail</teammate-message>'}}
    assert queued_prompt_text(queued) is None
    queued["attachment"]["prompt"] = "and check the logs too"
    assert queued_prompt_text(queued) == "and check the logs too"


def test_a_prompt_a_person_typed_is_one_whatever_it_opens_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Pasting a teammate's message to ask about it (``origin`` says a person typed it), or a tag
    # whose name only starts as the teammate's: both were dropped as a teammate's message.
    pasted = ('<teammate-message teammate_id="backend" summary="x">done</teammate-message>\n\n'
              "Why did backend report done before the tests ran? Investigate.")
    records = [_user("u1", "2026-10-01T10:00:00.000Z", pasted, origin={"kind": "human"}, promptSource="typed"),
               _reply("a1", "2026-10-01T10:00:05.000Z", 1),
               _user("u2", "2026-10-01T10:01:00.000Z", "<teammate-message-format> is the tag: document it"),
               _reply("a2", "2026-10-01T10:01:05.000Z", 2)]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 2 and row["title"].startswith('<teammate-message teammate_id="backend"')
    assert real_prompt_text(_user("u3", "2026-10-01T10:00:00.000Z", pasted, origin={"kind": "channel"})) == pasted
    # With no origin (the builds seen) or another sender's, the wrapper still says a teammate's.
    assert real_prompt_text(_user("u4", "2026-10-01T10:00:00.000Z", pasted)) is None
    assert real_prompt_text(_user("u5", "2026-10-01T10:00:00.000Z", "<teammate-message>hi</teammate-message>")) is None
    queued = {"type": "attachment", "uuid": "q1", "timestamp": "2026-10-01T10:00:08.000Z", "sessionId": SID,
              "attachment": {"type": "queued_command", "commandMode": "prompt", "prompt": pasted,
                             "origin": {"kind": "human"}}}
    assert queued_prompt_text(queued) == pasted
    queued["attachment"] = {**queued["attachment"], "origin": None, "prompt": "<teammate-message-format> next"}
    assert queued_prompt_text(queued) == "<teammate-message-format> next"


def test_a_command_run_and_another_senders_words_name_a_session_by_which_came_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The code's order (``titles.note_command``: one slot, the first in the file), which
    # docs/providers/claude.md said otherwise (another sender's words after "the first slash
    # command typed", a command Claude Code ran itself not named).
    model = _user("u1", "2026-10-01T10:00:00.000Z",
                  "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>")
    peer = _user("u2", "2026-10-01T10:00:10.000Z", "Build the API", origin={"kind": "peer", "name": "lead"})
    for records, title in (([model, peer], "/model"), ([peer, model], "Build the API")):
        claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of([*records, _reply("a1", "2026-10-01T10:00:20.000Z", 1)]))
        (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
        assert row["title"] == title and row["counts"]["prompts"] == 0
    docs = (Path(__file__).parents[1] / "docs" / "providers" / "claude.md").read_text(encoding="utf-8")
    said = " ".join(docs.split())
    assert ("else the first bare command sent to the model (`/init`), else whichever comes first in the file of a "
            "command Claude Code ran itself (`/model`") in said
