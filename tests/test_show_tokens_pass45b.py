"""Pass 45 (b): what a scripting user found in ``tokens``, ``show`` and ``list``.

* ``tokens --sort date --json`` gave the sessions in file order, not by the DATE the table
  orders them by (and a session row has no date to sort by): given explicitly, ``--sort
  date`` orders ``--json``'s sessions as the table's; a plain ``--json`` keeps the report's
  own order (it reads no session's facts: the benchmarked cold path).
* ``show ID`` and ``tokens ID`` carried (and failed ``--strict`` over) the discovery
  warnings of other providers' files, which ``list -p`` leaves out.
* A window inside one period named it twice under the table ("the first week, 2026-W45,
  …; the last, 2026-W45, …").
* ``list --limit 5 --limit 7`` took 7 in silence; ``-p ""`` was an unknown provider ''.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentscan.cli import fastpath
from agentscan.cli.tokens_cut import cut_periods
from agentscan.scan.showscope import may_concern
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, deny_access, invoke
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

UTC = timezone.utc
#: last active on Nov 7, its file the oldest
NEWEST = "7aaa0000-0000-4000-8000-000000000001"
#: last active on Nov 3, its file the newest (copied last)
OLDEST = "3bbb0000-0000-4000-8000-000000000002"
#: last active on Nov 5
MIDDLE = "5ccc0000-0000-4000-8000-000000000003"
CODEX = "019c4545-0000-7000-8000-0000000000c1"


def _claude(home: Path, native: str, day: int, mtime: float, tokens: int = 100) -> Path:
    stamp = f"2026-11-{day:02d}T10:00:00.000Z"
    return claude_session_file(home, native, [
        claude_user(native, stamp, f"work of the {day}th", cwd=f"/w/p{day}"),
        claude_assistant(native, f"2026-11-{day:02d}T10:00:01.000Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                         usage=claude_usage(tokens, 10)),
    ], project=f"-w-p{day}", mtime=mtime)


@pytest.fixture
def dated_home(isolated_home: Path) -> Path:
    """Three sessions whose files' times run against the dates they recorded (a copied home)."""
    base = datetime(2026, 11, 20, tzinfo=UTC).timestamp()
    _claude(isolated_home, NEWEST, 7, base)
    _claude(isolated_home, MIDDLE, 5, base + 60)
    _claude(isolated_home, OLDEST, 3, base + 120)
    return isolated_home


def _keys(*args: str) -> list[str]:
    result = invoke("tokens", *args, "--json")
    assert result.exit_code == 0, result.output
    return [row["key"] for row in orjson.loads(result.stdout)["rows"]]


def _table_keys(*args: str) -> list[str]:
    result = invoke("tokens", *args)
    assert result.exit_code == 0, result.output
    return [line.split()[0] for line in result.stdout.splitlines()[1:] if line.startswith("claude:")]


BY_DATE = [f"claude:{NEWEST}", f"claude:{MIDDLE}", f"claude:{OLDEST}"]


def test_json_sort_date_orders_sessions_as_the_table_does(dated_home: Path) -> None:
    assert _table_keys() == BY_DATE
    assert _keys("--sort", "date") == BY_DATE
    assert _keys("--sort", "Date") == BY_DATE  # any case, as every --sort
    assert _keys("--sort", "date") == BY_DATE  # remembered, in its own slot
    # The plain --json keeps the report's own order (newest file first): it reads no facts.
    assert _keys() == list(reversed(BY_DATE))
    assert _keys("--sort", "date") == BY_DATE
    # Ids asked for, and a window: the table's order too.
    assert _keys(OLDEST[:8], NEWEST[:8], "--sort", "date") == [f"claude:{NEWEST}", f"claude:{OLDEST}"]
    assert _keys("--since", "2026-11-01", "--sort", "date") == BY_DATE
    # A grouping's own order is the table's already: --sort date changes nothing there.
    assert _keys("--by", "day", "--sort", "date") == _keys("--by", "day")


