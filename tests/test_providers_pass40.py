"""Pass 40, providers: warnings name JSON's kinds, not Python's types; Codex's hosted tool
searches and image generations are tool calls, counted as listed; Claude Desktop's Cowork
sessions are Claude sessions."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude.roots import COWORK_APPDATA, COWORK_NOTE, COWORK_SESSIONS, claude_roots
from agentscan.providers.claude.usage import web_searches
from agentscan.providers.codex.headtail import tail_summary
from agentscan.providers.gemini.legacy import load_legacy
from agentscan.scan.scanner import Scanner
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit.jsonl import iter_json_records
from agentscan.toolkit.linescan import ScanProgress, matching_records
from agentscan.toolkit.reverse import records_newest_first
from builders import REAL, claude_assistant, claude_usage, claude_user, cli_json, invoke, write_jsonl
from codex_builders import Calls, at, function_call, function_output, line, meta, rollout_path, turn_context, \
    user_message, write_rollout

# -- 1. a value of the wrong kind, in JSON's words --------------------------------------------

#: a JSON line that is no object, and what the warning calls it
NOT_OBJECTS = [(b"null", "null"), (b"3", "a number"), (b"2.5", "a number"), (b"true", "a boolean"),
               (b'"text"', "a string"), (b"[1, 2]", "an array")]


def _said(ctx: ScanContext) -> list[tuple[str, int | None]]:
    return [(warning.message, warning.line) for warning in ctx.warnings.items]


@pytest.mark.parametrize(("value", "kind"), [(None, "null"), (False, "a boolean"), (0, "a number"), (1e300, "a number"),
                                             ("", "a string"), ([], "an array"), ({}, "an object")])
def test_a_json_value_is_named_as_json_names_it(value: object, kind: str) -> None:
    assert json_kind(value) == kind


def test_the_line_reader_names_each_kind_a_line_is(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(raw for raw, _ in NOT_OBJECTS) + b'\n{"ok": 1}\n')
    ctx = ScanContext.create(home=tmp_path, env={})
    assert list(iter_json_records(path, ctx)) == [{"ok": 1}]
    assert _said(ctx) == [(f"JSON line is {kind}, not an object; skipped", number)
                          for number, (_, kind) in enumerate(NOT_OBJECTS, 1)]


def test_the_backwards_reader_names_each_kind_a_line_is(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"ok": 1}\n' + b"\n".join(raw for raw, _ in NOT_OBJECTS) + b"\n")
    ctx = ScanContext.create(home=tmp_path, env={})
    assert [record for _, record in records_newest_first(path, ctx)] == [{"ok": 1}]
    said = sorted(_said(ctx), key=lambda pair: pair[1] or 0)
    assert said == [(f"JSON line is {kind}, not an object; skipped", number)
                    for number, (_, kind) in enumerate(NOT_OBJECTS, 2)]


def test_the_marker_reader_names_each_kind_a_line_is_the_last_line_too(tmp_path: Path) -> None:
    # Only lines holding the marker are decoded: an array and a string can hold it.  The last
    # line, with no newline yet, is read apart (``_Scan._last_line``).
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'["usage"]\n"usage"\n{"usage": 1}\n["usage", 2]')
    ctx = ScanContext.create(home=tmp_path, env={})
    found = [record for _, record in matching_records(path, ctx, b'"usage"', ScanProgress())]
    assert found == [{"usage": 1}]
    assert _said(ctx) == [("JSON line is an array, not an object; skipped", 1),
                          ("JSON line is a string, not an object; skipped", 2),
                          ("JSON line is an array, not an object; skipped", 4)]


@pytest.mark.parametrize(("text", "kind"), [("null", "null"), ("true", "a boolean"), ("[1, 2]", "an array"),
                                            ("42", "a number")])
def test_a_gemini_chat_file_of_another_kind_says_which(tmp_path: Path, text: str, kind: str) -> None:
    # A chat file holding ``null`` was skipped without a word.
    path = tmp_path / "session.json"
    path.write_text(text)
    ctx = ScanContext.create(home=tmp_path, env={})
    assert load_legacy(path, ctx) is None
    assert _said(ctx) == [(f"chat file's JSON is {kind}, not an object; skipped", None)]


@pytest.mark.parametrize(("tools", "kind"), [(None, "None"), (True, "True"), ([], "[]")])
def test_a_claude_usage_field_of_another_kind_says_which(tmp_path: Path, tools: object, kind: str) -> None:
    from agentscan.toolkit.valuewarnings import close_tally, open_tally

    ctx = ScanContext.create(home=tmp_path, env={})
    tally = open_tally("t.jsonl", ctx)  # (as the file's reader opens it: told once a file)
    tally.line = 4
    assert web_searches(tools) == 0
    close_tally(tally, finished=True)
    assert _said(ctx) == [(f"usage value is not a token count: server_tool_use is {kind}, counted as 0", 4)]


# -- 2. Codex's tool searches and image generations -------------------------------------------

SAMPLE = REAL / "codex" / "derived-agent-sessions-schema-catalog-0.146.jsonl"
SAMPLE_ID = "019fc8be-3658-7ca3-9e29-000000000000"
T = "019c4000-0000-7000-8000-00000000000a"


def _lay_out_sample(home: Path) -> None:
    target = rollout_path(home / ".codex", SAMPLE_ID, at(0))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLE, target)


def test_the_sample_lists_every_call_it_counts(isolated_home: Path) -> None:
    _lay_out_sample(isolated_home)
    session = cli_json("show", SAMPLE_ID)["session"]
    tools = session["tools"]
    # Before: 5 counted, 4 listed (two calls share the trimmed call id), none said dropped,
    # and neither the tool searches (lines 12, 43) nor the image generation (line 49) shown.
    assert session["counts"]["tool_calls"] == len(tools) == 8
    assert session["truncated"]["tools"] == 0
    search = next(tool for tool in tools if tool["call_id"] == "call-3")
    assert (search["name"], search["summary"], search["status"]) == ("tool_search", "example", "ok")
    assert [tool["name"] for tool in tools].count("image_generation") == 1
    (row,) = cli_json("list")["sessions"]
    assert row["counts"]["tool_calls"] == 8
    assert row["tokens"]["total"] == 16422  # the sample's one token_count, unchanged


def _hosted(second: float, kind: str, status: str, **fields: Any) -> dict[str, Any]:
    return line(at(second), "response_item", {"type": kind, "status": status, **fields})


def _rollout(home: Path, *, hosted: bool) -> Path:
    calls = Calls()
    lines = [meta(T, at(0)), turn_context(at(1)), user_message(at(1), "draw the schema")]
    if hosted:
        lines += [
            _hosted(2, "tool_search_call", "completed", id="ts_1", call_id="call_ts", execution="client",
                    arguments={"query": "diagram tools"}),
            _hosted(3, "tool_search_output", "completed", id="tso_1", call_id="call_ts", tools=[]),
            _hosted(4, "tool_search_call", "failed", id="ts_2", call_id="call_ts2", arguments='{"query": "svg"}'),
            # An image generation's item has an id and no call id; its end event names that id.
            _hosted(5, "image_generation_call", "generating", id="ig_1", revised_prompt="A schema, in blue"),
            line(at(6), "event_msg", {"type": "image_generation_end", "call_id": "ig_1", "status": "completed",
                                      "revised_prompt": "A schema, in blue", "result": ""}),
            _hosted(7, "image_generation_call", "failed", id="ig_2", revised_prompt="A schema, in red"),
        ]
    lines += [function_call(at(8), "shell", {"command": ["ls"]}, "call_ls"),
              function_output(at(9), "call_ls", "Exit code: 0"), calls.call(at(10), 1200, 200, 80)]
    return write_rollout(rollout_path(home / ".codex", T, at(0)), lines)


def test_tool_searches_and_image_generations_are_calls_with_their_summary_and_status(isolated_home: Path) -> None:
    _rollout(isolated_home, hosted=True)
    session = cli_json("show", T)["session"]
    listed = [(tool["name"], tool["summary"], tool["status"], tool["call_id"]) for tool in session["tools"]]
    assert listed == [
        ("tool_search", "diagram tools", "ok", "call_ts"),
        ("tool_search", "svg", "error", "call_ts2"),
        ("image_generation", "A schema, in blue", "ok", "ig_1"),  # settled by its end event
        ("image_generation", "A schema, in red", "error", "ig_2"),
        ("shell", "ls", "ok", "call_ls"),
    ]
    assert session["counts"]["tool_calls"] == 5
    (row,) = cli_json("list")["sessions"]
    assert row["counts"]["tool_calls"] == 5


def test_hosted_calls_move_no_token(isolated_home: Path, tmp_path: Path) -> None:
    _rollout(isolated_home, hosted=True)
    plain = tmp_path / "plain"
    _rollout(plain, hosted=False)
    with_calls = cli_json("tokens")["rows"]
    without = cli_json("--home", str(plain), "tokens")["rows"]
    assert [(s["tokens"], s["cost_usd"]) for s in with_calls] == [(s["tokens"], s["cost_usd"]) for s in without]
    assert with_calls[0]["tokens"]["total"] == 1280


def test_a_call_id_written_twice_is_two_calls_and_its_output_settles_the_newest(isolated_home: Path) -> None:
    lines = [meta(T, at(0)), turn_context(at(1)), user_message(at(1), "list twice"),
             function_call(at(2), "shell", {"command": ["ls", "a"]}, "call_same"),
             function_call(at(3), "shell", {"command": ["ls", "b"]}, "call_same"),
             function_output(at(4), "call_same", "Exit code: 2")]
    write_rollout(rollout_path(isolated_home / ".codex", T, at(0)), lines)
    session = cli_json("show", T)["session"]
    assert [(tool["summary"], tool["status"]) for tool in session["tools"]] == [("ls a", "unknown"), ("ls b", "error")]
    assert session["counts"]["tool_calls"] == 2


def test_an_end_event_of_an_earlier_call_of_an_id_does_not_settle_the_next(isolated_home: Path) -> None:
    """The first ``ls`` ended by its ``exec_command_end``; the second call of the id is settled
    by its own output, not left unknown because the id was settled once."""
    lines = [meta(T, at(0)), turn_context(at(1)), user_message(at(1), "list twice"),
             function_call(at(2), "shell", {"command": ["ls", "a"]}, "call_same"),
             line(at(2.5), "event_msg", {"type": "exec_command_end", "call_id": "call_same", "exit_code": 0}),
             function_call(at(3), "shell", {"command": ["ls", "b"]}, "call_same"),
             function_output(at(4), "call_same", "Exit code: 2")]
    write_rollout(rollout_path(isolated_home / ".codex", T, at(0)), lines)
    session = cli_json("show", T)["session"]
    assert [(tool["summary"], tool["status"]) for tool in session["tools"]] == [("ls a", "ok"), ("ls b", "error")]


def test_a_window_with_hosted_calls_says_so_for_a_tally_kept_before_they_counted(isolated_home: Path) -> None:
    ctx = ScanContext.create(home=isolated_home, env={})
    with_calls = tail_summary(_rollout(isolated_home, hosted=True), ctx, T)
    assert with_calls.newer_tools and with_calls.counts.tool_calls == 5
    other = isolated_home / "other"
    assert not tail_summary(_rollout(other, hosted=False), ctx, T).newer_tools


# -- 3. Claude Desktop's Cowork sessions -------------------------------------------------------

C = "cccccccc-1111-4222-8333-444444444444"


def cowork_session(home: Path, session: str, *, account: str = "acct-1", workspace: str = "ws-1",
                   folder: str = "local_0a1b", agent: str | None = None) -> Path:
    """A Cowork session as Claude Desktop lays it out: its transcript (and a subagent's) under
    ``local-agent-mode-sessions/<account>/<workspace>/local_<id>/.claude/projects/<cwd>/``."""
    projects = home.joinpath(*COWORK_SESSIONS, account, workspace, folder, ".claude", "projects")
    project = projects / "-sessions-cowork"
    (home.joinpath(*COWORK_SESSIONS, account, workspace, folder, "outputs")).mkdir(parents=True)
    write_jsonl(project / f"{session}.jsonl", [
        claude_user(session, "2026-11-02T10:00:00Z", "tidy my downloads", cwd="/sessions/cowork"),
        claude_assistant(session, "2026-11-02T10:00:05Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 20),
                         cwd="/sessions/cowork"),
    ])
    if agent is not None:
        write_jsonl(project / session / "subagents" / f"agent-{agent}.jsonl", [
            claude_user(session, "2026-11-02T10:00:06Z", "sort them", sidechain=True, agentId=agent),
            claude_assistant(session, "2026-11-02T10:00:09Z", msg_id="m2", request_id="r2", usage=claude_usage(7, 3),
                             sidechain=True, agentId=agent),
        ])
    return projects


def test_a_cowork_session_is_a_claude_session_with_its_subagent(isolated_home: Path) -> None:
    cowork_session(isolated_home, C, agent="a1b2c3d")
    (row,) = cli_json("list")["sessions"]
    assert (row["id"], row["title"], row["cwd"]) == (f"claude:{C}", "tidy my downloads", "/sessions/cowork")
    (session,) = cli_json("tokens")["rows"]
    assert session["tokens"]["total"] == 130  # its own call and its subagent's
    assert [sub["tokens"]["total"] for sub in session["subagents"]] == [10]
    shown = cli_json("show", C)["session"]
    assert [sub["id"] for sub in shown["subagents"]] == ["a1b2c3d"]


def test_every_cowork_folder_is_a_root_of_its_own(isolated_home: Path) -> None:
    first = cowork_session(isolated_home, C)
    second = cowork_session(isolated_home, "dddddddd-1111-4222-8333-444444444444", account="acct-2",
                            folder="local_ffee")
    roots = claude_roots(ScanContext.create(home=isolated_home, env={}))
    assert [(root.path, root.source, root.note) for root in roots[2:]] == [
        (first, "--home", COWORK_NOTE), (second, "--home", COWORK_NOTE)]
    assert len(cli_json("list")["sessions"]) == 2


def test_doctor_shows_where_cowork_sessions_are_and_what_chose_it(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    base = isolated_home.joinpath(*COWORK_SESSIONS)
    monkeypatch.setattr("sys.platform", "linux")  # no Claude Desktop: not a line of doctor's
    (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
    assert all("local-agent-mode-sessions" not in root["path"] for root in claude["roots"])
    monkeypatch.setattr("sys.platform", "darwin")  # where Claude Desktop keeps them, said missing
    (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
    assert {"path": str(base), "source": "HOME", "exists": False, "note": COWORK_NOTE}.items() <= \
        next(root for root in claude["roots"] if root["path"] == str(base)).items()
    projects = cowork_session(isolated_home, C)
    (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
    found = [root for root in claude["roots"] if "local-agent-mode-sessions" in root["path"]]
    assert [(root["path"], root["source"], root["exists"]) for root in found] == [(str(projects), "HOME", True)]
    assert claude["sessions"] == 1


def test_claude_config_dir_replaces_cowork_too(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cowork_session(isolated_home, C)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / "elsewhere"))
    (isolated_home / "elsewhere" / "projects").mkdir(parents=True)
    assert cli_json("list")["sessions"] == []
    assert all("local-agent-mode-sessions" not in str(root.path) for root in claude_roots(ScanContext.create()))


def test_home_option_finds_that_home_s_cowork_sessions(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "laptop"
    cowork_session(other, C)
    assert cli_json("list")["sessions"] == []
    assert [row["id"] for row in cli_json("--home", str(other), "list")["sessions"]] == [f"claude:{C}"]


def test_no_cowork_folder_costs_one_system_call_a_place(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import roots

    looked: list[str] = []
    real_scandir, real_lstat = os.scandir, os.lstat

    def scandir(path: Any) -> Any:
        looked.append(str(path))
        return real_scandir(path)

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        looked.append(str(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(roots.os, "scandir", scandir)
    monkeypatch.setattr(roots.os, "lstat", lstat)
    ctx = ScanContext.create(home=isolated_home, env={})
    for _ in range(3):  # asked often in a scan, looked for once
        claude_roots(ctx)
    # Each of the three places (macOS's, Windows' APPDATA, the Store build's packages) once a scan.
    places = [str(isolated_home.joinpath(*COWORK_SESSIONS)), str(isolated_home.joinpath("AppData", "Roaming",
              *COWORK_APPDATA)), str(isolated_home / "AppData" / "Local" / "Packages")]
    assert sorted(path for path in looked if path.endswith(("local-agent-mode-sessions", "Packages"))) == sorted(places)


def test_a_cowork_tree_without_sessions_is_not_walked(isolated_home: Path) -> None:
    # A session folder's own files (what its VM made) are never a root's: only ``.claude/projects``.
    folder = isolated_home.joinpath(*COWORK_SESSIONS, "acct", "ws", "local_1")
    (folder / "outputs").mkdir(parents=True)
    write_jsonl(folder / "outputs" / f"{C}.jsonl", [claude_user(C, "2026-11-02T10:00:00Z", "not a transcript")])
    assert [root.path for root in claude_roots(ScanContext.create(home=isolated_home, env={}))][2:] == []
    assert cli_json("list")["sessions"] == []
    assert invoke("list").exit_code == 0


def test_scanner_library_finds_cowork_sessions(isolated_home: Path) -> None:
    cowork_session(isolated_home, C)
    rows = Scanner(home=isolated_home, env={}).list_sessions()
    assert [row.native_id for row in rows] == [C]
    assert rows[0].tokens is not None and rows[0].tokens.total == 120


def test_a_tally_kept_before_hosted_tool_calls_counted_is_not_taken(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A large rollout's tally kept by the agentscan before (version "5") missed its tool
    searches, which may all lie before the window a row reads (an occasional one): it is not
    taken, and the row's counts are the window's until a whole pass keeps a tally again."""
    from agentscan.providers.codex import fullcounts

    filler = [function_output(at(10 + i * 0.01), f"c{i}", "y" * 14000) for i in range(100)]
    write_rollout(rollout_path(isolated_home / ".codex", T, at(0)), [
        meta(T, at(0)), turn_context(at(1)), user_message(at(1), "look it up"),
        _hosted(2, "tool_search_call", "completed", id="ts_1", call_id="call_ts", arguments={"query": "svg"}),
        *filler])
    from agentscan.providers.codex import usage as codex_usage
    from agentscan.providers.codex.messages import line_kind

    def before(record: Any) -> str | None:  # the kinds as the agentscan before told them
        payload = record.get("payload") if isinstance(record, dict) else None
        return None if isinstance(payload, dict) and payload.get("type") == "tool_search_call" else line_kind(record)

    current = fullcounts.VERSION
    monkeypatch.setattr(fullcounts, "VERSION", "5")
    monkeypatch.setattr(codex_usage, "line_kind", before)
    cli_json("tokens", T)  # as the agentscan before kept it: the tool search not counted
    monkeypatch.setattr(fullcounts, "VERSION", current)
    monkeypatch.setattr(codex_usage, "line_kind", line_kind)
    row = cli_json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is True
    cli_json("show", T)  # a whole pass of this agentscan keeps a tally of its own
    row = cli_json("list", "--all")["sessions"][0]
    assert row["counts_partial"] is False and row["counts"]["tool_calls"] == 1


def test_a_link_in_a_cowork_folder_is_not_followed(isolated_home: Path, tmp_path: Path) -> None:
    """``.claude`` (or ``projects``) linked elsewhere would make a root of any folder."""
    elsewhere = tmp_path / "elsewhere"
    write_jsonl(elsewhere / "projects" / "-x" / f"{C}.jsonl", [claude_user(C, "2026-11-02T10:00:00Z", "hi")])
    folder = isolated_home.joinpath(*COWORK_SESSIONS, "acct", "ws", "local_1")
    folder.mkdir(parents=True)
    (folder / ".claude").symlink_to(elsewhere)
    other = isolated_home.joinpath(*COWORK_SESSIONS, "acct", "ws", "local_2", ".claude")
    other.mkdir(parents=True)
    (other / "projects").symlink_to(elsewhere / "projects")
    assert [root.path for root in claude_roots(ScanContext.create()) if "local-agent" in str(root.path)] == []
    assert cli_json("list")["sessions"] == []


def test_a_cowork_tree_past_the_walk_s_bound_says_so(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import roots

    monkeypatch.setattr(roots, "_COWORK_ENTRIES", 3)
    for n in range(4):
        isolated_home.joinpath(*COWORK_SESSIONS, f"acct-{n}").mkdir(parents=True)
    report = cli_json("list")
    assert any("Cowork sessions past them were not looked for" in warning["message"] for warning in report["warnings"])
