"""Which copy of a gone Claude session's calls counts, in a long chain of resumes and one whose
middle session made no call (pass 50, a reviewer's repros s8 and s1).

``tokens`` credits a gone session's calls to the session resumed from it, whose ``show``
lists its conversation (``dedupe._nearness``): the two must agree whatever the chain's
length and whatever order the ids sort in.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from agentscan.bounds import MAX_TOKEN_COUNT
from agentscan.providers.claude.dedupe import _NEAREST, call_rank, packed_entries
from agentscan.providers.claude.resumes import copied_sessions

SONNET = "claude-sonnet-4-5-20250929"


def _turn(session: str, step: int, used: int, *, answered: bool = True) -> list[dict]:
    asked = claude_user(session, f"2026-05-{step + 1:02d}T10:00:00.000Z", f"step {step}", uuid=f"u{step}")
    if not answered:
        return [asked]
    return [asked, claude_assistant(session, f"2026-05-{step + 1:02d}T10:00:05.000Z", msg_id=f"m{step}",
                                    request_id=f"r{step}", usage=claude_usage(used, 1), parentUuid=f"u{step}",
                                    uuid=f"a{step}", model=SONNET)]


def _totals(*args: str) -> dict[str, int]:
    listed = orjson.loads(invoke(*args, "list", "--json").stdout)["sessions"]
    return {row["id"].partition(":")[2][:2]: row["tokens"]["total"] for row in listed}


def _prompts(session: str, *args: str) -> list[str]:
    card = orjson.loads(invoke(*args, "show", session, "--json").stdout)["session"]
    return [prompt["text"] for prompt in card["prompts"]]


def test_a_chain_of_ten_whose_first_eight_are_gone_credits_them_to_the_ninth(isolated_home: Path) -> None:
    # The nearness was 7 - distance clamped at 0: the ninth and tenth sessions' copies of the
    # first session's calls ranked alike (both 0), and those went to the tenth, whose id sorts
    # first, while the ninth's card listed them ({'00': 10113, '11': 1112117}).
    ids = [f"{str(9 - i) * 8}-0000-4000-8000-000000000050" for i in range(10)]  # the first sorts last
    records: list[dict] = []
    for step, session in enumerate(ids):
        records = records + _turn(session, step, 10 ** (step % 6 + 1))
        if step >= 8:
            claude_session_file(isolated_home, session, records, mtime=1.7e9)
    copied = sum(10 ** (step % 6 + 1) + 1 for step in range(8))
    for cache in ((), ("--no-cache",)):
        assert _totals(*cache) == {"11": copied + 10 ** 3 + 1, "00": 10 ** 4 + 1}
        assert _prompts(ids[8], *cache) == [f"step {step}" for step in range(9)]
        assert _prompts(ids[9], *cache) == ["step 9"]


@pytest.mark.parametrize("ids", ["abcd", "fedc"])
def test_a_middle_session_that_made_no_call_is_a_step_of_the_chain(isolated_home: Path, ids: str) -> None:
    # A → B → C → D, A gone, B's one turn interrupted (no reply, so no call): the chain was
    # built from calls alone, B missing, so A's copies in B and C were each one step away and
    # the id decided: with ids "fedc" C counted A's 112 tokens while B's card listed "step 1".
    a, b, c, d = (f"{letter * 8}-0000-4000-8000-000000000050" for letter in ids)
    first = _turn(a, 1, 100)
    second = first + _turn(b, 2, 0, answered=False)
    third = second + _turn(c, 3, 400)
    for session, records in ((b, second), (c, third), (d, third + _turn(d, 4, 800))):
        claude_session_file(isolated_home, session, records, mtime=1.7e9)
    for cache in ((), ("--no-cache",)):
        assert _totals(*cache) == {b[:2]: 101, c[:2]: 401, d[:2]: 801}
        tokens = orjson.loads(invoke(*cache, "tokens", "--by", "session", "--json").stdout)["rows"]
        assert {row["key"].partition(":")[2][:2]: row["tokens"]["total"] for row in tokens} == \
            {b[:2]: 101, c[:2]: 401, d[:2]: 801}
        assert _prompts(b, *cache) == ["step 1", "step 2"]
        assert _prompts(c, *cache) == ["step 3"]


def _call(session: str | None, used: int, *, sidechain: bool = False) -> tuple:
    return ("msg", "req", sidechain, False, used, used, used, used, 0.0, SONNET, None, 0, 0, 0, False, session)


def test_a_rank_at_the_token_cap_keeps_its_order_below_two_to_the_63() -> None:
    # Each field holds at most ``MAX_TOKEN_COUNT``: a parent's copy at the cap, furthest or
    # nearest, still ranks above a sidechain's, and any rank fits a signed 64-bit integer.
    top = call_rank(_call(None, MAX_TOKEN_COUNT))
    assert call_rank(_call(None, 0)) > call_rank(_call(None, MAX_TOKEN_COUNT, sidechain=True))
    assert top * _NEAREST + _NEAREST - 1 < 2 ** 63
    assert _NEAREST >= 1 << 16
    chain = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(10)]
    calls = [_call(named, MAX_TOKEN_COUNT) for named in chain]
    ranks = [entry[10] for entry in packed_entries(calls, "own")]
    assert ranks == sorted(ranks) and len(set(ranks)) == 10 and max(ranks) < 2 ** 63


def test_the_chain_is_each_lines_own_session_in_file_order(tmp_path: Path) -> None:
    # A record nesting another (a progress record's copied message) names its own first.
    path = tmp_path / "own.jsonl"
    lines = [{"sessionId": "a", "data": {"message": {"sessionId": "z"}}}, {"type": "summary"},
             {"sessionId": "b"}, {"sessionId": "a"}, {"sessionId": "own"}, {"sessionId": "c"}]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    assert copied_sessions(path, "own") == ["a", "b"]
    assert copied_sessions(tmp_path / "missing.jsonl", "own") is None


def test_the_cards_counts_of_copies_are_read_in_one_place() -> None:
    # The card's counts line (``show_text``) and its tool calls' heading (``showfit``) each read
    # ``copied_listed`` with a check of their own: one helper now, so the two cannot disagree.
    import re

    import agentscan.cli

    cli = Path(agentscan.cli.__file__).parent
    readers = {path.name for path in cli.glob("*.py")
               if re.search(r"""extra(\.get\(|\[)["']copied_listed["']""", path.read_text(encoding="utf-8"))}
    assert readers == {"show_lineage.py"}


def test_the_records_are_read_for_a_gone_sessions_copies_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A found session's own copy outranks every other: how near the others are does not
    # matter, and a huge resumed transcript is not read again for it.
    from agentscan.providers.claude import resumes

    read: list[str] = []
    monkeypatch.setattr(resumes, "copied_sessions", lambda path, own: read.append(own) or ["first"])
    main = tmp_path / "own.jsonl"
    (tmp_path / "first.jsonl").write_bytes(b"")
    list(packed_entries([_call("first", 1)], "own", (), main))
    assert read == []
    (tmp_path / "first.jsonl").unlink()
    list(packed_entries([_call("first", 1)], "own", (), main))
    assert read == ["own"]
