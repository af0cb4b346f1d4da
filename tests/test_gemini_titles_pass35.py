"""Gemini rows as its CLI names them (pass 35): a compression summary is no prompt, the
session's own ``summary`` is its title, a subagent whose parent chat is gone gives the row
its title, counts and conversation, a chat of nothing readable is left out, an empty chat
is said to be empty."""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan.scan.scanner import Scanner
from gemini_builders import call, chats_dir, gemini, meta, set_, tokens, user, write_chat, write_legacy

S1 = "11111111-aaaa-4bbb-8ccc-000000000035"
SUB = "5ub5ub5u-aaaa-4bbb-8ccc-000000000035"
NAME = "session-2026-08-02T14-00-11111111.jsonl"
SNAPSHOT = "<state_snapshot>\n  <overall_goal>a migration</overall_goal>\n</state_snapshot>"


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["gemini"])


def _compressed(home: Path) -> None:
    """A session compressed after two prompts: the checkpoint starts with the summary."""
    write_chat(home, "proj", NAME, [
        meta(S1, start="2026-08-02T14:00:00.000Z"),
        user("k1", "2026-08-02T14:00:01.000Z", "write the migration"),
        gemini("k2", "2026-08-02T14:00:10.000Z", "done", usage=tokens(2000, 90)),
        user("k3", "2026-08-02T14:05:00.000Z", "now add indexes"),
        gemini("k4", "2026-08-02T14:05:10.000Z", "added", usage=tokens(2500, 60)),
        set_(messages=[user("s1", "2026-08-02T14:06:00.000Z", SNAPSHOT),
                       gemini("s2", "2026-08-02T14:06:05.000Z", "Got it. Thanks for the additional context!")]),
        user("k5", "2026-08-02T14:07:00.000Z", "run the migration tests"),
        gemini("k6", "2026-08-02T14:07:20.000Z", "green", usage=tokens(300, 10)),
    ])


def test_a_compression_summary_is_no_prompt_and_the_first_typed_prompt_names_the_session(isolated_home: Path) -> None:
    _compressed(isolated_home)
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.title == "write the migration"  # was the <state_snapshot> text
    assert row.counts.prompts == 1  # the live conversation's: k5 (the summary was counted)
    assert row.tokens is not None and row.tokens.total == 2090 + 2560 + 310
    detail = _scanner(isolated_home).show(S1)
    assert [prompt.text for prompt in detail.prompts] == ["run the migration tests"]


def test_a_scratchpad_before_the_snapshot_is_the_summary_too(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", NAME, [
        meta(S1),
        set_(messages=[user("s1", "2026-05-01T10:00:00.000Z", "<scratchpad>thinking</scratchpad>\n" + SNAPSHOT)]),
        user("u1", "2026-05-01T10:01:00.000Z", "<scratchpad> is a word I typed"),
    ])
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.counts.prompts) == ("<scratchpad> is a word I typed", 1)


def test_gemini_s_own_summary_is_the_title_and_grep_finds_it(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", NAME, [
        meta(S1),
        user("m1", "2026-05-01T10:00:01.000Z", "add pagination to /recipes"),
        gemini("m2", "2026-05-01T10:00:05.000Z", "Keyset it is.", usage=tokens(900, 50)),
        set_(lastUpdated="2026-05-01T10:00:05.000Z", summary="Keyset  pagination\nfor recipes"),
    ])
    write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-22222222.json", {
        "sessionId": "22222222-aaaa-4bbb-8ccc-000000000035", "projectHash": "0" * 64,
        "startTime": "2025-09-01T08:00:00.000Z", "lastUpdated": "2025-09-01T08:01:00.000Z",
        "summary": "Fix login redirect loop",
        "messages": [user("u1", "2025-09-01T08:00:01.000Z", "the login page keeps bouncing me back")],
    })
    rows = _scanner(isolated_home).list_sessions()
    assert [row.title for row in rows] == ["Keyset pagination for recipes", "Fix login redirect loop"]
    assert [row.counts.prompts for row in rows] == [1, 1]  # the prompt is still one
    from agentscan.scan.listing import ListFilter

    found = _scanner(isolated_home).list_sessions(filters=ListFilter(grep="keyset"))
    assert [row.native_id for row in found] == [S1]


