"""A gone Claude session resumed several times as it went on (pass 51): each sibling copied a
longer start of it, and each of its records is listed on the one card whose copy ``tokens``
credits with its call (the best copy that holds it: the nearest, then the smaller id).

Before, a sibling whose copy began as a better one's listed none of the gone session's records,
though only their start was held there: the turns after it were on no card.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

GONE = "aaaaaaaa-5151-4000-8000-000000000051"
#: each step's call: ``used`` input tokens and 1 output
USED = {1: 100, 2: 1000, 3: 10000, 4: 100000, 5: 1000000, 6: 10000000}


def _turn(session: str, step: int) -> list[dict]:
    return [claude_user(session, f"2026-05-{step + 1:02d}T10:00:00.000Z", f"step {step}", uuid=f"u{step}"),
            claude_assistant(session, f"2026-05-{step + 1:02d}T10:00:05.000Z", msg_id=f"m{step}", request_id=f"r{step}",
                             usage=claude_usage(USED[step], 1), parentUuid=f"u{step}", uuid=f"a{step}")]


def _siblings(home: Path, ids: list[str]) -> dict[str, int]:
    """The gone session resumed as ``ids[k]`` after its first k + 1 steps, each sibling going on
    with a step of its own (``len(ids) + 1 + k``): each sibling's own step."""
    own = {}
    for k, session in enumerate(ids):
        copies = [record for step in range(1, k + 2) for record in _turn(GONE, step)]
        own[session] = len(ids) + 1 + k
        claude_session_file(home, session, copies + _turn(session, own[session]), mtime=1.7e9)
    return own


def _check(ids: list[str], own: dict[str, int], *cache: str) -> dict[str, dict]:
    """list = tokens per session, each of the gone session's steps on exactly one card, and
    each card's listed steps' calls plus its own = what ``tokens`` credits it.  The cards."""
    listed = {row["id"]: row["tokens"]["total"] for row in orjson.loads(invoke(*cache, "list", "--json").stdout)["sessions"]}
    tokens = {row["key"]: row["tokens"]["total"]
              for row in orjson.loads(invoke(*cache, "tokens", "--by", "session", "--json").stdout)["rows"]}
    assert listed == tokens
    cards, shown = {}, []
    for session in ids:
        card = cards[session] = orjson.loads(invoke(*cache, "show", session, "--json").stdout)["session"]
        steps = [int(prompt["text"].split()[1]) for prompt in card["prompts"]]
        assert own[session] in steps
        shown += [step for step in steps if step != own[session]]
        assert sum(USED[step] + 1 for step in steps) == tokens[f"claude:{session}"], (session, steps)
    assert sorted(shown) == list(range(1, len(ids) + 1))
    return cards


@pytest.mark.parametrize("shorter_first", [True, False])
def test_a_later_siblings_own_part_of_the_gone_session_is_listed_on_its_card(isolated_home: Path,
                                                                              shorter_first: bool) -> None:
    # B copied step 1, C steps 1 and 2 (A resumed again after it went on).  With B's id the
    # smaller, step 1 is B's and step 2 C's: C listed neither (B's card "lists them").
    low, high = (f"{letter * 8}-5151-4000-8000-000000000051" for letter in "bc")
    ids = [low, high] if shorter_first else [high, low]
    own = _siblings(isolated_home, ids)
    for cache in ((), ("--no-cache",)):
        cards = _check(ids, own, *cache)
    short, long = ids
    if shorter_first:
        assert cards[long]["resumed_copies_listed"] is True
        assert cards[long]["resumed_copies_held"] == [{"session": f"claude:{short}", "prompts": 1}]
        text = invoke("show", long).stdout
        assert "but for those of its first 1 prompt, listed on" in " ".join(text.split())
        assert "resumed_copies_held" not in cards[short]
    else:  # (the longer copy, of the smaller id, holds it all)
        assert cards[short]["resumed_copies_listed"] is False and cards[short]["resumed_copies_in"] == f"claude:{long}"
        assert "resumed_copies_held" not in cards[long]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_three_siblings_each_list_the_part_whose_calls_they_count(isolated_home: Path, order: tuple[int, ...]) -> None:
    # Siblings of copies 1, 1-2 and 1-3 steps long, their ids in every order.
    names = [f"{letter * 8}-5151-4000-8000-000000000051" for letter in "bcd"]
    ids = [names[at] for at in order]
    own = _siblings(isolated_home, ids)
    cards = _check(ids, own)
    for session, card in cards.items():
        parts = card.get("resumed_copies_held") or []
        assert sum(part["prompts"] for part in parts) + sum(
            1 for prompt in card["prompts"] if prompt["text"] != f"step {own[session]}") == ids.index(session) + 1
        if len(parts) > 1 and not card["resumed_copies_listed"]:
            assert "which copied them too and where their calls count" in " ".join(invoke("show", session).stdout.split())


def test_a_siblings_copy_ends_at_the_last_record_of_the_session_it_names(tmp_path: Path) -> None:
    # Read back from where the copies end: past a later session's copies, and past a record of
    # the gone session's without a uuid, to its last record that has one.
    from agentscan.providers.claude.copyholders import last_copied
    from agentscan.providers.claude.resumes import copied_head

    own, later = "dddddddd-5151-4000-8000-000000000051", "eeeeeeee-5151-4000-8000-000000000051"
    records = [*_turn(GONE, 1), {"type": "system", "sessionId": GONE, "timestamp": "2026-05-02T10:00:06.000Z"},
               *_turn(later, 2), *_turn(own, 3)]
    path = tmp_path / f"{own}.jsonl"
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    chain, end = copied_head(path, own)
    assert chain == [GONE, later]
    assert last_copied(path, own, end, GONE) == "a1"
    assert last_copied(path, own, end, later) == "a2"
    assert last_copied(path, own, end, "ffffffff-5151-4000-8000-000000000051") is None


def test_a_nearer_siblings_shorter_copy_holds_only_its_start(isolated_home: Path) -> None:
    # D resumed from gone A after its step 1 (one resume from A); B resumed from A after step 2,
    # then gone too, and resumed as C (A two resumes away).  Step 1 counts, and is listed, in D
    # (the nearer copy), step 2 in C, which alone copied it, with B's step 3.
    c, d = "cccccccc-5151-4000-8000-000000000051", "dddddddd-5151-4000-8000-000000000051"
    middle = "bbbbbbbb-5151-4000-8000-000000000051"
    copies = [*_turn(GONE, 1), *_turn(GONE, 2), *_turn(middle, 3)]
    claude_session_file(isolated_home, c, copies + _turn(c, 4), mtime=1.7e9)
    claude_session_file(isolated_home, d, _turn(GONE, 1) + _turn(d, 5), mtime=1.7e9)
    tokens = {row["key"]: row["tokens"]["total"]
              for row in orjson.loads(invoke("tokens", "--by", "session", "--json").stdout)["rows"]}
    steps = {}
    for session in (c, d):
        card = orjson.loads(invoke("show", session, "--json").stdout)["session"]
        steps[session] = [int(prompt["text"].split()[1]) for prompt in card["prompts"]]
        assert sum(USED[step] + 1 for step in steps[session]) == tokens[f"claude:{session}"]
    assert steps == {c: [2, 3, 4], d: [1, 5]}
