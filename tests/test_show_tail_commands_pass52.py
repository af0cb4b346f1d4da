"""Which slash commands Claude Code ran itself a ``show`` detail keeps (``toolkit.localcommands``),
read forward and from the end of a huge transcript (``providers.claude.tail``): the same ones,
in the same reading order, without the reader from the end reading the whole file.

The commands no older than the oldest prompt, reply or call kept; every one when the first
of those is kept, or there are none.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.bounds import Bounds
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import showfacts
from agentscan.toolkit import reverse
from builders import backward_reads
from test_show_tail import _detail_both_ways, _home, _reading_order


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)


def _both(tmp_path: Path, events: list[tuple], bounds: Bounds):
    path = _home(tmp_path, events, False)
    forward, tail, _, _ = _detail_both_ways(path.parents[3], bounds)
    assert tail is not None and tail == forward and _reading_order(tail) == _reading_order(forward)
    return path, forward


def _texts(detail) -> list[str]:
    return [command.text for command in detail.local_commands]


@pytest.mark.parametrize(("prompts", "expected"), [
    (0, []),  # nothing kept: nothing to mark them in
    (1, []),  # the one prompt kept is the newest: both commands are older
    (2, ["/model"]),  # the oldest kept prompt is the second: the first command is older than it, not the second
    (3, ["/model", "/model"]),  # the first prompt is kept: the timeline reaches the start
])
def test_the_commands_kept_are_those_the_kept_items_reach(tmp_path: Path, small_limits: None, prompts: int,
                                                          expected: list[str]) -> None:
    events = [("command", "/model"), ("prompt", False), ("prompt", False), ("command", "/model"), ("prompt", False)]
    _, detail = _both(tmp_path, events, Bounds(prompts=prompts, responses=0, tools=0, message_bytes=200))
    assert _texts(detail) == expected


def test_a_session_of_commands_only_keeps_them(tmp_path: Path, small_limits: None) -> None:
    _, detail = _both(tmp_path, [("command", "/model"), ("meta", None), ("command", "/model")],
                      Bounds(prompts=5, responses=5, tools=5, message_bytes=200))
    assert _texts(detail) == ["/model", "/model"]


def test_a_command_inside_a_reply_stands_after_it(tmp_path: Path, small_limits: None) -> None:
    # Read from the end, the command comes before the reply's first record: the reply, numbered
    # at its first record as a forward reading numbers it, is older; the next reply's is newer.
    events = [("prompt", False), ("text", "m1", False), ("command", "/model"), ("text", "m1", False),
              ("command", "/model"), ("text", "m2", False)]
    _, detail = _both(tmp_path, events, Bounds(prompts=0, responses=1, tools=0, message_bytes=200))
    assert _texts(detail) == []  # both are older than the one reply kept (m2)
    _, detail = _both(tmp_path / "two", events, Bounds(prompts=0, responses=2, tools=0, message_bytes=200))
    order = [type(item).__name__ for _, item in _reading_order(detail)]
    assert order == ["Response", "LocalCommand", "LocalCommand", "Response"]


def test_a_long_transcript_of_commands_is_still_read_near_its_end(tmp_path: Path, small_limits: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    events = [("command", "/model"), ("prompt", False), ("text", "m1", False), ("tool", "m1", None)] * 500
    read = backward_reads(monkeypatch)
    path, detail = _both(tmp_path, events, Bounds(prompts=3, responses=3, tools=3, message_bytes=200))
    assert _texts(detail) == ["/model", "/model"]  # the ones after the oldest prompt kept
    assert sum(read) < path.stat().st_size / 10


def test_show_full_places_a_command_of_no_time_where_it_was_read_from_the_end(tmp_path: Path,
                                                                              small_limits: None) -> None:
    from agentscan.cli.show_full import full_lines
    from agentscan.cli.term import Terminal

    events = [("prompt", False), ("text", "m1", False), ("command", "/model"), ("prompt", False),
              ("text", "m2", False)]
    path = _home(tmp_path, events, False)
    lines = path.read_bytes().splitlines(keepends=True)
    record = orjson.loads(lines[2])
    del record["timestamp"]  # (a trimmed one: placed by its reading order)
    lines[2] = orjson.dumps(record) + b"\n"
    path.write_bytes(b"".join(lines))
    bounds = Bounds(prompts=5, responses=5, tools=5, message_bytes=200)
    forward, tail, _, _ = _detail_both_ways(path.parents[3], bounds)
    assert tail is not None and tail == forward and _texts(tail) == ["/model"]
    shown = [list(full_lines(detail, Terminal(tty=False, width=100, color=False))) for detail in (forward, tail)]
    assert shown[0] == shown[1]
    mark = next(n for n, line in enumerate(shown[1]) if "── /model" in line)
    prompts = [n for n, line in enumerate(shown[1]) if line.endswith("  prompt")]
    assert prompts[0] < mark < prompts[1], shown[1]