def test_json_sort_date_through_the_fast_path(dated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert fastpath.run(["tokens", "--sort", "date", "--json"]) == 0
    rows = orjson.loads(capsys.readouterr().out)["rows"]
    assert [row["key"] for row in rows] == BY_DATE


# --- show ID and tokens ID: only the warnings that may concern the session ---------------


def _codex(home: Path) -> Path:
    path = rollout_path(home / ".codex", CODEX, at(0))
    return write_rollout(path, [meta(CODEX, at(0)), turn_context(at(1)),
                                token_count(at(2), usage(50, output=5), usage(50, output=5))])


def _messages(document: dict) -> list[str]:
    return [warning["message"] for warning in document["warnings"]]


def test_another_providers_unreadable_file_is_not_the_sessions(dated_home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rollout = _codex(dated_home)
    deny_access(monkeypatch, rollout)
    for command in (["show"], ["tokens"]):
        result = invoke("--strict", *command, NEWEST[:8], "--json")
        assert result.exit_code == 0, result.output
        assert _messages(orjson.loads(result.stdout)) == []
    # The unreadable session itself is an error (exit 1) that says why, --strict or not.
    for strict in ([], ["--strict"]):
        shown = invoke(*strict, "show", CODEX[:13], "--json")
        assert shown.exit_code == 1 and f"{rollout}: Permission denied" in shown.stderr, shown.stderr
    # An unfiltered list says it, as it always did.
    listed = invoke("list", "--json")
    assert "cannot read: Permission denied" in _messages(orjson.loads(listed.stdout))


def test_a_folder_of_another_provider_that_cannot_be_listed(dated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _codex(dated_home).parent
    deny_access(monkeypatch, folder)
    result = invoke("--strict", "tokens", NEWEST[:8], "--json")
    assert result.exit_code == 0, result.output
    assert _messages(orjson.loads(result.stdout)) == []
    # An id matching nothing still names it: the session may be in it.
    missing = invoke("show", "fedcba98")
    assert missing.exit_code == 1
    assert "it may be in a folder agentscan could not list (1):" in missing.stderr, missing.stderr
    assert str(folder) in missing.stderr


FOLDERS = {"claude": ["/h/.claude/projects/", "/h/.claude/"], "codex": ["/h/.codex/sessions/", "/h/.codex/"]}
OWN = {"/h/.claude/projects/-w/7aaa0000-0000-4000-8000-000000000001.jsonl"}
IDS = {NEWEST}


@pytest.mark.parametrize("warning, kept", [
    # the session's own file
    (("/h/.claude/projects/-w/7aaa0000-0000-4000-8000-000000000001.jsonl", "bad line", 3, False), True),
    # another provider's file or folder alone
    (("/h/.codex/sessions/2026/11/03/rollout-x-019c4545-0000-7000-8000-0000000000c1.jsonl", "cannot read", None, True),
     False),
    (("/h/.codex/sessions/2026", "cannot list directory: Permission denied", None, True), False),
    # another session's file of the same provider, named for it
    (("/h/.claude/projects/-w/3bbb0000-0000-4000-8000-000000000002.jsonl", "bad line", 1, False), False),
    # ... but not read this time: it might have been one of the session's own
    (("/h/.claude/projects/-w/3bbb0000-0000-4000-8000-000000000002.jsonl", "cannot read", None, True), True),
    # a file of the provider no session id names (a subagent's, an index), a folder of it
    (("/h/.claude/projects/-w/7aaa0000-0000-4000-8000-000000000001/subagents/agent-a1.jsonl", "bad line", 1, False),
     True),
    (("/h/.claude/projects/-w", "cannot list directory: Permission denied", None, True), True),
    # in the session's name: its own (a file of its id in any case)
    (("/h/.claude/projects/-w/7AAA0000-0000-4000-8000-000000000001.jsonl", "bad line", 1, False), True),
    # no provider's place at all, or no path
    (("/etc/agentscan.toml", "bad setting", None, False), True),
    (("<price data>", "no price", None, False), True),
])
def test_which_warnings_may_concern_the_session(warning: tuple, kept: bool) -> None:
    assert may_concern(warning, asked={"claude"}, own_files=OWN, own_ids=IDS, folders=FOLDERS) is kept


# --- the cut-window note: one period cut at both ends is named once -----------------------


def test_a_window_inside_one_period_names_it_once() -> None:
    since, until = datetime(2026, 11, 7, tzinfo=UTC), datetime(2026, 11, 8, tzinfo=UTC)
    assert cut_periods("week", ["2026-W45"], since, until, UTC) == (
        "the week 2026-W45 counts from 2026-11-07 00:00 up to 2026-11-08 00:00: the window cuts it")
    day = cut_periods("day", ["2026-11-07"], datetime(2026, 11, 7, 5, tzinfo=UTC), datetime(2026, 11, 7, 10, tzinfo=UTC), UTC)
    assert day == "the day 2026-11-07 counts from 2026-11-07 05:00 up to 2026-11-07 10:00: the window cuts it"
    # Two periods cut: each named, as before.
    two = cut_periods("day", ["2026-11-06", "2026-11-07"], datetime(2026, 11, 6, 5, tzinfo=UTC),
                      datetime(2026, 11, 7, 10, tzinfo=UTC), UTC)
    assert two == ("the first day, 2026-11-06, counts from 2026-11-06 05:00; the last, 2026-11-07, "
                   "up to 2026-11-07 10:00: the window cuts them")


def test_the_table_says_one_period_once(dated_home: Path) -> None:
    result = invoke("tokens", "--since", "2026-11-07", "--until", "2026-11-07", "--by", "week", "--tz", "utc")
    assert result.exit_code == 0, result.output
    assert "the week 2026-W45 counts from 2026-11-07 00:00 up to 2026-11-08 00:00: the window cuts it" in result.stderr
    assert "the last," not in result.stderr


# --- list --limit given twice; an empty --provider -----------------------------------------


def _both_ways(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    typer = invoke(*argv)
    capsys.readouterr()
    code = fastpath.run(argv)
    assert code is not None, f"the fast path refused {argv}"
    return [(typer.exit_code, typer.stderr), (code, capsys.readouterr().err)]


def test_limit_given_twice_with_different_numbers_is_a_usage_error(dated_home: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for code, err in _both_ways(["list", "--limit", "5", "--limit", "7"], capsys):
        assert code == 2
        assert "error: --limit takes one number, not 2 (5, 7)" in err
    for code, err in _both_ways(["list", "-n", "2", "--limit", "2"], capsys):
        assert code == 0, err
    result = invoke("list", "-n", "2", "--limit", "2", "--json")
    assert len(orjson.loads(result.stdout)["sessions"]) == 2


@pytest.mark.parametrize("argv", [["list", "-p", ""], ["list", "--provider", " "], ["tokens", "-p", ""],
                                  ["prices", "-p", ""]])
def test_an_empty_provider_is_said_as_an_empty_option(argv: list[str], isolated_home: Path) -> None:
    result = invoke(*argv)
    assert result.exit_code == 2
    assert "error: --provider is empty (is a variable unset?)" in result.stderr, result.stderr
    assert "unknown provider" not in result.stderr


def test_an_empty_name_in_a_provider_list(isolated_home: Path) -> None:
    result = invoke("list", "-p", "claude,")
    assert result.exit_code == 2
    assert "--provider 'claude,' names an empty provider (is a variable unset?)" in result.stderr, result.stderr


def test_no_file_mtime_leaks_into_the_dated_order(dated_home: Path) -> None:
    """The files' times were set against the dates: check the fixture does what it says."""
    files = sorted(dated_home.glob(".claude/projects/*/*.jsonl"), key=os.path.getmtime, reverse=True)
    assert [path.stem for path in files] == [OLDEST, MIDDLE, NEWEST]


GEMINI_FOLDERS = {"gemini": ["/h/.gemini/tmp/"]}
GEMINI_IDS = {"eefc44a3-0000-4000-8000-000000000001"}


@pytest.mark.parametrize("warning, kept", [
    # (pass 46) another Gemini chat, named by its id's first 8 hex digits: an empty file, a bad line
    (("/h/.gemini/tmp/p/chats/session-2026-03-09T11-00-0ab84937.json", "empty file", None, False), False),
    (("/h/.gemini/tmp/p/chats/session-2026-03-09T11-00-0AB84937.jsonl", "bad line", 2, False), False),
    # ... unless not read this time, or named for the session itself
    (("/h/.gemini/tmp/p/chats/session-2026-03-09T11-00-0ab84937.json", "cannot read", None, True), True),
    (("/h/.gemini/tmp/p/chats/session-2025-10-05T07-11-eefc44a3.json", "bad line", 2, False), True),
    # a file of no session's name (a subagent's, a log)
    (("/h/.gemini/tmp/p/logs.json", "bad line", 2, False), True),
])
def test_which_gemini_warnings_may_concern_the_session(warning: tuple, kept: bool) -> None:
    assert may_concern(warning, asked={"gemini"}, own_files=set(), own_ids=GEMINI_IDS, folders=GEMINI_FOLDERS) is kept
