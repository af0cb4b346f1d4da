"""The command line: list order and clamp, id lookup, JSON documents, exit codes."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
BASE = 1_780_000_000  # 2026-05-28


def session_id(index: int) -> str:
    return f"{index:08x}-0000-4000-8000-{index:012x}"


@pytest.fixture
def thirty(isolated_home: Path) -> list[str]:
    """30 sessions; session i was updated i hours after BASE (so 29 is newest)."""
    ids = []
    for index in range(30):
        sid = session_id(index + 1)
        ts = datetime.fromtimestamp(BASE + index * 3600, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        claude_session_file(isolated_home, sid, [
            claude_user(sid, ts, f"prompt number {index}", cwd=f"/work/p{index % 3}"),
            claude_assistant(sid, ts, msg_id=f"m{index}", request_id=f"r{index}", usage=claude_usage(index, 1)),
        ], mtime=BASE + index * 3600)
        ids.append(sid)
    return ids


def invoke_json(*args: str) -> dict:
    result = runner.invoke(app, [*args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_list_shows_the_25_newest_in_order(thirty: list[str]) -> None:
    document = invoke_json("list", "--json")
    assert document["schema"] == "agentscan.list/1"
    assert [s["native_id"] for s in document["sessions"]] == list(reversed(thirty))[:25]
    assert document["warnings"] == []


def test_list_limit_is_honoured_and_all_lists_everything(thirty: list[str]) -> None:
    assert len(invoke_json("list", "--json")["sessions"]) == 25  # the default
    assert len(invoke_json("list", "--json", "--limit", "500")["sessions"]) == 30
    assert len(invoke_json("list", "--json", "--limit", "27")["sessions"]) == 27
    assert len(invoke_json("list", "--json", "-n", "3")["sessions"]) == 3
    everything = invoke_json("list", "--json", "--all")["sessions"]
    assert [s["native_id"] for s in everything] == list(reversed(thirty))


@pytest.mark.parametrize("args", [["--limit", "0"], ["--limit", "-5"], ["-n", "0"], ["--limit", "3", "--all"]])
def test_nonsense_limits_are_usage_errors(thirty: list[str], args: list[str]) -> None:
    result = runner.invoke(app, ["list", *args])
    assert result.exit_code == 2, result.output


def test_list_row_shape(thirty: list[str]) -> None:
    row = invoke_json("list", "--json", "-n", "1")["sessions"][0]
    assert set(row) == {"id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch",
                        "started_at", "updated_at", "tokens", "cost_usd", "cost_usd_priced", "counts", "subagents", "running",
                        "counts_partial"}
    assert row["id"] == f"claude:{thirty[-1]}" and row["provider"] == "claude"
    assert row["tokens"] == {"input": 29, "cache_read": 0, "cache_write": 0, "output": 1, "reasoning": 0, "total": 30}
    assert row["updated_at"].endswith("Z")


def test_list_filters(thirty: list[str]) -> None:
    grep = invoke_json("list", "--json", "--grep", "PROMPT NUMBER 7")["sessions"]
    assert [s["title"] for s in grep] == ["prompt number 7"]
    cwd = invoke_json("list", "--json", "--cwd", "/work/p1")["sessions"]
    assert cwd and all(s["cwd"] == "/work/p1" for s in cwd)
    assert len(cwd) == 10
    cutoff = datetime.fromtimestamp(BASE + 27.5 * 3600, timezone.utc).isoformat()
    since = invoke_json("list", "--json", "--since", cutoff)["sessions"]
    assert [s["native_id"] for s in since] == list(reversed(thirty))[:2]


def test_show_finds_the_oldest_by_unique_prefix(thirty: list[str]) -> None:
    oldest = thirty[0]
    document = invoke_json("show", oldest[:8] + "-0000-4000", "--json")
    assert document["schema"] == "agentscan.show/1"
    assert document["session"]["native_id"] == oldest
    assert document["session"]["prompts"][0]["text"] == "prompt number 0"
    assert set(document["session"]["truncated"]) >= {"prompts", "responses", "tools"}
    full = invoke_json("show", f"claude:{oldest}", "--json")
    assert full["session"]["id"] == f"claude:{oldest}"


def test_ambiguous_prefix_lists_candidates(thirty: list[str]) -> None:
    result = runner.invoke(app, ["show", "000000"])
    assert result.exit_code == 1
    # Newest first, ten of them (tests/test_ids_pass28.py has the layout).
    assert "matches" in result.stderr and f"claude:{thirty[-1]}" in result.stderr and "… and 20 more" in result.stderr


def test_unknown_and_too_short_ids_fail(thirty: list[str]) -> None:
    assert runner.invoke(app, ["show", "ffffffff-dead"]).exit_code == 1
    unknown = runner.invoke(app, ["show", "ffffffff-dead"])
    assert "no session matches" in unknown.stderr
    short = runner.invoke(app, ["show", "0000"])
    assert short.exit_code == 1 and "'0000' is too short: give at least 6 characters" in short.stderr


def test_unknown_provider_is_a_usage_error(thirty: list[str]) -> None:
    result = runner.invoke(app, ["list", "--provider", "nope"])
    assert result.exit_code == 2 and "unknown provider" in result.stderr


def test_bad_since_is_a_usage_error(thirty: list[str]) -> None:
    result = runner.invoke(app, ["list", "--since", "last tuesday"])
    assert result.exit_code == 2 and "cannot read the time" in result.stderr


def test_durations_take_their_units_in_either_case_and_nothing_else() -> None:
    from datetime import datetime, timedelta, timezone

    import pytest

    from agentscan.errors import UsageProblem
    from agentscan.whentext import parse_when

    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    assert parse_when("3D", now=now) == parse_when(" 3d ", now=now) == now - timedelta(days=3)
    assert parse_when("2W", now=now) == now - timedelta(weeks=2)
    # "ſ" (long s) is an "s" to a case-insensitive match, but no unit: a usage error, not a KeyError.
    with pytest.raises(UsageProblem, match="cannot read the time"):
        parse_when("3\u017f", now=now)
    for too_far in ("800000d", "99999999999w", "9" * 5000 + "d"):  # past the year 1, past timedelta, past int()
        with pytest.raises(UsageProblem, match="reaches back too far"):
            parse_when(too_far, now=now)


def test_tokens_json_document(thirty: list[str]) -> None:
    document = invoke_json("tokens", "--json", thirty[0], thirty[1])
    assert document["schema"] == "agentscan.tokens/1" and document["by"] == "session"
    assert [r["key"] for r in document["rows"]] == [f"claude:{thirty[0]}", f"claude:{thirty[1]}"]
    assert document["total"]["total"] == (0 + 1) + (1 + 1)
    assert document["rows"][0]["own"]["total"] == 1 and document["rows"][0]["subagents"] == []


def test_human_list_is_plain_text_without_a_tty(thirty: list[str]) -> None:
    result = runner.invoke(app, ["list", "-n", "2"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "TOKENS", "COST", "MODEL", "CWD", "TITLE"]
    assert "prompt number 29" in lines[1] and "\x1b[" not in result.stdout


def test_empty_home_lists_nothing_and_succeeds(isolated_home: Path) -> None:
    assert invoke_json("list", "--json")["sessions"] == []


def test_help_lists_every_command() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("list", "show", "tokens"):
        assert command in result.stdout
