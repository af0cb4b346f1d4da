"""``show --full`` marks a slash command Claude Code ran itself (pass 52).

Since parser 32 such a command (``/mcp``, ``/model``) is no prompt, so ``--full`` showed
nothing of it: the real session d6e0bada ran ``/mcp`` twice between its two prompts (a
``user`` record, then a ``system`` one of subtype ``local_command``).  It is marked on a
line of its own, as a compaction is, the newest ``COMMANDS_KEPT``, its text clipped; no
list of ``show --json`` is of its kind, so JSON is as before (docs/json.md).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_session_file, claude_user, invoke, lay_out_real_claude_sample

SPOTTER = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
S = "5b5b5b5b-1111-4222-8333-444444444444"
MARK = "── /mcp (ran in Claude Code)"


def _spotter(home: Path) -> None:
    lay_out_real_claude_sample(home, "spotter-tool-heavy-v2.1.38.jsonl", SPOTTER, "-home-marco-projects-spotter")


def test_the_real_sessions_mcp_runs_are_marked_between_its_prompts(isolated_home: Path) -> None:
    _spotter(isolated_home)
    shown = invoke("show", SPOTTER[:8], "--full", "--tz", "UTC")
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    marks = [n for n, line in enumerate(lines) if line.endswith(MARK)]
    assert [lines[n] for n in marks] == [f"2026-02-10 22:58  {MARK}"] * 2, shown.stdout
    prompts = [n for n, line in enumerate(lines) if line.endswith("  prompt")]
    assert prompts[0] < marks[0] < marks[1] < prompts[1]
    session = orjson.loads(invoke("show", SPOTTER[:8], "--json").stdout)["session"]
    assert "/mcp" not in orjson.dumps(session).decode()  # (no JSON list of its kind: as before)
    assert session["counts"]["prompts"] == 2


def _command(name: str, args: str) -> str:
    return f"<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n<command-args>{args}</command-args>"


def test_the_marks_are_bounded(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import detail

    monkeypatch.setattr(detail, "COMMANDS_KEPT", 3)
    claude_session_file(isolated_home, S, [
        *(claude_user(S, f"2026-11-01T10:00:0{n}.000Z", _command("model", f"m{n}"), uuid=f"u{n}") for n in range(5)),
        claude_user(S, "2026-11-01T10:00:08.000Z", _command("compact", "keep " + "x" * 1000), uuid="u8"),
        claude_user(S, "2026-11-01T10:00:09.000Z", "and now the tests", uuid="u9"),
    ])
    lines = invoke("show", S[:8], "--full").stdout.splitlines()
    marks = [line.split("── ", 1)[1] for line in lines if "── /" in line]
    assert marks[:2] == ["/model m3 (ran in Claude Code)", "/model m4 (ran in Claude Code)"], marks
    assert len(marks) == 3 and marks[2].startswith("/compact keep xxx") and len(marks[2].encode()) < 300


def test_a_huge_transcript_shown_from_its_end_marks_them_too(isolated_home: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from builders import claude_assistant, claude_usage
    from claude_events import forward_and_from_end

    from agentscan.providers.claude import provider

    system = {"type": "system", "subtype": "local_command", "content": _command("model", "opus"), "uuid": "s1",
              "parentUuid": "a1", "sessionId": S, "timestamp": "2026-11-01T10:00:05.000Z", "isSidechain": False}
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00.000Z", "look at the tests", uuid="u1"),
        claude_assistant(S, "2026-11-01T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 5),
                         uuid="a1", parentUuid="u1"),
        claude_user(S, "2026-11-01T10:00:04.000Z", _command("mcp", ""), uuid="u2", parentUuid="a1"), system,
        claude_user(S, "2026-11-01T10:00:09.000Z", "now fix them", uuid="u3", parentUuid="s1"),
        claude_assistant(S, "2026-11-01T10:00:10.000Z", msg_id="m2", request_id="r2", usage=claude_usage(5, 5),
                         uuid="a2", parentUuid="u3"),
    ])
    whole = invoke("show", S[:8], "--full", "--tz", "UTC").stdout
    marks = ["── /mcp (ran in Claude Code)", "── /model opus (ran in Claude Code)"]
    assert [line.split("  ", 1)[1] for line in whole.splitlines() if "── /" in line] == marks
    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge one is
    forward, from_end, _ = forward_and_from_end(isolated_home)
    assert from_end is not None
    assert [(c.text, c.timestamp) for c in from_end.local_commands] == \
        [(c.text, c.timestamp) for c in forward.local_commands] and len(forward.local_commands) == 2
