"""Claude Code's advisor (2.1.219 on): a call that consults another model (Sonnet asks
Opus) records the advisor's tokens only in ``message.usage.iterations``, as entries of
type ``advisor_message`` with a ``model`` of their own, left out of the top-level counts
(the main model's).  Each is a call of its own, on its model, keyed so that every copy of
its record counts it once; ``message`` entries (the main model's parts) and
``fallback_message`` entries (not billed) never count again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.providers.claude import incremental
from agentscan.providers.claude.dedupe import CallDeduper, packed_entries
from agentscan.providers.claude.usage import call_of
from agentscan.scan.scanner import Scanner
from claude_events import calls_whole_and_by_halves, session_calls_of
from builders import (
    claude_assistant,
    claude_progress,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    cli_json,
)

S = "a3800000-0000-4000-8000-000000000001"
OTHER = "a3800000-0000-4000-8000-000000000002"
MAIN, ADVISOR = "claude-sonnet-4-6", "claude-opus-4-7"


def _at(second: int) -> str:
    return f"2026-08-01T10:00:{second:02d}.000Z"


def _usage(advisor_output: int = 7805, **extra: Any) -> dict:
    """The example of ccusage#1115: the top level is the main model's two parts summed."""
    return {**claude_usage(input=2, output=491, cache_read=226584, cache_write=7853), "iterations": [
        {"type": "message", "input_tokens": 1, "output_tokens": 45, "cache_read_input_tokens": 109696,
         "cache_creation_input_tokens": 7192},
        {"type": "advisor_message", "model": ADVISOR, "input_tokens": 159419, "output_tokens": advisor_output,
         "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
        {"type": "message", "input_tokens": 1, "output_tokens": 446, "cache_read_input_tokens": 116888,
         "cache_creation_input_tokens": 661},
    ], **extra}


def _consulting(second: int = 2, *, session: str = S, msg: str = "msg_1", request: str | None = "req_1",
                usage: dict | None = None, **extra: Any) -> dict:
    return claude_assistant(session, _at(second), msg_id=msg, request_id=request, model=MAIN,
                            usage=_usage() if usage is None else usage, advisorModel=ADVISOR,
                            blocks=[{"type": "text", "text": "Here is the plan."}], uuid=f"a{second}", **extra)


def _by_model(*args: str) -> dict[str, tuple[int, int, int, int]]:
    report = cli_json("tokens", "--by", "model", *args)
    return {row["key"]: tuple(row["tokens"][k] for k in ("input", "cache_read", "cache_write", "output"))
            for row in report["rows"]}


MAIN_TOKENS = (2, 226584, 7853, 491)
ADVISOR_TOKENS = (159419, 0, 0, 7805)


def test_the_advisor_counts_on_its_own_model(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "plan the refactor"), _consulting()])
    assert _by_model() == {MAIN: MAIN_TOKENS, ADVISOR: ADVISOR_TOKENS}
    report = cli_json("tokens")
    assert report["total"]["total"] == sum(MAIN_TOKENS) + sum(ADVISOR_TOKENS)
    costs = {row["key"]: row["cost_usd"] for row in cli_json("tokens", "--by", "model")["rows"]}
    assert costs[ADVISOR] > costs[MAIN] > 0  # (priced at the advisor's rates)
    assert report["cost_usd"] == pytest.approx(costs[ADVISOR] + costs[MAIN])
    assert report["warnings"] == []


def test_message_and_fallback_iterations_never_count_again(isolated_home: Path) -> None:
    usage = _usage()
    usage["iterations"][1] = {"type": "fallback_message", "model": ADVISOR, "input_tokens": 999, "output_tokens": 9}
    claude_session_file(isolated_home, S, [_consulting(usage=usage)])
    assert _by_model() == {MAIN: MAIN_TOKENS}


