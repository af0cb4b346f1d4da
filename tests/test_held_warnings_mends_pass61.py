"""Mends of the warnings a hold counts in place (``context.HeldWarnings``).

- ``said`` settles each file's count into its place, and so cost a copy of the list's counts
  each time it was read: Claude's second-half helper (``claude.halfpass``) read its length for
  each bad line.  ``told_count`` is that length, unsettled.
- ``said`` handed out the live list: one taken while the hold was open grew with later
  warnings but not with its counts (settled only when read again).  It is a snapshot now.
- a repeat the sink dropped counted as one of a file's 1,000 held: after a line said 1,000
  times (a file read again and again), the file's next new bad line went past them, where the
  sink listed it (so it was not told as counted): lost when the hold was said again.
"""

from __future__ import annotations

import pytest

from agentscan.context import HELD_PER_FILE, HeldWarnings
from agentscan.providers.claude.halfpass import _HeldFew
from agentscan.toldwarnings import Counted, Telling
from agentscan.warningsink import WarningSink

PATH = "/h/a.jsonl"


def test_said_taken_while_the_hold_is_open_stays_as_it_was() -> None:
    held = HeldWarnings()
    for line in range(1, HELD_PER_FILE + 3):
        held.add(PATH, "invalid JSON skipped", line)
    taken = held.said
    before = list(taken)
    assert before[-1] == Counted(PATH, 2, HELD_PER_FILE + 2)
    held.add(PATH, "invalid JSON skipped", HELD_PER_FILE + 3)
    held.add("/h/b.jsonl", "invalid JSON skipped", 1)
    assert list(taken) == before
    # (read again, it has both: the count grown in its place, and the other file's after it)
    assert held.said[-2:] == (Counted(PATH, 3, HELD_PER_FILE + 3), ("/h/b.jsonl", "invalid JSON skipped", 1, False))


def test_the_helpers_hold_counts_its_warnings_without_settling_them(monkeypatch: pytest.MonkeyPatch) -> None:
    settled = []
    real = Telling.settled

    def counting(self: Telling) -> Telling:
        settled.append(1)
        return real(self)

    monkeypatch.setattr(Telling, "settled", counting)
    held = _HeldFew()
    for line in range(1, HELD_PER_FILE + 500):
        held.add(PATH, "invalid JSON skipped", line)
    assert settled == []  # (was one a bad line)
    assert held.told_count == HELD_PER_FILE + 1 == len(held.said)
    assert held.said[-1] == Counted(PATH, 499, HELD_PER_FILE + 499)


def test_a_new_bad_line_after_a_line_said_a_thousand_times_is_said_again() -> None:
    held = HeldWarnings()
    for _ in range(HELD_PER_FILE):
        held.add("/f", "bad", 5)  # one bad line said 1,000 times (a file read again and again)
    held.add("/f", "bad", 7)  # a new bad line
    out = WarningSink()
    out.say_again(held.said)
    assert [tuple(warning) for warning in out.listed()] == [tuple(warning) for warning in held.listed()] \
        == [("/f", "bad", 5, 0), ("/f", "bad", 7, 0)]


def test_a_file_of_repeats_and_new_lines_past_its_held_ones_says_again_what_a_sink_lists() -> None:
    held, direct = HeldWarnings(), WarningSink()
    for line in range(1, 2 * HELD_PER_FILE):
        for sink in (held, direct, held, direct):  # (each said twice: the repeat is the sink's to drop)
            sink.add("/f", "bad", line)
    out = WarningSink()
    out.say_again(held.said)
    assert out.listed() == held.listed() == direct.listed()
    assert len(held.said) <= HELD_PER_FILE * 2 + 1  # (bounded still: the repeats past them untold)
