"""A huge transcript's sums and show facts, added up on the second core (``sidepass``).

Whatever the transcript holds, the row, the ``show`` detail (from the end,
with the facts the row's pass kept), a later resumed pass and the warnings
must be those of the one pass that feeds every consumer itself; and when
the helper cannot answer for what this process read (no fork, a helper
gone, a file appended to during the pass), a silent second pass here gives
them.  The tests lower every threshold, so small files are split, keep
states and settle calls out of the window.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.providers.claude import row as row_module
from agentscan.providers.claude import rowresume, sidepass, windowed
from agentscan.toolkit import cores, helperproc, workers
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from claude_events import (AGENT, SESSION, TRANSCRIPT, lines_of, lower_row_limits, no_halves, qa_turns, records_of,
                           split_huge_passes, ts_of)
from conftest_hypothesis import FUZZ
from spies import record_calls

BOUNDS = Bounds(prompts=3, responses=4, tools=5, message_bytes=200)


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch, helper=True)
    no_halves(monkeypatch)  # the side pass itself (the halves' tests: test_halves.py)


def _env(tmp_path: Path, cache: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}


def _extras() -> list:
    """What the generated events lack: a subagent's calls copied into progress records,
    and a sidechain replay of a parent call under another request."""
    copied = claude_assistant(SESSION, ts_of(90), msg_id="s1", request_id="rs1", usage=claude_usage(input=5, output=1),
                              blocks=[{"type": "text", "text": "sub answer"}], sidechain=True, agentId=AGENT)
    return [
        {"type": "progress", "timestamp": ts_of(91), "uuid": "p1",
         "data": {"type": "agent_progress", "agentId": "agone01", "message": {**copied, "agentId": "agone01"}}},
        claude_assistant(SESSION, ts_of(92), msg_id="m1", request_id="other", usage=claude_usage(input=7, output=3),
                         blocks=[{"type": "text", "text": "replayed"}], sidechain=True, uuid="replay"),
    ]


def _home(tmp_path: Path, records: list, subagent: bool) -> Path:
    home = tmp_path / "home"
    path = claude_session_file(home, SESSION, [])
    path.write_bytes(lines_of(records))
    if subagent:
        claude_subagent_file(home, SESSION, AGENT, [
            claude_user(SESSION, ts_of(1), "sub task", sidechain=True, agentId=AGENT),
            claude_assistant(SESSION, ts_of(2), msg_id="s1", request_id="rs1", usage=claude_usage(input=5, output=1),
                             blocks=[{"type": "text", "text": "sub answer"}], sidechain=True, agentId=AGENT),
        ])
    return path


def _seen(env: dict[str, str], *, cache: bool = True) -> tuple:
    """The session's row, its ``show`` and the warnings, from one scan."""
    with Scanner(env=env, use_cache=cache) as scanner:
        row = scanner.all_rows()[0]
        detail = scanner.show(SESSION, bounds=BOUNDS)
        return row.to_json(), detail.to_json(), sorted(map(str, scanner.ctx.warnings.items))


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 60))
@given(events=TRANSCRIPT, subagent=st.booleans(), keep=st.booleans(), grow=st.integers(0, 6))
def test_the_split_pass_gives_what_one_pass_gives(tmp_path_factory: pytest.TempPathFactory, small_limits: None,
                                                  events, subagent, keep, grow) -> None:
    tmp_path = tmp_path_factory.mktemp("s")
    records = records_of(events) + _extras()
    path = _home(tmp_path, records, subagent)
    with pytest.MonkeyPatch.context() as example:  # spies of this example only
        example.setattr(rowresume, "MAX_BYTES", 1 << 40 if keep else -1)  # with a resume state (stable hashes) or none
        here = record_calls(example, sidepass, "side_pass", lambda *args, **kwargs: "here")
        taken = record_calls(example, sidepass.SidePass, "take", lambda *args: "taken")
        sums_only = record_calls(example, windowed.WindowedTotals, "from_settled", lambda *args, **kwargs: "sums")
        whole = record_calls(example, windowed.WindowedTotals, "unpacked", lambda *args, **kwargs: "whole")
        split_huge_passes(example, True)
        split = _seen(_env(tmp_path, "split"))
        assert taken and not here  # the helper answered for every main transcript's pass
        # Its window and settled hashes taken back only for what needs them: a subagent's calls
        # joining the totals, a resume state keeping them; else the sums alone.
        assert (bool(whole), bool(sums_only)) == ((True, False) if subagent or keep else (False, True))
        split_huge_passes(example, False)
        assert split == _seen(_env(tmp_path, "one"))
        assert split == _seen(_env(tmp_path, "none"), cache=False)
        if grow:  # a pass resumed from a state the helper's sums made
            with path.open("ab") as handle:
                handle.write(lines_of(records_of(events[:grow])))
            split_huge_passes(example, True)
            assert _seen(_env(tmp_path, "split")) == _seen(_env(tmp_path, "fresh"), cache=False)