def test_a_call_that_consulted_no_advisor_is_not_looked_into(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fast path: no ``iterations``, none, or the main model's one part (what real
    # transcripts hold: fixtures/real/claude) never reach ``advisor_calls``.
    from agentscan.providers.claude import usage

    def looked(*args: Any) -> None:
        raise AssertionError("looked into")

    monkeypatch.setattr(usage, "advisor_calls", looked)
    one = [{"type": "message", "input_tokens": 1, "output_tokens": 2}]
    claude_session_file(isolated_home, S, [
        _consulting(2, msg="m1", usage=claude_usage(input=1, output=2)),
        _consulting(3, msg="m2", usage=claude_usage(input=1, output=2, iterations=[])),
        _consulting(4, msg="m3", usage=claude_usage(input=1, output=2, iterations=one)),
    ])
    assert _by_model() == {MAIN: (3, 0, 0, 6)}


def test_every_copy_of_the_record_counts_its_advisor_once(isolated_home: Path) -> None:
    # Streamed as one record per content block (the advisor's output growing in the copies:
    # the largest is kept), and copied into a resumed session's file with its first id.
    claude_session_file(isolated_home, S, [_consulting(2, usage=_usage(advisor_output=10)), _consulting(3),
                                           _consulting(4, usage=_usage(advisor_output=100))])
    claude_session_file(isolated_home, OTHER, [{**_consulting(2), "uuid": "copied"},
                                               claude_user(OTHER, _at(9), "go on", uuid="u9")])
    assert _by_model() == {MAIN: MAIN_TOKENS, ADVISOR: ADVISOR_TOKENS}


def test_another_request_of_the_message_is_another_call(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [_consulting(2), _consulting(3, request="req_2")])
    assert _by_model() == {MAIN: tuple(2 * n for n in MAIN_TOKENS), ADVISOR: tuple(2 * n for n in ADVISOR_TOKENS)}


def test_a_sidechain_replay_loses_with_its_advisor(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [_consulting(2)])
    claude_subagent_file(isolated_home, S, "aside_question", [_consulting(3, request="req_other", sidechain=True)])
    assert _by_model() == {MAIN: MAIN_TOKENS, ADVISOR: ADVISOR_TOKENS}


def test_without_a_message_id_it_counts_as_is(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_assistant(S, _at(2), msg_id=None, request_id=None, model=MAIN, usage=_usage(), advisorModel=ADVISOR),
    ])
    assert _by_model() == {MAIN: MAIN_TOKENS, ADVISOR: ADVISOR_TOKENS}


def test_an_iteration_without_a_model_is_the_records_advisor_model(isolated_home: Path) -> None:
    usage = _usage()
    del usage["iterations"][1]["model"]
    usage["iterations"][1]["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 40}
    usage["iterations"][1]["cache_creation_input_tokens"] = 50
    claude_session_file(isolated_home, S, [_consulting(usage=usage)])
    assert _by_model()[ADVISOR] == (159419, 0, 50, 7805)
    calls, _ = session_calls_of(isolated_home)
    (advisor,) = [entry for entry in packed_entries(calls, S) if entry[3] == ADVISOR]
    assert advisor[11] == 40  # (the one-hour cache write: priced at its own rate)


def _subagent_call(second: int) -> dict:
    return _consulting(second, msg="msg_sub", request="req_sub", sidechain=True, agentId="a1b2c3d")


def test_a_subagents_advisor_is_the_subagents(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "delegate"),
                                           claude_progress(S, _at(5), "a1b2c3d", _subagent_call(4))])
    claude_subagent_file(isolated_home, S, "a1b2c3d", [_subagent_call(4)])
    report = cli_json("tokens")
    assert report["total"]["total"] == sum(MAIN_TOKENS) + sum(ADVISOR_TOKENS)  # (the progress copy counts nothing more)
    assert report["rows"][0]["own"] is None or report["rows"][0]["own"]["total"] == 0
    assert sum(sub["tokens"]["total"] for sub in report["rows"][0]["subagents"]) == sum(MAIN_TOKENS) + sum(ADVISOR_TOKENS)


def test_a_progress_copy_alone_counts_its_advisor_for_the_subagent(isolated_home: Path) -> None:
    # The subagent's file is gone: its calls count from the parent's progress copies.
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "delegate"),
                                           claude_progress(S, _at(5), "a1b2c3d", _subagent_call(4)),
                                           claude_progress(S, _at(6), "a1b2c3d", _subagent_call(4))])
    assert _by_model() == {MAIN: MAIN_TOKENS, ADVISOR: ADVISOR_TOKENS}
    calls, _ = session_calls_of(isolated_home)
    assert {(entry[1], entry[3]) for entry in packed_entries(calls, S)} == {("a1b2c3d", MAIN), ("a1b2c3d", ADVISOR)}


