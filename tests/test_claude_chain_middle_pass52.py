"""The card of a found Claude session in the middle of a chain of resumes (pass 52).

``claude --resume`` of A made B, of B made C: C's transcript begins with copies of A's records,
then B's, and its head names A.  B's card named no later session (A's named B and C).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_session_file, claude_turn, claude_user, invoke, only_row, write_jsonl

A = "aaaaaaaa-1111-4000-8000-000000000052"
B = "bbbbbbbb-1111-4000-8000-000000000052"
C = "cccccccc-1111-4000-8000-000000000052"
D = "dddddddd-1111-4000-8000-000000000052"


def _chain(home: Path, *sessions: str) -> dict[str, list[dict]]:
    """Each of ``sessions`` resumed from the one before: its transcript the one before's, then its own."""
    records: list[dict] = []
    written = {}
    for at, session in enumerate(sessions):
        records = records + claude_turn(session, at + 1, at + 1, 10 ** (at + 1))
        claude_session_file(home, session, records, mtime=1_770_000_000 + at * 100_000)
        written[session] = records
    return written


def _resumed_as(*args: str) -> list[str] | None:
    return orjson.loads(invoke("show", *args, "--json").stdout)["session"].get("resumed_as")


def test_a_middle_sessions_card_names_the_session_resumed_from_it(isolated_home: Path) -> None:
    _chain(isolated_home, A, B, C)
    for cache in ((), ("--no-cache",)):
        card = invoke(*cache, "show", B).stdout
        assert f"resumed  as claude:{C}: its transcript begins with a copy of this one's records" in card, card
        assert _resumed_as(*cache, B) == [f"claude:{C}"]
        assert _resumed_as(*cache, C) is None  # (the last: none resumed from it)
        assert _resumed_as(*cache, A) == [f"claude:{B}", f"claude:{C}"]  # (as before: both copy A's records)


def test_only_the_sessions_resumed_from_it_are_named(isolated_home: Path) -> None:
    # A → B → C → D: D's copies end with C's, so B's card names C alone, C's names D.
    _chain(isolated_home, A, B, C, D)
    assert _resumed_as(B) == [f"claude:{C}"]
    assert _resumed_as(C) == [f"claude:{D}"]
    assert _resumed_as(D) is None


def test_a_live_later_session_that_grew_is_still_named(isolated_home: Path) -> None:
    # What C was resumed from is remembered while its transcript only grows (its copies are
    # written once): a reply appended to it changes nothing on B's card.
    written = _chain(isolated_home, A, B, C)
    assert _resumed_as(B) == [f"claude:{C}"]
    path = next(isolated_home.rglob(f"{C}.jsonl"))
    write_jsonl(path, [*written[C], *claude_turn(C, 4, 9, 5)])
    assert _resumed_as(B) == [f"claude:{C}"]


def test_after_list_the_card_searches_no_later_transcript(isolated_home: Path, monkeypatch) -> None:
    # ``list``'s row pass of C remembers the session it was resumed from: ``show B`` then reads
    # no later transcript's bytes (a long chain of big transcripts was searched on a first show).
    from agentscan.providers.claude import continuations

    _chain(isolated_home, A, B, C, D)
    assert invoke("list").exit_code == 0
    real = continuations.named_before_own
    searched: list[str] = []

    def spy(path: Path, own: str) -> tuple[str | None, int | None]:
        searched.append(own)
        return real(path, own)

    monkeypatch.setattr(continuations, "named_before_own", spy)
    assert _resumed_as(B) == [f"claude:{C}"]
    assert searched == [B]  # (its own transcript, the pass's guess of the session it was resumed from)
    searched.clear()
    assert _resumed_as("--no-cache", B) == [f"claude:{C}"]
    assert C in searched, searched  # (what the check catches: nothing remembered, C is searched)


def test_a_later_session_with_no_record_of_its_own_yet_is_named(isolated_home: Path) -> None:
    # C just resumed from B: its transcript holds only the copies (its row says resumed from B).
    written = _chain(isolated_home, A, B)
    claude_session_file(isolated_home, C, written[B], mtime=1_770_300_000)
    # (its head names A, the chain's first, as a transcript of copies does)
    assert only_row("--grep", "cccccccc")["resumed_from"] == f"claude:{B}"
    assert _resumed_as(B) == [f"claude:{C}"]


def _card(*args: str) -> dict:
    return orjson.loads(invoke("show", *args, "--json").stdout)["session"]


def test_the_first_sessions_card_names_the_next_then_the_rest_of_the_chain(isolated_home: Path) -> None:
    # A → B → C → D: A's card said "resumed as B, C, D", as if each were resumed from A.
    _chain(isolated_home, A, B, C, D)
    for cache in ((), ("--no-cache",)):
        card = invoke(*cache, "show", A).stdout
        assert (f"resumed  as claude:{B} (then claude:{C}, claude:{D}): its transcript begins with a copy of this "
                "one's records") in card, card
        shown = _card(*cache, A)
        assert shown["resumed_as"] == [f"claude:{B}", f"claude:{C}", f"claude:{D}"]  # (its meaning kept)
        assert shown["resumed_next"] == [f"claude:{B}"]
    assert "resumed_next" not in _card(B)  # (one later session: resumed_as says it)


def test_two_sessions_resumed_from_the_first_are_both_next(isolated_home: Path) -> None:
    # A resumed twice (B and C, each a copy of A then its own): both are A's next.
    records = claude_turn(A, 1, 1, 10)
    claude_session_file(isolated_home, A, records, mtime=1_770_000_000)
    claude_session_file(isolated_home, B, records + claude_turn(B, 2, 2, 100), mtime=1_770_100_000)
    claude_session_file(isolated_home, C, records + claude_turn(C, 3, 3, 1000), mtime=1_770_200_000)
    shown = _card(A)
    assert shown["resumed_next"] == shown["resumed_as"] == [f"claude:{B}", f"claude:{C}"]
    assert f"resumed  as claude:{B}, claude:{C}: their transcripts begin" in invoke("show", A).stdout


def test_a_copy_written_after_its_own_records_changes_nothing(isolated_home: Path) -> None:
    # C's transcript: copies of A, of B, C's own records, then one more record naming A.  The
    # row pass took the last copy anywhere (A), the card's search the one before C's own first
    # record (B): B's card named C until a ``list`` remembered the pass's answer, then none.
    written = _chain(isolated_home, A, B, C)
    late = claude_user(A, "2026-02-13T10:00:09.000Z", "late copy", uuid="u1")
    write_jsonl(next(isolated_home.rglob(f"{C}.jsonl")), [*written[C], late])
    assert _resumed_as(B) == [f"claude:{C}"]
    assert invoke("list").exit_code == 0
    assert _resumed_as(B) == [f"claude:{C}"]
    assert _card(A)["resumed_next"] == [f"claude:{B}"]
    assert only_row("--grep", "cccccccc")["resumed_from"] == f"claude:{B}"
    for cache in ((), ("--no-cache",)):
        assert _resumed_as(*cache, B) == [f"claude:{C}"]
        assert _card(*cache, C)["resumed_from"] == f"claude:{B}"
