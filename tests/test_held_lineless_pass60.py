"""A hold (``context.HeldWarnings``) says again every warning it was told, a file's past the
1,000 it holds as the sink's count.  One with no line (Cursor's bubbles: a database has no
lines) past them went to the hold's own sink alone and was lost: a ``state.vscdb`` of 1,100
bad bubbles said "980 more" and ``--strict`` 1,000 warnings, cached or not."""

from __future__ import annotations

from agentscan.context import HeldWarnings
from agentscan.warningsink import WarningSink, counted_past


def test_a_holds_line_less_warnings_past_those_it_holds_are_all_said_again() -> None:
    held = HeldWarnings()
    for n in range(1_100):
        held.add("/home/u/state.vscdb", f"bubble {n}: not JSON")
    outer = WarningSink()
    outer.say_again(held.said)
    assert counted_past(outer.listed()) == (1, 1_100 - 20)  # one "N more" entry, counting every one past the 20 listed


def test_a_holds_warnings_with_lines_are_counted_past_those_it_holds_as_before() -> None:
    held = HeldWarnings()
    for n in range(1, 1_501):
        held.add("/home/u/a.jsonl", "not JSON", n)
    outer = WarningSink()
    outer.say_again(held.said)
    assert counted_past(outer.listed()) == (1, 1_500 - 20)