_BAD_ITERATIONS = [
    ({"type": "advisor_message"}, "usage value is not a token count: iterations is {'type': 'advisor_message'}, counted as 0"),
    ([1, {"type": "message", "input_tokens": -5}], "usage value is not a token count: iterations[0] is 1, counted as 0"),
    ([{"type": "message"}, {"type": "advisor_message", "model": ADVISOR, "input_tokens": -3, "output_tokens": 4}],
     "usage value is not a token count: iterations[1].input_tokens is -3, counted as 0"),
    ([{"type": "message"}, {"type": "advisor_message", "model": ADVISOR, "input_tokens": "12", "output_tokens": 4}],
     "usage value is not a token count: iterations[1].input_tokens is '12', counted as 0"),
    ([{"type": "message"}, {"type": "advisor_message", "model": ADVISOR, "input_tokens": True, "output_tokens": 4}],
     "usage value is not a token count: iterations[1].input_tokens is True, counted as 0"),
    ([{"type": "message", "input_tokens": 1}, {"type": "advisor_message", "model": ADVISOR, "output_tokens": 2.5}],
     "usage value is not a token count: iterations[1].output_tokens is 2.5, counted as 2"),
]


@pytest.mark.parametrize(("iterations", "said"), _BAD_ITERATIONS)
def test_malformed_iterations_warn_and_leave_the_main_call(isolated_home: Path, iterations: Any, said: str) -> None:
    usage = {**claude_usage(input=2, output=491, cache_read=226584, cache_write=7853), "iterations": iterations}
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "plan"), _consulting(usage=usage)])
    by_model = _by_model()
    assert by_model[MAIN] == MAIN_TOKENS
    assert set(by_model) - {MAIN} <= {ADVISOR} and by_model.get(ADVISOR, (0, 0, 0, 4))[:3] == (0, 0, 0)
    assert by_model.get(ADVISOR, (0, 0, 0, 4))[3] in (2, 4)
    warnings = cli_json("tokens")["warnings"]
    assert [(w["message"], w["line"]) for w in warnings if "iterations" in w["message"]] == [
        (next(w["message"] for w in warnings if said in w["message"]), 2)]


def _totals(*args: str) -> tuple[dict, list]:
    report = cli_json("tokens", "--by", "model", *args)
    return ({row["key"]: row["tokens"] for row in report["rows"]},
            sorted((w["message"], w["line"]) for w in report["warnings"]))


def test_cold_warm_no_cache_and_resumed_reads_agree(isolated_home: Path) -> None:
    bad = {**claude_usage(input=1, output=1), "iterations": "broken"}
    path = claude_session_file(isolated_home, S, [claude_user(S, _at(1), "plan"), _consulting(2),
                                                  _consulting(3, msg="msg_bad", request="req_bad", usage=bad)])
    cold = _totals()
    assert cold[0][ADVISOR]["output"] == 7805 and len(cold[1]) == 1
    assert _totals() == cold == _totals("--no-cache")
    # The session goes on: the cached read resumes after what it read (``incremental``).
    with path.open("ab") as handle:
        for record in (claude_user(S, _at(10), "again", uuid="u10"), _consulting(11, msg="msg_2", request="req_2"),
                       _consulting(12, msg="msg_bad2", request="req_bad2", usage=bad)):
            handle.write(orjson.dumps(record) + b"\n")
    resumed, fresh = _totals(), _totals("--no-cache")
    assert resumed == fresh
    assert resumed[0][ADVISOR]["output"] == 2 * 7805
    # One warning for the file, its count going on from the kept read's (``valuewarnings``).
    assert resumed[1] == [("usage value is not a token count: iterations is 'broken', counted as 0 "
                           "(the first of 2 such values in this file)", 3)]
    assert _totals() == fresh  # (warm again)




def test_a_resume_state_keeps_the_advisor_calls(isolated_home: Path) -> None:
    path = claude_session_file(isolated_home, S, [_consulting(2)])
    calls, state = session_calls_of(isolated_home)
    assert state is not None and orjson.loads(state)["v"] == incremental.VERSION
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_consulting(5, msg="msg_2", request="req_2")) + b"\n")
    resumed, _ = session_calls_of(isolated_home, state)
    whole, _ = session_calls_of(isolated_home)
    assert resumed == whole and len(whole) == 4


