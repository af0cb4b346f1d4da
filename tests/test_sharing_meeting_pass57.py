"""``sharing.meeting`` finds the sessions whose key hashes meet another's without a ``Counter``
of every hash (pass 57: 0.2 CPU-s of an unchanged export at scale 10, where resumed sessions
copy calls), and answers as counting them all did, repeats within one session included."""

from __future__ import annotations

import random
from array import array
from collections import Counter
from typing import Any

import pytest

from agentscan.scan import sharing


def _counted(keys: dict[str, bytes]) -> set[str]:
    """The answer by the rule: an id holds a hash that occurs twice or more among them all."""
    counts = Counter(value for blob in keys.values() for value in memoryview(blob).cast("Q"))
    return {session_id for session_id, blob in keys.items()
            if any(counts[value] > 1 for value in memoryview(blob).cast("Q"))}


def _blob(values: list[int]) -> bytes:
    return array("Q", values).tobytes()


@pytest.mark.parametrize("seed", range(200))
def test_meeting_answers_as_counting_every_hash(seed: int) -> None:
    chooser = random.Random(seed)
    pool = [chooser.getrandbits(64) for _ in range(chooser.randint(1, 40))]
    keys = {f"s{number}": _blob([chooser.choice(pool) for _ in range(chooser.randint(0, 6))])
            for number in range(chooser.randint(0, 8))}
    assert sharing.meeting(keys) == _counted(keys)


def test_no_counter_of_every_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []

    def counting(values: Any) -> Counter:
        found = Counter(values)
        sizes.append(sum(found.values()))
        return found

    monkeypatch.setattr(sharing, "Counter", counting)
    keys = {f"s{number}": _blob(list(range(number * 100, number * 100 + 100))) for number in range(50)}
    keys["copy"] = _blob([150, 151, 9_999_999, 9_999_999])  # another's two calls, and one of its own twice
    assert sharing.meeting(keys) == {"s1", "copy"}
    assert max(sizes, default=0) <= 4  # was 5,004: every hash counted