def _orphan(home: Path) -> None:
    """A subagent chat under its parent's dir; the parent chat itself is gone."""
    write_chat(home, "proj", f"{S1}/{SUB}.jsonl", [
        meta(SUB, start="2026-09-21T10:00:00.000Z", kind="subagent"),
        user("r1", "2026-09-21T10:00:00.000Z", "summarise README"),
        gemini("r2", "2026-09-21T10:00:20.000Z", "README summary", usage=tokens(2000, 100),
               calls=[call("c1", "read_file", {"file_path": "README.md"})]),
    ])


def test_a_subagent_whose_parent_chat_is_gone_gives_the_row_its_title_counts_and_conversation(isolated_home: Path) -> None:
    _orphan(isolated_home)
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.native_id == S1
    assert row.title == "summarise README"  # was None
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 1, 1)  # were 0
    assert row.subagents == 1
    detail = _scanner(isolated_home).show(S1)
    assert detail.extra.get("parent_missing") is True
    assert [prompt.text for prompt in detail.prompts] == ["summarise README"]
    assert [response.text for response in detail.responses] == ["README summary"]
    assert [(tool.name, tool.subagent) for tool in detail.tools] == [("read_file", SUB)]


def test_a_parent_chat_keeps_its_subagents_talk_apart(isolated_home: Path) -> None:
    _orphan(isolated_home)
    write_chat(isolated_home, "proj", NAME, [
        meta(S1), user("u1", "2026-09-21T09:59:00.000Z", "look at the README"),
    ])
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.counts.prompts, row.counts.responses) == ("look at the README", 1, 0)
    detail = _scanner(isolated_home).show(S1)
    assert "parent_missing" not in detail.extra
    assert [prompt.text for prompt in detail.prompts] == ["look at the README"]


def test_a_subagent_chat_of_nothing_readable_is_left_out_of_list_and_the_tokens_table(isolated_home: Path) -> None:
    from builders import invoke

    path = chats_dir(isolated_home, "proj") / S1 / "s1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"sessionId": "broken\n{"id": "x", "type"\n')
    (isolated_home / ".gemini" / "tmp" / "proj" / ".project_root").write_text(str(isolated_home / "src"))
    scanner = _scanner(isolated_home)
    assert scanner.list_sessions() == []  # was a row of dashes (but its cwd) at the top
    assert any(warning.path == str(path) for warning in scanner.warnings)  # why is still said
    for _ in range(2):  # cold, then warm: a cached row with no cwd is not given one again
        listed = invoke("list", "-p", "gemini", "--json")
        assert orjson.loads(listed.stdout)["sessions"] == []
    table = invoke("tokens", "-p", "gemini")
    assert table.exit_code == 0, table.stderr
    assert "1 session that recorded nothing" in table.stderr  # (in a pipe: pass 42)
    assert not any(line.startswith(f"gemini:{S1}") for line in table.stdout.splitlines())
    detail = _scanner(isolated_home).show(S1)
    assert (detail.row.recorded_nothing, detail.subagents, detail.extra.get("parent_missing")) == (True, (), None)


def test_an_empty_chat_is_said_to_be_empty(isolated_home: Path) -> None:
    path = chats_dir(isolated_home, "proj") / NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    scanner = _scanner(isolated_home)
    assert scanner.list_sessions() == []
    assert [w.message for w in scanner.warnings if w.path == str(path)] == ["empty file"]


def test_a_search_is_summed_up_by_its_pattern(isolated_home: Path) -> None:
    from agentscan.providers.gemini.detail import tool_summary

    summary, paths = tool_summary({"name": "grep_search", "args": {"pattern": "def main", "dir_path": "/src/app"}})
    assert (summary, paths) == ("def main", ("/src/app",))
    assert tool_summary({"name": "read_file", "args": {"absolute_path": "/src/app/x.py"}})[0] == "/src/app/x.py"
