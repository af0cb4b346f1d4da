"""Where ``show`` places a compaction of the context that has no time (a trimmed or garbled
``timestamp``): among the prompts on the card and among the items in ``--full``, by where it
was read.  A huge Claude transcript shown from its end (``providers.claude.tail``) numbered
its items from the end (below 0) but its compactions after them (from 1 up: ``hugeshow`` added
the kept facts' after the read), so every such compaction stood after the last prompt; read
forward, the same transcript showed it between the prompts it was read between (pass 55).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.bounds import Bounds
from agentscan.cli.show_full import full_lines
from agentscan.cli import show_text
from agentscan.cli.term import Terminal
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import showfacts
from agentscan.toolkit import reverse
from builders import claude_assistant, claude_base, claude_session_file, claude_usage, claude_user, invoke
from claude_events import SESSION, TRANSCRIPT, ts_of
from conftest_hypothesis import FUZZ
from test_show_tail import _detail_both_ways, _home, _reading_order

S = "c0c0c0c0-0000-4000-8000-000000000055"


def _compact(uuid: str, timestamp: str | None) -> dict:
    record = {**claude_base(S, "2026-05-01T10:30:00.000Z", uuid=uuid, parentUuid=None), "type": "system",
              "subtype": "compact_boundary", "compactMetadata": {"trigger": "manual", "preTokens": 4321}}
    if timestamp is None:
        del record["timestamp"]
    else:
        record["timestamp"] = timestamp
    return record


def _reply(ts: str, n: int) -> dict:
    return claude_assistant(S, ts, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(10, 5), uuid=f"a{n}",
                            blocks=[{"type": "text", "text": f"answer {n}"}])


def _session(home: Path, stamp: str | None) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-05-01T10:00:00.000Z", "first task", uuid="u1"),
        _reply("2026-05-01T10:00:05.000Z", 1),
        _compact("c1", stamp),
        claude_user(S, "2026-05-01T11:00:00.000Z", "second task", uuid="u2"),
        _reply("2026-05-01T11:00:05.000Z", 2),
        claude_user(S, "2026-05-01T12:00:00.000Z", "third task", uuid="u3"),
        _reply("2026-05-01T12:00:05.000Z", 3),
    ])


@pytest.mark.parametrize("stamp", [None, "garbled"])
def test_a_compaction_of_no_time_stands_where_it_was_read_from_the_end_too(isolated_home: Path,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            stamp: str | None) -> None:
    _session(isolated_home, stamp)
    small = [invoke("show", S).stdout, invoke("show", S, "--full").stdout, invoke("show", S, "--json").stdout]
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge file is
    huge = [invoke("show", S).stdout, invoke("show", S, "--full").stdout, invoke("show", S, "--json").stdout]
    assert orjson.loads(huge[2])["session"]["compacted"] == 1
    assert huge[:2] == small[:2]
    # (read from its end, the replies taken back are not known: ``retracted_replies`` is null)
    assert huge[2] == small[2].replace('"retracted_replies": 0', '"retracted_replies": null')
    for out in huge[:2]:
        lines = out.splitlines()
        first, mark, second = (next(n for n, line in enumerate(lines) if line.endswith(text))
                               for text in ("  first task", "── context compacted by /compact (4321 tokens before)",
                                            "  second task"))
        assert first < mark < second, out


def _with_compactions(events: list[tuple], places: list[int], stamps: list[bool]) -> list[tuple]:
    """``events`` with a compaction inserted before each event of ``places``; one of no time
    unless its ``stamps`` says (the ``else`` of ``records_of`` writes a record as it is)."""
    out = list(events)
    for n, (place, dated) in enumerate(sorted(zip(places, stamps), reverse=True)):
        record = {"type": "system", "subtype": "compact_boundary", "uuid": f"cb{n}", "sessionId": SESSION,
                  "parentUuid": None, "compactMetadata": {"trigger": "auto", "preTokens": 100 + n}}
        if dated:
            record["timestamp"] = ts_of(place * 2 + 1)  # (between its neighbours' times: ``records_of`` dates by index)
        out.insert(min(place, len(out)), ("compact", record))
    return out


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 150))
@given(events=TRANSCRIPT, places=st.lists(st.integers(0, 60), min_size=1, max_size=3),
       stamps=st.lists(st.booleans(), min_size=3, max_size=3), prompts=st.integers(0, 4), responses=st.integers(0, 5),
       tools=st.integers(0, 6))
def test_the_tail_places_compactions_as_the_forward_read_does(tmp_path_factory: pytest.TempPathFactory,
                                                              monkeypatch: pytest.MonkeyPatch, events, places, stamps,
                                                              prompts, responses, tools) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    monkeypatch.setattr(reverse, "BLOCK", 300)
    events = _with_compactions(events, places, stamps)
    bounds = Bounds(prompts=prompts, responses=responses, tools=tools, message_bytes=200)
    home = _home(tmp_path_factory.mktemp("t"), events, False)
    forward, tail, _, _ = _detail_both_ways(home.parents[3], bounds)
    if tail is None:  # (a call id reused: the facts answer the window's own tool bound only)
        return
    term = Terminal(tty=False, width=100, color=False)
    assert list(full_lines(tail, term)) == list(full_lines(forward, term))
    cards: list[str] = []
    monkeypatch.setattr(show_text, "write_out", cards.append)
    for detail in (tail, forward):
        show_text.print_detail(detail, term)  # (the card and its prompts, where the compactions are marked)
    assert cards[0] == cards[1]
    assert tail.to_json() == forward.to_json()


@pytest.mark.parametrize("events", [
    # read from the end inside the reply's run, which began after it: the reply is newer
    [("prompt", False), ("compact", None), ("text", "m1", False), ("prompt", False), ("text", "m2", False)],
    # the run goes on before it: the reply began before it
    [("prompt", False), ("text", "m1", False), ("compact", None), ("text", "m1", False), ("prompt", False)],
])
def test_a_compaction_inside_a_replys_run_stands_where_it_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   events: list[tuple]) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    events = _with_compactions([e for e in events if e[0] != "compact"],
                               [n for n, e in enumerate(events) if e[0] == "compact"], [False])
    home = _home(tmp_path, events, False)
    forward, tail, _, _ = _detail_both_ways(home.parents[3], Bounds(message_bytes=200))
    assert tail is not None
    term = Terminal(tty=False, width=100, color=False)
    shown = list(full_lines(tail, term))
    assert shown == list(full_lines(forward, term))
    mark = next(n for n, line in enumerate(shown) if "context compacted" in line)
    reply = next(n for n, line in enumerate(shown) if "reply 000" in line and "reply 0000" not in line)  # (m1's)
    assert (mark < reply) == (events[1][0] == "compact"), shown


def _queued(n: int) -> tuple:
    return ("queued", {"type": "attachment", "timestamp": ts_of(n), "uuid": f"q{n}", "sessionId": SESSION,
                       "attachment": {"type": "queued_command", "prompt": f"queued {n}", "commandMode": "prompt"}})


@pytest.mark.parametrize(("events", "prompts"), [
    # typed while a call ran, before the next reply's first record: read forward, the prompt is older
    ([("prompt", False), ("tool", "m1", "t1"), ("result", "t1", False), _queued(3), ("text", "m2", False)], 5),
    # typed inside one reply's run (the run goes on before it): the reply is older
    ([("prompt", False), ("text", "m1", False), _queued(2), ("text", "m1", False)], 5),
    # the read stops at the queued prompt (the one prompt kept), a compaction of no time newer than it
    ([("prompt", False), ("tool", "m1", "t1"), _queued(2), ("compact", None), ("text", "m2", False)], 1),
])
def test_a_prompt_typed_while_a_reply_went_on_keeps_its_place_from_the_end(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch,
                                                                           events: list[tuple], prompts: int) -> None:
    # (each item's ``seq``: ``show --full`` orders items of one time by it, and places a
    # compaction or command of no time among them by it)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(showfacts, "MESSAGE_BYTES", 200)
    events = _with_compactions([e for e in events if e[0] != "compact"],
                               [n for n, e in enumerate(events) if e[0] == "compact"], [False])
    home = _home(tmp_path, events, False)
    bounds = Bounds(prompts=prompts, responses=0 if prompts == 1 else 5, tools=0 if prompts == 1 else 5,
                    message_bytes=200)
    forward, tail, _, _ = _detail_both_ways(home.parents[3], bounds)
    assert tail is not None
    assert [kind for kind, _ in _reading_order(tail)] == [kind for kind, _ in _reading_order(forward)]
    marks = [sorted([*(("c", c["seq"]) for c in d.extra.get("compactions", [])), *(("p", p.seq) for p in d.prompts)],
                    key=lambda pair: pair[1]) for d in (tail, forward)]
    assert [kind for kind, _ in marks[0]] == [kind for kind, _ in marks[1]]
