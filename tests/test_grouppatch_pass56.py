"""``tokens --by day|week|month|model|provider`` patched from the last whole grouped report
(``scan.grouppatch``, ``scan.groupbasis``): each patched answer, JSON and table, is the
whole report's byte for byte, and every case a patch cannot tell is made whole."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import answerpatch, grouppatch
from builders import claude_assistant, claude_usage
from patch_builders import BASE, GEMINI_IDS, IDS, Changes, append, rewrite_basis, session, sessions, turn
from spies import record_results

runner = CliRunner()

#: zones whose days fall apart from UTC's (a half hour off, a day ahead, a day behind)
ZONES = ["UTC", "Pacific/Auckland", "Asia/Kolkata", "America/St_Johns"]


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each grouped answer was made: ``patched``, or ``whole`` (a basis that could not patch)."""
    return record_results(monkeypatch, grouppatch, "patched_report",
                          lambda report: "whole" if report is None else "patched")


def tokens(*args: str) -> bytes:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes + b"\n--stderr--\n" + result.stderr_bytes


def assert_as_whole(ways: list[str], args: list[str], expected: str = "patched") -> bytes:
    """``tokens *args`` is patched (or made whole, ``expected``) into the whole report's bytes,
    then printed again the same once remembered."""
    answer = tokens(*args)
    assert ways[-1] == expected, (args, ways)
    assert answer == tokens(*args, "--no-cache"), args
    assert tokens(*args) == answer
    return answer


def later(native_id: str, day: int, n: int, tokens_in: int, model: str = "claude-sonnet-4-5-20250929") -> list[dict]:
    """A priced reply on day ``day`` of November 2026 at 23:50 UTC (another day in most zones)."""
    return [claude_assistant(native_id, f"2026-11-{day:02d}T23:{50 + n % 10:02d}:01Z", msg_id=f"m-{native_id}-d{day}-{n}",
                             request_id=f"r-{native_id}-d{day}-{n}", usage=claude_usage(tokens_in, 3, cache_read=2),
                             model=model)]


GROUPINGS = [["--by", "day"], ["--by", "week"], ["--by", "month"], ["--by", "model"], ["--by", "provider"]]


@pytest.mark.parametrize("by", GROUPINGS, ids=lambda by: by[1])
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "table"])
def test_a_session_that_grows_comes_and_goes_is_patched_as_whole(isolated_home: Path, ways: list[str], by: list[str],
                                                                 as_json: bool) -> None:
    args = [*by, "--tz", "Pacific/Auckland", *(["--json"] if as_json else [])]
    paths = sessions(isolated_home, 4)
    tokens(*args)
    assert ways == ["whole"]  # no basis yet
    append(paths[0], turn(IDS[0], 5, 7), BASE + 3600)
    assert_as_whole(ways, args)
    session(isolated_home, IDS[4], 30, 5000)  # a new session
    assert_as_whole(ways, args)
    paths[1].unlink()  # a session gone
    assert_as_whole(ways, args)
    append(paths[2], later(IDS[2], 20, 1, 900, model="claude-opus-4-1-20250805"), BASE + 7200)  # a new day and model
    answer = assert_as_whole(ways, args)
    if as_json:
        keys = [row["key"] for row in orjson.loads(answer.partition(b"\n--stderr--\n")[0])["rows"]]
        assert len(keys) == len(set(keys)) >= 1


@pytest.mark.parametrize("zone", ZONES)
def test_days_moving_between_rows_in_several_zones(isolated_home: Path, ways: list[str], zone: str) -> None:
    paths = sessions(isolated_home, 3)
    for day in (3, 4):
        append(paths[1], later(IDS[1], day, day, 50), BASE + 100 + day)
    for args in (["--by", "day", "--json", "--tz", zone], ["--by", "week", "--tz", zone], ["--by", "month", "--json", "--tz", zone]):
        tokens(*args)
    for step, day in enumerate((4, 5, 30)):
        append(paths[step % 3], later(IDS[step % 3], day, 10 + step, 70 + step), BASE + 3600 + step)
        for args in (["--by", "day", "--json", "--tz", zone], ["--by", "week", "--tz", zone],
                     ["--by", "month", "--json", "--tz", zone]):
            assert_as_whole(ways, args)


