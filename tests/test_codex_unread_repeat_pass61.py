"""A Codex ``token_count`` written again (same ``timestamp``, same ``last_token_usage``) whose
running total is unread (a counter of no number: ``null``, ``"x"``).

An unread total beside a readable call is taken to move by that call (parser 48); the copy of
the line moved it a second time, while the call-key dedupe dropped the copy's call: ``list``
said 3,300 where ``tokens`` and ``show`` said 2,200 (a file ending on the copy), or ``tokens``
and ``show`` 2,200 where every call came to 3,300 (a readable total after the copy, its growth
taken against the twice-moved base).  A repeat moves nothing, as a readable total written again
moves nothing, in the three readers alike: the whole read (``callscan``), the row's runs
(``runs``) and the totals a row's window resumes from (``totalseed``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.codex import fullcounts, headtail
from agentscan.providers.codex.callscan import FileUsageScanner
from builders import cli_json as _json
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

S = "019c4242-0000-7000-8000-0000000000ea"
#: a total with a counter of no number: not read
BAD = dict(usage(2000, output=200), output_tokens=None)


def _call(index: int, total: dict | None = None) -> dict:
    """A call of 1,000 input and 100 output tokens at second ``10 + index``."""
    return token_count(at(10 + index), total or usage(1000 * index, output=100 * index), usage(1000, output=100))


def _records(ends_on_the_repeat: bool) -> list[dict]:
    calls = [_call(1), _call(2, BAD), _call(2, BAD)] + ([] if ends_on_the_repeat else [_call(3)])
    return [meta(S, at(0)), turn_context(at(1), "gpt-5"), *calls]


@pytest.mark.parametrize("windowed", [False, True], ids=["whole", "window"])
@pytest.mark.parametrize(("ends_on_the_repeat", "expected"), [(False, 3300), (True, 2200)],
                         ids=["call-after", "ends-on-repeat"])
def test_list_tokens_and_show_agree_on_a_repeated_unread_total(isolated_home: Path, monkeypatch: Any,
                                                               ends_on_the_repeat: bool, expected: int,
                                                               windowed: bool) -> None:
    """``window``: the file is larger than ``list``'s tail read, so the row resumes from the
    totals before its window and brings its count up to date by ``runs``."""
    if windowed:
        monkeypatch.setattr(headtail, "TAIL_BYTES", 300)
        monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 200)
    write_rollout(rollout_path(isolated_home / ".codex", S, at(0)), _records(ends_on_the_repeat))
    for args in [(), (), ("--no-cache",)]:  # cold, warm, no cache
        if not (windowed and args):  # (with no index, a row reads its window alone: no whole count)
            assert _json("list", "--all", *args)["sessions"][0]["tokens"]["total"] == expected, args
        tokens = _json("tokens", S, *args)["total"]["total"]
        shown = _json("show", S, *args)["session"]["tokens"]["total"]
        assert (tokens, shown) == (expected, expected), args


def test_the_totals_before_a_window_skip_the_repeat(tmp_path: Path) -> None:
    """``totalseed.seeds_before`` stands where a whole read does after the repeated line."""
    from agentscan.providers.codex.totalseed import seeds_before

    records = _records(ends_on_the_repeat=True)
    path = write_rollout(rollout_path(tmp_path, S, at(0)), records)
    whole = FileUsageScanner(timed=False)
    for record in records:
        whole.feed(record)
    reached = seeds_before(path, path.stat().st_size, model=False, totals=True)[1]
    assert whole.position[1] == (2000, 0, 0, 200, 0, 2200)
    assert reached is not None and reached.previous == whole.position[1]
    assert reached.seen == whole.position[5]
