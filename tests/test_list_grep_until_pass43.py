"""``list --grep`` finds the model as ``list`` shows it (``opus-4.6``), ``list --until``
bounds the last update as ``tokens --until`` bounds calls, and ``tokens`` refuses a
second, different ``--by`` instead of keeping only the last.

Each answer is checked three ways: cold (table facts rule sessions out unread,
``scan.factfilter``), warm (rows and remembered pages from the index), and with every row
read (``--no-cache``, no facts): all three print the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app, fastpath
from agentscan.scan import factfilter
from agentscan.scan.listing import ListFilter
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_results

runner = CliRunner()

#: the models the sessions ran on, as recorded; ``list`` shows them as ``opus-4.6``,
#: ``sonnet-4.5`` and ``haiku-4.5`` on a terminal
MODELS = ("claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")
SESSIONS = 72


def _session_id(number: int) -> str:
    return f"{number:08x}-4343-4000-8000-000000000000"


def _day(number: int) -> int:
    """The session's day of November 2026: 1 to 24."""
    return 1 + number % 24


def _home(home: Path) -> None:
    for number in range(SESSIONS):
        native = _session_id(number)
        when = f"2026-11-{_day(number):02d}T12:00:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, when, f"task {number}", cwd="/src/app"),
            claude_assistant(native, when, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(100, 7),
                             cwd="/src/app", model=MODELS[number % 3]),
        ])


pytestmark = pytest.mark.usefixtures("facts_for_a_few")


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _ids(out: str) -> set[str]:
    return {row["id"] for row in json.loads(out)["sessions"]}


def _three_ways(monkeypatch: pytest.MonkeyPatch, *argv: str, facts: bool = True) -> tuple[int, str, str]:
    """``argv``'s answer, the same cold, warm (twice: the second a remembered page) and
    with every row read; ``facts``: the facts left some session out unread (else the test
    tests nothing)."""
    ruled = record_results(monkeypatch, factfilter, "ruled_out", lambda found: found.out if found else {})
    cold = _run(*argv)
    assert any(ruled) == facts, ruled
    warm = _run(*argv)
    again = _run(*argv)
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 10**9)
    every_row = _run("--no-cache", *argv)
    assert cold == warm == again == every_row
    return cold


# -- --grep and the model's short name ----------------------------------------------------


@pytest.mark.parametrize(("word", "model"), [
    ("opus-4.6", "claude-opus-4-6"), ("SONNET-4.5", "claude-sonnet-4-5-20250929"), ("haiku-4.5", "claude-haiku-4-5-20251001"),
    ("opus-4-6", "claude-opus-4-6"),  # as recorded, still
])
def test_grep_finds_the_model_as_list_shows_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                              word: str, model: str) -> None:
    _home(isolated_home)
    code, out, _ = _three_ways(monkeypatch, "list", "--grep", word, "--all", "--json")
    expected = {f"claude:{_session_id(n)}" for n in range(SESSIONS) if MODELS[n % 3] == model}
    assert code == 0 and _ids(out) == expected


def test_grep_by_short_name_on_a_terminal_table(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    code, out, err = _three_ways(monkeypatch, "list", "--grep", "opus-4.6", "-n", "3")
    assert code == 0 and "no session's" not in err
    assert out.count("claude-opus-4-6") == 3  # a pipe gets the model whole


def test_the_library_filter_matches_the_shown_name() -> None:
    from agentscan.model import SessionRow

    row = SessionRow(provider="claude", native_id="x", path=None, model="claude-sonnet-4-5-20250929")
    assert ListFilter(grep="sonnet-4.5").matches(row)
    assert ListFilter(grep="claude-sonnet-4-5").matches(row)
    assert not ListFilter(grep="sonnet-4.6").matches(row)


# -- list --until ---------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "days"), [  # each leaves some session out but the month
    (("--until", "2026-11-05"), range(1, 6)),  # a date includes its whole day
    (("--since", "2026-11-10", "--until", "2026-11-12"), range(10, 13)),
    (("--since", "2026-W46", "--until", "2026-W46"), range(9, 16)),  # Monday 9 to Sunday 15 November
    (("--until", "2026-11"), range(1, 25)),  # a month: the whole of it
    (("--until", "2026-11-03T12:00"), range(1, 3)),  # a time is excluded: the 3rd's noon is not before it
    (("--until", "2026-11-10", "--grep", "opus-4.6"), range(1, 11)),
])
def test_until_keeps_sessions_last_updated_by_its_end(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                      args: tuple[str, ...], days: range) -> None:
    _home(isolated_home)
    code, out, _ = _three_ways(monkeypatch, "list", *args, "--tz", "utc", "--all", "--json", facts=len(days) < 24)
    grep = "--grep" in args
    expected = {f"claude:{_session_id(n)}" for n in range(SESSIONS)
                if _day(n) in days and (not grep or MODELS[n % 3] == "claude-opus-4-6")}
    assert code == 0 and _ids(out) == expected