def _transcript(turns: int) -> list:
    return [b"{oops", *qa_turns(turns), *_extras()]  # a warning, said once


def _one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple:
    with pytest.MonkeyPatch.context() as sequential:
        split_huge_passes(sequential, False)
        return _seen(_env(tmp_path, "one"), cache=False)


def test_a_helper_gone_is_a_second_pass_here(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(tmp_path, _transcript(30), subagent=True)

    def gone(self: helperproc.Helper) -> None:
        self.stop()
        raise helperproc.HelperGone("killed")

    monkeypatch.setattr(helperproc.Helper, "receive", gone)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    split_huge_passes(monkeypatch, True)
    seen = _seen(_env(tmp_path, "split"))
    assert here == ["here"]  # the main transcript's sums, added up again here
    assert seen == _one_pass(tmp_path, monkeypatch)
    assert sum("invalid JSON" in warning for warning in seen[2]) == 1


@pytest.mark.parametrize("subagent", [False, True], ids=["sums alone", "whole totals"])
def test_an_answer_that_does_not_read_back_is_a_second_pass_here(tmp_path: Path, small_limits: None,
                                                                 monkeypatch: pytest.MonkeyPatch, subagent: bool) -> None:
    """A helper's answer damaged on the way (a bug of ours: it is our own child) costs a second
    pass here, not the session ("could not read this session")."""
    _home(tmp_path, _transcript(30), subagent=subagent)
    receive = helperproc.Helper.receive

    def damaged(self: helperproc.Helper) -> object:
        answer = receive(self)
        return (b"not json", *answer[1:]) if not subagent else ((b"{}", b""), *answer[1:])

    monkeypatch.setattr(helperproc.Helper, "receive", damaged)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    split_huge_passes(monkeypatch, True)
    seen = _seen(_env(tmp_path, "split"))
    assert here and set(here) == {"here"}  # the main transcript's sums, added up again here
    assert seen == _one_pass(tmp_path, monkeypatch)
    assert not any("could not read" in warning for warning in seen[2])


def test_no_fork_is_a_second_pass_here(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(tmp_path, _transcript(30), subagent=False)

    def refused(self: helperproc.Helper) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(helperproc.Helper, "start", refused)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    split_huge_passes(monkeypatch, True)
    assert _seen(_env(tmp_path, "split")) == _one_pass(tmp_path, monkeypatch)
    assert here == ["here"]


def test_a_transcript_appended_to_during_the_pass_is_added_up_here(tmp_path: Path, small_limits: None,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = _home(tmp_path, _transcript(30), subagent=False)
    summarize = row_module.summarize

    def appending(file: Path, *args, **kwargs):
        if file == path:  # after the helper started: it may or may not read the new lines
            with path.open("ab") as handle:
                handle.write(lines_of([claude_user(SESSION, ts_of(500), "one more", uuid="late")]))
        return summarize(file, *args, **kwargs)

    monkeypatch.setattr(row_module, "summarize", appending)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    split_huge_passes(monkeypatch, True)
    with Scanner(env=_env(tmp_path, "split"), use_cache=False) as scanner:
        seen = scanner.all_rows()[0].to_json()
    assert here in ([], ["here"])  # the helper's sums stand when it read what this pass read
    monkeypatch.setattr(row_module, "summarize", summarize)
    assert seen == _one_pass(tmp_path, monkeypatch)[0]  # the row of what this pass read: the grown file


def test_a_transcript_replaced_during_the_pass_is_added_up_here(tmp_path: Path, small_limits: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _home(tmp_path, _transcript(30), subagent=False)
    summarize = row_module.summarize

    def replacing(file: Path, *args, **kwargs):
        summary = summarize(file, *args, **kwargs)
        if file == path:  # the same bytes, another file: what the helper read cannot be told apart
            other = path.with_suffix(".new")
            other.write_bytes(path.read_bytes())
            os.replace(other, path)
        return summary

    monkeypatch.setattr(row_module, "summarize", replacing)
    here = record_calls(monkeypatch, sidepass, "side_pass", lambda *args, **kwargs: "here")
    split_huge_passes(monkeypatch, True)
    with Scanner(env=_env(tmp_path, "split"), use_cache=False) as scanner:
        seen = scanner.all_rows()[0].to_json()
    assert here == ["here"]
    monkeypatch.setattr(row_module, "summarize", summarize)
    assert seen == _one_pass(tmp_path, monkeypatch)[0]


def test_only_a_file_appended_to_is_the_one_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    before = os.stat(path)
    assert sidepass.only_appended(path, before)
    with path.open("ab") as handle:
        handle.write(b'{"b": 2}\n')
    assert sidepass.only_appended(path, before)  # grown: what was read is still there
    os.truncate(path, 3)
    assert not sidepass.only_appended(path, before)  # cut
    other = tmp_path / "u.jsonl"
    other.write_bytes(b'{"a": 1}\n' * 3)
    os.replace(other, path)
    assert not sidepass.only_appended(path, before)  # another file
    path.unlink()
    assert not sidepass.only_appended(path, before)


def test_no_helper_while_workers_hold_the_cores(tmp_path: Path, small_limits: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    seen_busy = []
    for index, ok, result in workers.run_parallel(lambda index: index * 10, [[0], [1]], 2,
                                                  meanwhile=lambda: seen_busy.append(workers.busy()) and False):
        assert ok and result == index * 10
        seen_busy.append(workers.busy())
    assert seen_busy and all(seen_busy) and not workers.busy()  # while the pool works, and not after
    path = _home(tmp_path, _transcript(30), subagent=False)
    before = os.stat(path)
    split_huge_passes(monkeypatch, True)
    assert sidepass.SidePass.worth_it(path, ScanContext.create(home=tmp_path), before, False) is not None
    monkeypatch.setattr(cores, "busy", lambda: True)  # a row read here while workers read others
    assert sidepass.SidePass.worth_it(path, ScanContext.create(home=tmp_path), before, False) is None


def test_settled_totals_are_the_sums_a_row_takes_and_take_no_more_calls() -> None:
    """``WindowedTotals.settled``: what a side pass's helper hands back when no call will join
    its totals: the same total, subagents, groups and exactness as the totals themselves,
    exact or not (a window of two settles calls), and a few bytes where the whole is not."""
    from agentscan.providers.claude.usage import call_of

    for window in (None, 2):
        totals = windowed.WindowedTotals(window)
        for order, (msg, request, agent) in enumerate([("m1", "r1", None), ("m2", "r2", None), ("m2", "r2", None),
                                                        ("m3", "r3", "a1"), ("m4", None, None), ("m5", "r5", None)]):
            record = claude_assistant(SESSION, ts_of(order), msg_id=msg, request_id=request,
                                      usage=claude_usage(input=order + 1, output=2 * order + 1, cache_read=100 * order))
            call = call_of(record, agent, order)
            assert call is not None
            totals.add(call)
        body = totals.settled()
        back = windowed.WindowedTotals.from_settled(body, stable=False)
        assert (back.total(), back.by_subagent(), back.own(), back.exact) == (totals.total(), totals.by_subagent(),
                                                                              totals.own(), totals.exact)
        assert back.groups({"a1"}) == totals.groups({"a1"}) and back.groups(set()) == totals.groups(set())
        assert totals.exact is (window is None)
        assert len(body) < len(totals.packed()[0]) + len(totals.packed()[1])
        with pytest.raises(TypeError):
            back.add(call)
        with pytest.raises(TypeError):
            back.packed()
    with pytest.raises(ValueError):
        windowed.WindowedTotals.from_settled(b'{"sums": [["x"]], "exact": true}', stable=False)
    with pytest.raises(ValueError):
        windowed.WindowedTotals.from_settled(b'{"sums": [], "exact": 1}', stable=False)
