"""A file's count past its listed warnings grows in place unseen (``Telling.count_past``: no
value made a bad line, in each capture and hold open) and is written into its place when read:
every read sees it as grown so far, a hold's ``said`` read before more came too."""

from __future__ import annotations

from agentscan.context import HeldWarnings, HELD_PER_FILE
from agentscan.toldwarnings import Counted, Telling
from agentscan.warningsink import WarningSink


def test_a_count_read_is_the_count_grown_so_far_and_goes_on_growing() -> None:
    told = Telling()
    told.tell(("a", "m", 1, False))
    told.count_past("a", 1, 2)
    told.count_past("a", 1, 3)
    assert told.frozen() == (("a", "m", 1, False), Counted("a", 2, 3))
    told.count_past("a", 2, 5)
    assert told.frozen()[-1] == Counted("a", 4, 5)
    # (its last growth, past line 4, apart: ``upto``)
    assert told.upto(4) == (("a", "m", 1, False), Counted("a", 2, 3), Counted("a", 2, 5))
    told.tell(("a", "n", 6, False))  # (closes the count: the file's next one starts after it)
    told.count_past("a", 1, 7)
    assert told.settled() == [("a", "m", 1, False), Counted("a", 4, 5), ("a", "n", 6, False), Counted("a", 1, 7)]
    assert told.upto(6) == (("a", "m", 1, False), Counted("a", 4, 5), ("a", "n", 6, False), Counted("a", 1, 7))


def test_a_holds_said_read_before_more_came_and_after() -> None:
    held = HeldWarnings()
    for number in range(1, HELD_PER_FILE + 3):
        held.add("/h/a.jsonl", "not JSON", number)
    assert held.said[-1] == Counted("/h/a.jsonl", 2, HELD_PER_FILE + 2)
    for number in range(HELD_PER_FILE + 3, HELD_PER_FILE + 10):
        held.add("/h/a.jsonl", "not JSON", number)
    assert held.said[-1] == Counted("/h/a.jsonl", 9, HELD_PER_FILE + 9)
    outer = WarningSink()
    outer.say_again(held.said)
    assert outer.listed()[-1].past == HELD_PER_FILE + 9 - 20


def test_a_captures_told_counts_every_line_past_those_kept() -> None:
    sink = WarningSink()
    with sink.capture(limit=20) as outer, sink.capture(limit=20) as inner:
        for number in range(1, 51):
            sink.add("/h/a.jsonl", "not JSON", number)
        middle = inner.told()
        for number in range(51, 61):
            sink.add("/h/a.jsonl", "not JSON", number)
    assert middle[-1] == Counted("/h/a.jsonl", 30, 50)
    assert outer.told()[-1] == inner.told()[-1] == Counted("/h/a.jsonl", 40, 60)
    assert inner.told_upto(59)[-2:] == (Counted("/h/a.jsonl", 39, 59), Counted("/h/a.jsonl", 1, 60))