def test_the_halves_read_finds_them_as_the_one_pass(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records: list = [claude_user(S, _at(1), "plan")]
    bad = {**claude_usage(input=1, output=1), "iterations": [7, {"type": "message"}]}
    for n in range(40):
        records.append(_consulting(2 + n % 50, msg=f"msg_{n}", request=f"req_{n}", usage=bad if n in (3, 30) else None))
    claude_session_file(isolated_home, S, records)

    whole, halves = calls_whole_and_by_halves(isolated_home, monkeypatch)
    assert halves == whole
    assert len(whole[0]) == 38 * 2 + 2 and whole[2] == [
        ("usage value is not a token count: iterations[0] is 7, counted as 0 (the first of 2 such values in this file)", 5)]


def test_a_pass_without_advisors_counts_the_main_calls_alone() -> None:
    # ``call_of`` without an ``Advisors``: the callers that have not asked for them.
    from agentscan.providers.claude.usage import Advisors

    record = _consulting()
    assert call_of(record, None, 0) == call_of(record, None, 0, advisors=Advisors())


def test_drain_hands_over_the_calls_and_the_problems_are_told_once_a_file(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.usage import Advisors
    from agentscan.toolkit.valuewarnings import close_tally, open_tally

    usage = _usage()
    usage["iterations"].append("not an object")
    advisors, taken = Advisors(), []
    ctx = ScanContext.create(home=tmp_path, env={})
    with ctx.warnings.capture() as captured:
        tally = open_tally("t.jsonl", ctx)  # (as the file's reader opens it: ``valuewarnings``)
        tally.line = 7
        call_of(_consulting(usage=usage), None, 0, advisors=advisors)
        advisors.drain(taken.append)
        close_tally(tally, finished=True)
    assert [call[9] for call in taken] == [ADVISOR] and not advisors
    assert [(w.path, w.message, w.line) for w in captured] == [
        ("t.jsonl", "usage value is not a token count: iterations[3] is 'not an object', counted as 0", 7)]


def test_the_row_sums_can_take_them_as_tokens_does() -> None:
    """A row's pass (``WindowedTotals``) fed each call and its advisor's (``Advisors.drain``)
    sums what ``tokens`` keeps: the same groups, so the same cost."""
    from agentscan.providers.claude.usage import Advisors
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.scan.sessionsums import sums_of

    records = [_consulting(2, usage=_usage(advisor_output=10)), _consulting(3), _consulting(4, request="req_2"),
               _consulting(5, msg="msg_s", sidechain=True, request="req_x")]
    advisors, windowed, exact, calls = Advisors(), WindowedTotals(), CallDeduper(), []
    for order, record in enumerate(records):
        call = call_of(record, None, order, advisors=advisors)
        assert call is not None
        found = [call]
        advisors.drain(found.append)
        for one in found:
            windowed.add(one)
        calls += found
    exact.add_all(calls)
    assert sorted(windowed.groups(set()), key=repr) == sorted(sums_of(packed_entries(exact.winners(), S)), key=repr)


# --- ``list`` and ``show``: a row's own pass (``row.summarize``, ``sidepass``) -------------
# They need the change to ``row.py``/``sidepass.py``/``sidechains.py`` that hands each call's
# advisor calls to the row's sums (``Advisors.drain``): until it lands they fail (strict xfail).


def _row_and_tokens(home: Path) -> tuple[Any, Any, dict]:
    from agentscan.model import TokenUsage

    (row,) = Scanner(home=home, provider_names=["claude"]).list_sessions()
    detail = Scanner(home=home, provider_names=["claude"]).show(S)
    report = cli_json("tokens")
    total = TokenUsage(**{k: report["total"][k] for k in ("input", "cache_read", "cache_write", "output")})
    return row, detail, {"tokens": total, "cost": report["cost_usd"]}


@pytest.mark.parametrize("split", [False, True])
def test_list_and_show_count_the_advisor_as_tokens_does(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         split: bool) -> None:
    from claude_events import split_huge_passes

    split_huge_passes(monkeypatch, split)  # (a huge transcript's sums: added up by a side pass)
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "plan"), _consulting(2), _consulting(3),
                                           claude_progress(S, _at(5), "a1b2c3d", _subagent_call(4))])
    row, detail, tokens = _row_and_tokens(isolated_home)
    assert tokens["tokens"].input == 2 * 159419 + 4
    assert row.tokens == detail.row.tokens == tokens["tokens"]
    (listed,) = cli_json("list")["sessions"]
    assert listed["cost_usd"] == pytest.approx(tokens["cost"])


def test_a_rows_resumed_pass_counts_an_appended_advisor(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_events import lower_row_limits

    lower_row_limits(monkeypatch)  # (a row's resume state kept, the window settled: as a huge one's)
    path = claude_session_file(isolated_home, S, [claude_user(S, _at(1), "plan"), _consulting(2)])
    first, _, _ = _row_and_tokens(isolated_home)
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_consulting(7, msg="msg_2", request="req_2")) + b"\n")
    row, detail, tokens = _row_and_tokens(isolated_home)
    assert first.tokens is not None and first.tokens.input == 159419 + 2
    assert row.tokens == detail.row.tokens == tokens["tokens"]
    assert tokens["tokens"].input == 2 * (159419 + 2)
