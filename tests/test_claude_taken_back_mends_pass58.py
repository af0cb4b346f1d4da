"""Pass 58, final read mends: a rewind past replies taken back (``retractions``) that the
bound had pushed out gives back exactly those after its mark (``NewestKept.take_back``); a
huge transcript shown from its end does not know how many replies were taken back
(``retracted_replies``: ``None``), and says where a resumed session that moved started as the
forward read does (``moved_from``: ``FileSummary.moved_from``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json
from typer.testing import CliRunner

from agentscan.bounds import Bounds, NewestKept
from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.toolkit.detail import DetailCollector


class _Naive:
    """Every item added, in order, each ``[value, taken back, pushed out]``: what
    ``NewestKept`` should answer, with nothing forgotten."""

    def __init__(self, limit: int) -> None:
        self.limit, self.all = limit, []  # type: ignore[var-annotated]

    def add(self, value: int) -> None:
        self.all.append([value, False, False])
        live = [entry for entry in self.all if not entry[2]]
        if len(live) > self.limit:
            live[0][2] = True

    def revise(self, target: int, delete: bool) -> bool:
        for entry in self.all:
            if not entry[2] and not entry[1] and entry[0] % 1000 == target:
                if delete:
                    entry[1] = True
                    return True
                entry[0] += 1000
                return False
        return False

    def take_back(self, count: int) -> int:
        gone = self.all[len(self.all) - count:] if count else []
        del self.all[len(self.all) - len(gone):]
        return sum(1 for entry in gone if entry[1])

    def state(self) -> tuple:
        return ([entry[0] for entry in self.all if not entry[2] and not entry[1]],
                sum(1 for entry in self.all if entry[2] and not entry[1]),
                sum(1 for entry in self.all if entry[2] and entry[1]), len(self.all))


def test_newest_kept_agrees_with_a_list_of_every_item() -> None:
    """Random adds, revisions (most take the item back) and rewinds at small bounds: the kept
    items, ``dropped``, ``taken``, ``position`` and what ``take_back`` returns are the naive
    list's, rewinds past taken-back items pushed out of the bound included."""
    for trial in range(3000):
        rnd = random.Random(trial)
        limit = rnd.choice([0, 1, 2, 3, 5])
        kept: NewestKept[int] = NewestKept(limit)
        naive, following, steps = _Naive(limit), 0, []
        for _ in range(rnd.randint(1, 25)):
            pick = rnd.random()
            if pick < 0.55:
                kept.add(following)
                naive.add(following)
                steps.append(f"add {following}")
                following += 1
            elif pick < 0.8:
                target, delete = rnd.randrange(max(following, 1)), rnd.random() < 0.8
                steps.append(f"revise {target} delete={delete}")
                got = kept.revise(lambda item, t=target: item % 1000 == t, None if delete else (lambda item: item + 1000))
                assert got == naive.revise(target, delete), steps
            else:
                count = rnd.randint(0, naive.state()[3])
                steps.append(f"take_back {count}")
                assert kept.take_back(count) == naive.take_back(count), (limit, steps)
            assert (kept.items(), kept.dropped, kept.taken, kept.position()) == naive.state(), (limit, steps)


def test_a_rewind_past_a_retracted_reply_pushed_out_counts_it_once() -> None:
    """r1 r2, the mark, r3 r4, r3 taken back, r5 r6 (r3's place and r4 pushed out), back to
    the mark: r4-r6 rewound, r3 retracted, r1 r2 dropped (the bound), none left ``taken``."""
    collector = DetailCollector(Bounds(prompts=10, responses=2))
    collector.add_response("r1", seq=1)
    collector.add_response("r2", seq=2)
    mark = collector.mark()
    collector.add_response("r3", seq=3)
    collector.add_response("r4", seq=4)
    collector.revise_response(3, None)
    collector.add_response("r5", seq=5)
    collector.add_response("r6", seq=6)
    collector.rewind(mark)
    assert (collector.retracted, collector.rewound) == (1, 3)
    assert (collector.responses.dropped, collector.responses.taken, collector.responses.position()) == (2, 0, 2)


S = "5e7ac7ed-5858-4000-8000-0000000000d1"


def _at(second: int) -> str:
    return f"2026-07-12T20:00:{second:02d}.000Z"


def test_a_huge_transcript_read_from_its_end_does_not_claim_no_reply_was_taken_back(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from its end, a refused partial is listed as written (its retraction comes later in
    the file): ``retracted_replies`` is ``null`` (not known), and the card has no ``replies``
    line, where the forward read counts one."""
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(0), "go", uuid="u0"),
        claude_assistant(S, _at(1), msg_id="msg_1", request_id="req_1", usage=claude_usage(200, 20),
                         blocks=[{"type": "text", "text": "a refused partial"}], uuid="a1", parentUuid="u0"),
        {"type": "system", "subtype": "api_refusal", "sessionId": S, "uuid": "s1", "timestamp": _at(2),
         "retractedMessageUuids": ["a1"], "content": "refused", "cwd": "/tmp"},
        claude_assistant(S, _at(3), msg_id="msg_2", request_id="req_2", usage=claude_usage(300, 30),
                         blocks=[{"type": "text", "text": "the answer"}], uuid="a2", supersedesUuids=["a1"]),
    ])
    assert cli_json("show", S, "--no-cache")["session"]["retracted_replies"] == 1
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)  # a huge transcript's read from its end
    cli_json("list", "--all")  # the row's pass keeps the facts the end-first read needs
    shown = cli_json("show", S)["session"]
    assert [response["text"] for response in shown["responses"]] == ["a refused partial", "the answer"]
    assert "retracted_replies" in shown and shown["retracted_replies"] is None
    card = CliRunner().invoke(app, ["show", S]).output
    assert "the answer" in card and "taken back" not in card


def test_a_resumed_session_that_moved_says_where_it_started_read_either_way(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed file (the earlier session's records copied at its head) that moved: its first
    own record's directory is where it started, read forward or from its end."""
    a, b = "aaaaaaaa-5858-4000-8000-0000000000d2", "bbbbbbbb-5858-4000-8000-0000000000d3"
    head = [claude_user(a, _at(0), "first", uuid="u0", cwd="/w/old"),
            claude_assistant(a, _at(1), msg_id="m1", request_id="r1", usage=claude_usage(100, 10), uuid="a1",
                             parentUuid="u0", cwd="/w/old")]
    claude_session_file(isolated_home, a, head, project="-w-old")
    claude_session_file(isolated_home, b, [
        *head,
        claude_user(b, _at(10), "resumed", uuid="u2", parentUuid="a1", cwd="/w/old"),
        claude_assistant(b, _at(11), msg_id="m2", request_id="r2", usage=claude_usage(100, 10), uuid="a2", cwd="/w/old"),
        {"type": "relocated", "sessionId": b, "relocatedCwd": "/w/new"},
    ], project="-w-old")
    assert cli_json("show", b, "--no-cache")["session"]["moved_from"] == "/w/old"
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    ref = next(ref for ref in provider.discover(ctx) if ref.native_id == b)
    assert provider.shows_from_row(ref, ctx)
    tail = provider.detail_with_row(ref, ctx, Bounds(), provider.row(ref, ctx))
    assert tail is not None and tail.extra["moved_from"] == "/w/old"