def test_a_basis_of_another_zone_is_not_used(isolated_home: Path, ways: list[str]) -> None:
    paths = sessions(isolated_home, 2)
    tokens("--by", "day", "--json", "--tz", "Asia/Kolkata")
    append(paths[0], later(IDS[0], 6, 1, 40), BASE + 3600)
    assert_as_whole(ways, ["--by", "day", "--json", "--tz", "America/St_Johns"], "whole")  # its own basis kept now
    append(paths[0], later(IDS[0], 7, 2, 40), BASE + 3700)
    assert_as_whole(ways, ["--by", "day", "--json", "--tz", "America/St_Johns"])
    # One basis a grouping: St John's took Kolkata's place, and Kolkata's days are made whole again.
    assert_as_whole(ways, ["--by", "day", "--json", "--tz", "Asia/Kolkata"], "whole")
    append(paths[1], later(IDS[1], 8, 3, 40), BASE + 3800)
    assert_as_whole(ways, ["--by", "day", "--json", "--tz", "Asia/Kolkata"])


def test_a_row_whose_only_session_goes_disappears(isolated_home: Path, ways: list[str]) -> None:
    paths = sessions(isolated_home, 3)
    append(paths[2], later(IDS[2], 12, 1, 60, model="claude-opus-4-1-20250805"), BASE + 500)
    for args in (["--by", "day", "--json", "--tz", "UTC"], ["--by", "model", "--json"], ["--by", "model"]):
        tokens(*args)
    paths[2].unlink()
    for args in (["--by", "day", "--json", "--tz", "UTC"], ["--by", "model", "--json"], ["--by", "model"]):
        answer = assert_as_whole(ways, args)
        assert b"2026-11-12" not in answer and b"opus" not in answer


@pytest.mark.parametrize("action", ["grow", "add", "null", "remove", "subagent", "new subagent", "codex", "gemini",
                                    "new gemini", "remove gemini", "synthetic"])
@pytest.mark.parametrize("by", ["day", "model", "provider"])
def test_every_change_of_several_agents_prints_what_a_whole_report_does(isolated_home: Path, ways: list[str],
                                                                        action: str, by: str) -> None:
    home = Changes(isolated_home)
    for args in (["--by", by, "--json", "--tz", "UTC"], ["--by", by, "--tz", "UTC"]):
        tokens(*args)
    for which in (0, 1, 3):
        home.apply(action, which, 250)
        for args in (["--by", by, "--json", "--tz", "UTC"], ["--by", by, "--tz", "UTC"]):
            answer = tokens(*args)
            assert answer == tokens(*args, "--no-cache"), (action, which, args, ways)
            assert tokens(*args) == answer
    assert "patched" in ways or action in ("remove gemini", "synthetic", "null")


def test_calls_shared_by_a_change_are_merged_by_a_whole_report(isolated_home: Path, ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    copier = session(isolated_home, IDS[1], 2, 200)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 3600)
    assert_as_whole(ways, args, "whole")
    append(copier, turn(IDS[1], 10, 5), BASE + 3700)  # a session that shares calls is not taken out
    assert_as_whole(ways, args, "whole")


