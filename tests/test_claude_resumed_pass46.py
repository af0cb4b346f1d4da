"""A Claude session resumed from another says so on ``show`` (pass 46).

``claude --resume`` copies the first session's records to the start of a new transcript,
each with the first session's ``sessionId``.  The new session's card counted that copied
history as its own (``tokens`` of every session counts those calls once, in the first
session) and nothing on screen linked the two: the card now says where it was resumed
from, and ``show --json`` has ``resumed_from``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

FIRST = "e9f146fa-0000-4000-8000-000000000046"
RESUMED = "b162b1ae-0000-4000-8000-000000000046"


def _copied_history(session: str) -> list[dict]:
    return [claude_user(session, "2026-05-01T10:00:00.000Z", "fix the build", uuid="u1"),
            claude_assistant(session, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                             usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")]


def _home(home: Path) -> None:
    claude_session_file(home, FIRST, _copied_history(FIRST))
    # The resumed transcript: the first session's records (its sessionId kept), then its own.
    claude_session_file(home, RESUMED, [
        *_copied_history(FIRST),
        claude_user(RESUMED, "2026-05-02T09:00:00.000Z", "and now the tests", uuid="u2", parentUuid="a1"),
        claude_assistant(RESUMED, "2026-05-02T09:00:05.000Z", msg_id="m2", request_id="r2",
                         usage=claude_usage(200, 20), parentUuid="u2", uuid="a2")])


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_show_says_which_session_a_transcript_was_resumed_from(isolated_home: Path, cache: tuple[str, ...]) -> None:
    _home(isolated_home)
    for _ in range(2):  # cold, then warm
        shown = orjson.loads(invoke(*cache, "show", RESUMED, "--json").stdout)["session"]
        assert shown["resumed_from"] == f"claude:{FIRST}"
        assert "resumed_from" not in orjson.loads(invoke(*cache, "show", FIRST, "--json").stdout)["session"]
    text = " ".join(invoke(*cache, "show", RESUMED).stdout.split())
    # (pass 47: the card's figures leave the copies to the first session, as ``tokens`` does)
    assert f"resumed from claude:{FIRST}: its first records are a copy of that session's transcript, not listed here; their calls count in the sessions that made them" in text


def test_the_copied_calls_count_once_in_tokens_of_every_session(isolated_home: Path) -> None:
    # (the card's figures are the session's row in ``tokens`` since pass 47: ``test_claude_resumed_rows_pass47``)
    _home(isolated_home)
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert rows == {f"claude:{FIRST}": 110, f"claude:{RESUMED}": 220}
    shown = orjson.loads(invoke("show", RESUMED, "--json").stdout)["session"]
    assert shown["tokens"]["total"] == 220


@pytest.mark.parametrize("by", ["session", "day", "model"])
def test_tokens_of_a_resumed_session_counts_the_copied_calls_in_its_first(isolated_home: Path, by: str) -> None:
    # ``tokens RESUMED`` alone counted the copied calls again (330); they count in FIRST, as
    # ``tokens`` of every session counts them, cold and warm
    _home(isolated_home)
    for _ in range(2):
        report = orjson.loads(invoke("tokens", RESUMED, "--by", by, "--json").stdout)
        assert report["total"]["total"] == 220
        if by == "session":
            assert [(row["key"], row["tokens"]["total"]) for row in report["rows"]] == [(f"claude:{RESUMED}", 220)]
    both = orjson.loads(invoke("tokens", RESUMED, FIRST, "--json").stdout)
    assert both["total"]["total"] == 330
    assert orjson.loads(invoke("tokens", FIRST, "--json").stdout)["total"]["total"] == 110


def test_a_resumed_session_whose_first_is_gone_counts_what_it_copied(isolated_home: Path) -> None:
    # (nothing is lost: with no first session to count them in, the copies are the record of that spend)
    _home(isolated_home)
    next((isolated_home / ".claude" / "projects").rglob(f"{FIRST}.jsonl")).unlink()
    assert orjson.loads(invoke("tokens", RESUMED, "--json").stdout)["total"]["total"] == 330


def test_a_chain_of_resumes_counts_each_copy_in_its_own_session(isolated_home: Path) -> None:
    # (review of pass 46: C resumed from B resumed from A copies A's records then B's, each with
    # its own session's id, and names A alone in its head: B's copied calls counted in C again)
    a, b, c = (f"{n * 8}-0000-4000-8000-000000000046" for n in "abc")

    def own(session: str, day: int, n: int, used: int) -> list[dict]:
        return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{n}"),
                claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                 usage=claude_usage(used, 10), parentUuid=f"u{n}", uuid=f"a{n}")]

    first, second, third = own(a, 1, 1, 100), own(b, 2, 2, 200), own(c, 3, 3, 400)
    claude_session_file(isolated_home, a, first)
    claude_session_file(isolated_home, b, [*first, *second])
    claude_session_file(isolated_home, c, [*first, *second, *third])
    every = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert every == {f"claude:{a}": 110, f"claude:{b}": 210, f"claude:{c}": 410}
    for cache in ((), ("--no-cache",)):
        for session in (a, b, c):
            alone = orjson.loads(invoke(*cache, "tokens", session, "--json").stdout)["total"]["total"]
            assert alone == every[f"claude:{session}"], (session, cache)
    # A gone: its copies count once among B and C, where ``tokens`` of every session puts them
    next((isolated_home / ".claude" / "projects").rglob(f"{a}.jsonl")).unlink()
    every = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert sum(every.values()) == 110 + 210 + 410
    for session in (b, c):
        alone = orjson.loads(invoke("tokens", session, "--json").stdout)["total"]["total"]
        assert alone == every[f"claude:{session}"], session