def test_until_with_a_limit_lists_the_newest_before_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    code, out, _ = _three_ways(monkeypatch, "list", "--until", "2026-11-04", "--tz", "utc", "-n", "2", "--json")
    rows = json.loads(out)["sessions"]
    assert code == 0 and [row["updated_at"][:10] for row in rows] == ["2026-11-04", "2026-11-04"]
    assert json.loads(out)["more"] is True


def test_until_is_read_in_the_tz_zone(isolated_home: Path) -> None:
    """Noon UTC on the 5th is the 6th in Kiritimati (UTC+14): not by the end of its 5th."""
    _home(isolated_home)
    utc = _ids(_run("list", "--until", "2026-11-05", "--tz", "utc", "--all", "--json")[1])
    east = _ids(_run("list", "--until", "2026-11-05", "--tz", "Pacific/Kiritimati", "--all", "--json")[1])
    assert east == {f"claude:{_session_id(n)}" for n in range(SESSIONS) if _day(n) <= 4} and east < utc


def test_a_remembered_page_is_not_given_for_until(isolated_home: Path) -> None:
    _home(isolated_home)
    plain = _run("list", "--tz", "utc", "--json")
    assert _run("list", "--tz", "utc", "--json") == plain  # remembered
    code, out, _ = _run("list", "--until", "2026-11-02", "--tz", "utc", "--json")
    assert code == 0 and _ids(out) == {f"claude:{_session_id(n)}" for n in range(SESSIONS) if _day(n) <= 2}


def test_until_that_leaves_nothing_says_so(isolated_home: Path) -> None:
    _home(isolated_home)
    code, out, err = _run("list", "--until", "2026-10", "--tz", "utc")
    assert (code, out) == (0, "")
    assert f"no sessions last updated before 2026-11-01 00:00 ({SESSIONS} updated later)" in err


def test_until_before_since_is_a_usage_error(isolated_home: Path) -> None:
    code, out, err = _run("list", "--since", "2026-11-10", "--until", "2026-11-09")
    assert (code, out) == (2, "") and "--since must be before --until" in err
    code, _, err = _run("list", "--until", " ")
    assert code == 2 and "--until is empty" in err


def test_the_fast_path_takes_until_as_typer_does(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _home(isolated_home)
    argv = ["list", "--since", "2026-11-10", "--until", "2026-11-12", "--tz", "utc", "--all", "--json"]
    typer = runner.invoke(app, argv)
    capsys.readouterr()
    assert fastpath.parse(argv) is not None
    code = fastpath.run(argv)
    out, _ = capsys.readouterr()
    assert (code, out) == (typer.exit_code, typer.stdout) and len(_ids(out)) == 9


# -- tokens --by, once ----------------------------------------------------------------------


@pytest.mark.parametrize("fast", [False, True])
def test_a_second_by_is_a_usage_error(isolated_home: Path, capsys: pytest.CaptureFixture[str], fast: bool) -> None:
    _home(isolated_home)
    argv = ["tokens", "--by", "cwd", "--by", "model"]
    if fast:
        code = fastpath.run(argv)
        out, err = capsys.readouterr()
    else:
        code, out, err = _run(*argv)
    assert (code, out) == (2, "")
    # (a grouping crossed with models is ``--breakdown``'s since pass 54: tests/test_breakdown_pass54.py)
    assert "--by takes one grouping" in err and "cwd, model" in err and "tokens --by cwd --breakdown" in err
    code, out, err = _run("tokens", "--by", "cwd", "--by", "provider")
    assert (code, out) == (2, "") and "agentscan export -f sqlite" in err


def test_the_same_by_twice_is_that_grouping(isolated_home: Path) -> None:
    _home(isolated_home)
    once = _run("tokens", "--by", "model", "--json")
    assert once[0] == 0
    assert _run("tokens", "--by", "model", "--by", "Model", "--json") == once
    assert _run("tokens", "--json")[0] == 0  # no --by: by session, as before
    assert json.loads(_run("tokens", "--json")[1]) == json.loads(_run("tokens", "--by", "session", "--json")[1])
