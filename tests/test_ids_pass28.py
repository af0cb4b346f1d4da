"""Ids as people paste them (pass 28): an ambiguous prefix is a short list to pick from, as
git lists the objects a short hash could name; a UUID is found in any case; a transcript's
path opens its session (docs/cli.md, the id section)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import AmbiguousSessionId, SessionNotFound
from agentscan.scan import ambiguity
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from codex_builders import at, meta, rollout_path, turn_context, user_message, write_rollout

runner = CliRunner()
BASE = 1_790_000_000  # 2026-09-21
AGENT = "a1b2c3d4e5"


def _native(index: int) -> str:
    return f"abcdef{index:02x}-0000-4000-8000-{index:012x}"


def _when(index: int) -> str:
    return datetime.fromtimestamp(BASE + index * 3600, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _sessions(home: Path, count: int) -> list[str]:
    """``count`` Claude sessions whose ids all start ``abcdef``; session i is i hours newer
    than session 0 and was run in ``/work/p<i>``."""
    natives = []
    for index in range(count):
        native = _native(index)
        claude_session_file(home, native, [
            claude_user(native, _when(index), f"secret prompt {index}", cwd=f"/work/p{index}"),
            claude_assistant(native, _when(index), msg_id=f"m{index}", request_id=f"r{index}", usage=claude_usage(3, 1),
                             cwd=f"/work/p{index}"),
        ], mtime=BASE + index * 3600)
        natives.append(native)
    return natives


def _local(index: int) -> str:
    return datetime.fromtimestamp(BASE + index * 3600, timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M")


# -- an ambiguous prefix ------------------------------------------------------------------


@pytest.mark.parametrize("cache", [[], ["--no-cache"]], ids=["index", "no-cache"])
def test_an_ambiguous_prefix_lists_ten_candidates_one_per_line_then_a_hint(isolated_home: Path, cache: list) -> None:
    natives = _sessions(isolated_home, 14)
    result = runner.invoke(app, [*cache, "show", "abcdef"])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "error: 'abcdef' is ambiguous: it matches 14 sessions"
    # Newest first, each with its full id, when it was updated (local time, as `list`) and its project.
    expected = [f"  claude:{natives[index]}  {_local(index)}  /work/p{index}" for index in range(13, 3, -1)]
    assert lines[1:11] == expected
    assert lines[11:] == ["  … and 4 more", "hint: give more characters of the id, or one of the ids above in full"]
    assert "secret prompt" not in result.stderr  # ids, times and paths: never a title or a prompt


def test_a_few_candidates_are_all_listed(isolated_home: Path) -> None:
    natives = _sessions(isolated_home, 3)
    with pytest.raises(AmbiguousSessionId) as raised:
        Scanner().resolve("abcdef")
    assert raised.value.candidates == [f"claude:{native}" for native in reversed(natives)]
    assert len(raised.value.details) == 4 and not any("… and" in line for line in raised.value.details)
    assert str(raised.value) == "'abcdef' is ambiguous: it matches 3 sessions"


def test_candidates_too_big_to_read_are_dated_by_their_files_without_reading_them(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    natives = _sessions(isolated_home, 2)
    monkeypatch.setattr(ambiguity, "DESCRIBE_BUDGET", 0)  # every transcript is "too big"
    scanner = Scanner()
    with pytest.raises(AmbiguousSessionId) as raised:
        scanner.resolve("abcdef")
    assert scanner.parses == 0
    assert raised.value.details[0] == f"  claude:{natives[1]}  {_local(1)}"  # the mtime: no project known


def test_a_native_id_two_providers_share_says_to_name_the_provider(isolated_home: Path) -> None:
    (native,) = _sessions(isolated_home, 1)
    write_rollout(rollout_path(isolated_home / ".codex", native, at(0)), [meta(native, at(0)), turn_context(at(1))])
    result = runner.invoke(app, ["show", native])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == "hint: give the id with its provider (`provider:id`)"
    assert f"claude:{native}" in result.stderr and f"codex:{native}" in result.stderr


def test_a_control_character_in_a_candidates_project_is_not_printed(isolated_home: Path) -> None:
    for index in range(2):
        native = _native(index)
        claude_session_file(isolated_home, native, [
            claude_user(native, _when(index), "hi", cwd="/work/\x1b]52;c;cGFzdGU=\x07x")])
    result = runner.invoke(app, ["show", "abcdef"])
    assert result.exit_code == 1 and "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "/work/\ufffd]52;c;cGFzdGU=\ufffdx" in result.stderr


# -- case ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cache", [[], ["--no-cache"]], ids=["index", "no-cache"])
def test_an_upper_case_uuid_or_prefix_opens_the_session(isolated_home: Path, cache: list) -> None:
    natives = _sessions(isolated_home, 2)
    runner.invoke(app, ["list"])  # the index knows the ids (its exact answer is the one tried first)
    for query in (natives[1].upper(), f"claude:{natives[1].upper()}", f"CLAUDE:{natives[1][:8].upper()}",
                  natives[1][:8].upper()):
        result = runner.invoke(app, [*cache, "show", "--json", query])
        assert result.exit_code == 0, (query, result.stderr)
        assert orjson.loads(result.stdout)["session"]["id"] == f"claude:{natives[1]}"  # shown as written


def test_an_upper_case_prefix_of_several_sessions_is_ambiguous(isolated_home: Path) -> None:
    _sessions(isolated_home, 2)
    with pytest.raises(AmbiguousSessionId):
        Scanner().resolve("ABCDEF")


def test_an_upper_case_codex_id_and_subagent_id(isolated_home: Path) -> None:
    thread = "019d1111-0000-7000-8000-00000000000a"
    write_rollout(rollout_path(isolated_home / ".codex", thread, at(0)),
                  [meta(thread, at(0)), turn_context(at(1)), user_message(at(2), "hello")])
    assert Scanner().resolve(thread.upper()).id == f"codex:{thread}"
    parent = "bbbbbbbb-1111-4222-8333-444444444444"
    claude_session_file(isolated_home, parent, [claude_user(parent, "2026-11-01T10:00:00Z", "delegate")])
    claude_subagent_file(isolated_home, parent, AGENT, [claude_user(parent, "2026-11-01T10:00:01Z", "go", sidechain=True)])
    detail = Scanner().show(AGENT.upper())
    assert detail.row.native_id == parent and detail.extra["focus"]["subagent"] == AGENT


def test_an_id_in_its_own_case_wins_and_other_ids_are_matched_as_written(isolated_home: Path) -> None:
    lower, upper = "abcdef12-0000-4000-8000-000000000001", "ABCDEF12-0000-4000-8000-000000000001"
    for native in (lower, upper, "Example-Session"):
        claude_session_file(isolated_home, native, [claude_user(native, "2026-11-01T10:00:00Z", "hi")])
    scanner = Scanner()
    assert scanner.resolve(upper).native_id == upper
    assert scanner.resolve(lower).native_id == lower
    assert scanner.resolve("Example-Session").native_id == "Example-Session"
    with pytest.raises(SessionNotFound):  # not hex: a Claude file stem may differ only in case
        scanner.resolve("example-session")


# -- a transcript's path ------------------------------------------------------------------


def _main_and_sub(home: Path) -> tuple[str, Path, Path]:
    native = "cccccccc-1111-4222-8333-444444444444"
    main = claude_session_file(home, native, [claude_user(native, "2026-11-01T10:00:00Z", "delegate")])
    sub = claude_subagent_file(home, native, AGENT, [claude_user(native, "2026-11-01T10:00:01Z", "go", sidechain=True)])
    return native, main, sub


def test_a_claude_transcript_path_opens_its_session(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    native, main, _ = _main_and_sub(isolated_home)
    link = isolated_home / "pasted.jsonl"
    link.symlink_to(main)
    monkeypatch.chdir(main.parent)
    for query in (str(main), "~/.claude/projects/-home-dev-project/" + main.name, main.name, f"./{main.name}",
                  str(link)):
        result = runner.invoke(app, ["show", "--json", query])
        assert result.exit_code == 0, (query, result.stderr)
        session = orjson.loads(result.stdout)["session"]
        assert session["id"] == f"claude:{native}" and "focus" not in session


def test_a_subagent_transcript_path_opens_its_parent_with_it_in_focus(isolated_home: Path) -> None:
    native, _, sub = _main_and_sub(isolated_home)
    detail = Scanner().show(str(sub))
    assert detail.row.native_id == native and detail.extra["focus"]["subagent"] == AGENT


def test_a_session_whose_main_transcript_is_gone_opens_by_its_directory(isolated_home: Path) -> None:
    native, main, sub = _main_and_sub(isolated_home)
    main.unlink()
    assert Scanner().resolve(str(sub.parent.parent)).native_id == native
    assert Scanner().resolve(str(sub)).native_id == native


def test_a_codex_rollout_path_opens_its_session_and_tokens_takes_it(isolated_home: Path) -> None:
    thread = "019d2222-0000-7000-8000-000000000002"
    rollout = write_rollout(rollout_path(isolated_home / ".codex", thread, at(0)),
                            [meta(thread, at(0)), turn_context(at(1)), user_message(at(2), "hello")])
    result = runner.invoke(app, ["show", "--json", str(rollout)])
    assert result.exit_code == 0, result.stderr
    assert orjson.loads(result.stdout)["session"]["id"] == f"codex:{thread}"
    tokens = runner.invoke(app, ["tokens", "--json", str(rollout)])
    assert tokens.exit_code == 0, tokens.stderr
    assert [row["key"] for row in orjson.loads(tokens.stdout)["rows"]] == [f"codex:{thread}"]


def test_a_path_that_is_no_transcript_says_why(isolated_home: Path, tmp_path: Path) -> None:
    _main_and_sub(isolated_home)
    stray = tmp_path / "notes.jsonl"
    stray.write_text("{}\n")
    result = runner.invoke(app, ["show", str(stray)])
    assert result.exit_code == 1
    assert result.stderr == (f"error: no session matches {str(stray)!r}: it is no session's transcript under the"
                             " roots agentscan reads (`agentscan doctor` lists them)\n")
    missing = runner.invoke(app, ["show", str(tmp_path / "gone" / "x.jsonl")])
    assert missing.exit_code == 1 and missing.stderr.endswith(": no such file or directory\n")
    assert os.path.exists(stray)  # (nothing is written where a path points)