def test_a_warning_or_an_unpriced_model_makes_a_whole_report(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    args = ["--by", "model", "--json"]
    tokens(*args)
    append(first, [b'{"type": "assistant", "message": {"usage": {"input_tokens": oops}}}'], BASE + 3600)
    assert orjson.loads(assert_as_whole(ways, args, "whole").partition(b"\n--stderr--\n")[0])["warnings"]
    second = session(isolated_home, IDS[2], 3, 300)
    tokens(*args)
    append(second, turn(IDS[2], 4, 50, model="no-such-model-anywhere"), BASE + 3700)
    assert_as_whole(ways, args, "whole")


def test_too_many_changes_make_a_whole_report(isolated_home: Path, ways: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answerpatch, "MAX_CHANGED", 2)
    paths = sessions(isolated_home, 4)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    for index, path in enumerate(paths[:3]):
        append(path, turn(IDS[index], 2, 1), BASE + 3600 + index)
    assert_as_whole(ways, args, "whole")
    append(paths[3], turn(IDS[3], 2, 1), BASE + 4000)
    assert_as_whole(ways, args)  # the whole report kept a new basis


@pytest.mark.parametrize("args", [["--since", "2026-10-01"], ["--until", "2026-12-01"], ["--cwd", "/home/dev"],
                                  ["--breakdown"], ["--by", "cwd"], ["--by", "agent"]], ids=lambda args: args[-1])
def test_questions_a_patch_does_not_answer_are_made_whole(isolated_home: Path, ways: list[str], args: list[str]) -> None:
    paths = sessions(isolated_home, 2)
    asked = [*(["--by", "day"] if "--by" not in args else []), *args, "--json", "--tz", "UTC"]
    tokens(*asked)
    append(paths[0], turn(IDS[0], 3, 9), BASE + 3600)
    answer = tokens(*asked)
    assert answer == tokens(*asked, "--no-cache")
    assert "patched" not in ways


def test_a_damaged_basis_is_made_whole(isolated_home: Path, ways: list[str]) -> None:
    paths = sessions(isolated_home, 2)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    rewrite_basis("groupbasis:tokens:day", lambda header, body: ({**header, "hidden": 5}, body))
    append(paths[0], turn(IDS[0], 3, 9), BASE + 3600)
    assert_as_whole(ways, args, "whole")


def test_a_basis_by_session_is_not_taken_for_a_grouped_one(isolated_home: Path, ways: list[str]) -> None:
    paths = sessions(isolated_home, 2)
    tokens("--json")
    shutil.copy(paths[0], paths[0].with_name(f"{IDS[5]}.jsonl"))
    assert_as_whole(ways, ["--by", "day", "--json", "--tz", "UTC"], "whole")


def test_the_local_zone_keys_the_basis(isolated_home: Path, ways: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import time

    before = os.environ.get("TZ")
    paths = sessions(isolated_home, 2)
    args = ["--by", "day", "--json"]  # the days of the local zone
    try:
        monkeypatch.setenv("TZ", "Pacific/Auckland")
        time.tzset()
        tokens(*args)
        append(paths[0], later(IDS[0], 9, 1, 30), BASE + 3600)
        assert_as_whole(ways, args)
        monkeypatch.setenv("TZ", "America/St_Johns")
        time.tzset()
        append(paths[1], later(IDS[1], 9, 2, 30), BASE + 3700)
        assert_as_whole(ways, args, "whole")  # Auckland's days are not St John's
        append(paths[1], later(IDS[1], 10, 3, 30), BASE + 3800)
        assert_as_whole(ways, args)
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


def test_an_agent_that_leaves_a_row_leaves_its_reasoning_column(isolated_home: Path, ways: list[str]) -> None:
    """A day of Claude's and Gemini's calls: with Gemini's gone, its REASONING is Claude's alone
    (recorded by none apart: ``TokenRow.providers``), as the whole table says it."""
    import gemini_builders as gemini

    sessions(isolated_home, 2)
    chat = gemini.write_chat(isolated_home, "proj", f"session-2026-11-01T10-00-{GEMINI_IDS[0][:8]}.jsonl",
                             [gemini.meta(GEMINI_IDS[0], start="2026-11-01T10:00:00.000Z"),
                              gemini.gemini("g1", "2026-11-01T10:00:02.000Z", "ok",
                                            usage=gemini.tokens(100, 10, thoughts=7))], mtime=BASE + 5)
    args = ["--by", "day", "--tz", "UTC"]
    with_gemini = tokens(*args)
    chat.unlink()
    assert assert_as_whole(ways, args) != with_gemini


def test_sums_a_whole_report_reads_call_by_call_are_not_patched(isolated_home: Path, ways: list[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A zone whose offset is no whole quarter hours (a historical one): a quarter hour's sums
    may fall in two days, and a whole report reads their calls (``tokenfill.needs_calls``)."""
    from agentscan.scan import tokenfill

    paths = sessions(isolated_home, 2)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    monkeypatch.setattr(tokenfill, "aligned", lambda bucket, tz: False)
    append(paths[0], turn(IDS[0], 3, 9), BASE + 3600)
    assert_as_whole(ways, args, "whole")


def test_a_call_of_no_time_makes_a_whole_report(isolated_home: Path, ways: list[str]) -> None:
    """Its period row (``unknown``) is left out when it holds 0 tokens: a whole report tells."""
    paths = sessions(isolated_home, 2)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    untimed = later(IDS[0], 2, 1, 25)[0]
    del untimed["timestamp"]
    append(paths[0], [untimed], BASE + 3600)
    answer = assert_as_whole(ways, args, "whole")
    assert b'"key": "unknown"' in answer


@pytest.mark.parametrize("order", [["--sort", "cost"], ["--reverse"], ["--sort", "tokens", "--reverse"]],
                         ids=lambda order: "-".join(order))
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "table"])
def test_rows_in_another_order_are_patched_in_it(isolated_home: Path, ways: list[str], order: list[str],
                                                 as_json: bool) -> None:
    paths = sessions(isolated_home, 3)
    args = ["--by", "model", *order, *(["--json"] if as_json else [])]
    tokens(*args)
    append(paths[1], later(IDS[1], 3, 1, 5000, model="claude-opus-4-1-20250805"), BASE + 3600)
    assert_as_whole(ways, args)
    append(paths[2], later(IDS[2], 3, 2, 9000, model="claude-haiku-4-5-20251001"), BASE + 3700)
    assert_as_whole(ways, args)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["grow", "later", "add", "remove", "share", "subagent",
                                                 "new subagent", "codex", "gemini", "synthetic", "nothing"]),
                                st.integers(0, 5), st.integers(1, 900)), min_size=1, max_size=5),
       asked=st.sampled_from([["--by", "day", "--json", "--tz", "Pacific/Auckland"], ["--by", "week", "--tz", "UTC"],
                              ["--by", "month", "--json", "--tz", "America/St_Johns"], ["--by", "model"],
                              ["--by", "provider", "--json"]]))
def test_any_sequence_of_changes_prints_what_a_whole_grouped_report_does(
        isolated_home: Path, ways: list[str], steps: list[tuple[str, int, int]], asked: list[str]) -> None:
    for path in Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*"):
        path.unlink()
    home = Changes(isolated_home)
    assert tokens(*asked) == tokens(*asked, "--no-cache")
    for number, (action, which, amount) in enumerate(steps):
        path = home.project / f"{IDS[which]}.jsonl"
        if action == "later" and path.exists():  # a reply on another day (and month, in most zones)
            append(path, later(IDS[which], 1 + (which * 7 + number) % 28, number, amount,
                               model=["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"][number % 2]),
                   home.clock + 60)
        else:
            home.apply(action, which, amount)
        assert tokens(*asked) == tokens(*asked, "--no-cache"), (action, which, ways)


def test_the_bases_kept_last_are_kept(isolated_home: Path, ways: list[str]) -> None:
    import sqlite3

    from agentscan.scan import groupbasis

    paths = sessions(isolated_home, 2)
    asked = [["--by", by, "--json", "--tz", "UTC"] for by in ("day", "week", "month", "model", "provider")]
    for args in asked:
        tokens(*args)
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        kept = {key for (key,) in connection.execute("SELECT key FROM snapshots WHERE key LIKE 'groupbasis:%'")}
    assert kept == {f"groupbasis:tokens:{by}" for by in ("week", "month", "model", "provider")}
    assert groupbasis.KEPT_BASES == 4
    append(paths[0], turn(IDS[0], 3, 9), BASE + 3600)
    assert_as_whole(ways, asked[0], "whole")  # the first one asked is no longer kept
    assert_as_whole(ways, asked[-1])


def test_a_library_callers_scan_keeps_no_usage(isolated_home: Path) -> None:
    """Only the CLI's whole grouped report leaves its usage for the basis: a library caller's
    long-lived scanner does not hold every session's sums after its report."""
    from agentscan import Scanner, token_report
    from agentscan.scan.tokens import GROUPED_USAGE

    sessions(isolated_home, 2)
    scanner = Scanner(home=isolated_home, env=dict(os.environ))
    assert token_report(scanner, by="day").rows
    assert GROUPED_USAGE not in scanner.ctx.memo


def test_a_row_left_with_unpriced_calls_of_no_tokens_alone_is_made_whole(isolated_home: Path, ways: list[str]) -> None:
    """A day whose priced calls were all one session's, the other's there a call of no tokens
    and no price: with the first gone, the day has no cost a patch could tell."""
    from builders import claude_session_file

    first = session(isolated_home, IDS[0], 1, 100)  # priced, on 2026-11-01
    claude_session_file(isolated_home, IDS[1], [
        *later(IDS[1], 5, 1, 300),
        claude_assistant(IDS[1], "2026-11-01T10:59:01Z", msg_id="idle-1", request_id=None, usage=claude_usage(0, 0),
                         model="no-such-model-anywhere")], mtime=BASE + 120)
    args = ["--by", "day", "--json", "--tz", "UTC"]
    tokens(*args)
    assert ways == ["whole"]
    first.unlink()
    answer = assert_as_whole(ways, args, "whole")
    assert orjson.loads(answer.partition(b"\n--stderr--\n")[0])["rows"][0]["own_cost_usd"] is None
