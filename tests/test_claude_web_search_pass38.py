"""Claude Code's hosted web searches: ``message.usage.server_tool_use.web_search_requests``
counts the searches a call ran, which Anthropic bills at $10 per 1,000 beside the call's
tokens (genai-prices: ``web_searches_kcount``).  They are no tokens (the token totals do not
move) but every cost counts them: ``tokens`` (any ``--by``), ``list``, ``show``, ``export``,
cold, warm, without the cache, resumed and read by halves alike.  A count travels with its
call, so the copy dedupe keeps is the one priced; ``web_fetch_requests`` is free."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.providers.claude import incremental
from agentscan.providers.claude.dedupe import packed_entries
from agentscan.providers.claude.usage import C_WEB_SEARCHES, Advisors, call_of
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

S = "a3900000-0000-4000-8000-000000000001"
PLAIN = "a3900000-0000-4000-8000-000000000002"
MODEL, ADVISOR = "claude-sonnet-4-6", "claude-opus-4-7"
#: Anthropic's price of one web search (genai-prices 0.2.5: $10 per thousand)
SEARCH = 0.01


def _at(second: int) -> str:
    return f"2026-08-01T10:00:{second:02d}.000Z"


def _usage(searches: object = 0, *, output: int = 100, fetches: int = 0, **extra: Any) -> dict:
    return {**claude_usage(input=1000, output=output, cache_read=5000, cache_write=300),
            "server_tool_use": {"web_search_requests": searches, "web_fetch_requests": fetches}, **extra}


def _call(second: int, searches: object = 0, *, session: str = S, msg: str = "msg_1", request: str | None = "req_1",
          usage: dict | None = None, **extra: Any) -> dict:
    if session != S:  # (another session's own calls: the same ids would make them one call)
        msg, request = f"{msg}-{session[-2:]}", None if request is None else f"{request}-{session[-2:]}"
    return claude_assistant(session, _at(second), msg_id=msg, request_id=request, model=MODEL,
                            usage=_usage(searches) if usage is None else usage,
                            blocks=[{"type": "text", "text": "Found it."}], uuid=f"{session[-2:]}a{second}", **extra)


def _pair(home: Path, searched: list[dict], plain: list[dict]) -> None:
    """``S`` with ``searched``, and ``PLAIN`` with the same calls, searching nothing."""
    claude_session_file(home, S, [claude_user(S, _at(1), "look it up"), *searched])
    claude_session_file(home, PLAIN, [claude_user(PLAIN, _at(1), "look it up", uuid="pu1"), *plain])


def _sessions(*args: str) -> dict[str, dict]:
    report = cli_json("tokens", "--by", "session", *args)
    return {row["key"].split(":", 1)[1]: row for row in report["rows"]}


def _extra(rows: dict[str, dict]) -> float:
    """What ``S`` costs beyond ``PLAIN``."""
    return rows[S]["cost_usd"] - rows[PLAIN]["cost_usd"]


def test_a_calls_web_searches_add_their_price_not_tokens(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, 3), _call(3, 0, msg="msg_2", request="req_2")],
          [_call(2, 0, session=PLAIN), _call(3, 0, session=PLAIN, msg="msg_2", request="req_2")])
    rows = _sessions()
    assert rows[S]["tokens"] == rows[PLAIN]["tokens"]  # (no token moved)
    assert _extra(rows) == pytest.approx(3 * SEARCH, abs=1e-12)
    report = cli_json("tokens")
    assert report["cost_usd"] == pytest.approx(rows[S]["cost_usd"] + rows[PLAIN]["cost_usd"], abs=1e-12)
    assert report["warnings"] == []


def test_web_fetches_are_free(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, usage=_usage(0, fetches=5))], [_call(2, 0, session=PLAIN)])
    assert _extra(_sessions()) == pytest.approx(0, abs=1e-12)


def test_the_cost_is_exact() -> None:
    """Priced as the 1-hour cache write is: the library's coefficient, in exact decimals."""
    from agentscan.context import ScanContext
    from agentscan.model import TokenUsage, UsageEntry
    from agentscan.pricing.book import PriceBook
    from agentscan.pricing.spend import Spend

    ctx = ScanContext.create(env={})
    book = PriceBook(ctx)
    ts = 1_785_000_000.0
    key = book.key("claude", MODEL, ts, 0)
    spend, bare = Spend(), Spend()
    for searches in (7, 0, 1):
        tokens = TokenUsage(input=0)
        spend.add(UsageEntry(S, tokens, model=MODEL, web_searches=searches).pack(), key)
        bare.add(UsageEntry(S, tokens, model=MODEL).pack(), key)
    assert spend.cost(book) - bare.cost(book) == Decimal("0.08")  # type: ignore[operator]
    assert spend.tokens() == bare.tokens()


def test_every_copy_of_the_call_counts_its_searches_once(isolated_home: Path) -> None:
    # Streamed as one record per content block, the count growing with the copies (the
    # largest is kept), and copied into a resumed session's file with its first id.
    _pair(isolated_home, [_call(2, usage=_usage(0, output=10)), _call(3, usage=_usage(2, output=50)),
                          _call(4, usage=_usage(2, output=100))],
          [_call(2, 0, session=PLAIN)])
    rows = _sessions()
    assert rows[S]["tokens"] == rows[PLAIN]["tokens"]
    assert _extra(rows) == pytest.approx(2 * SEARCH, abs=1e-12)
    other = "a3900000-0000-4000-8000-000000000003"
    claude_session_file(isolated_home, other, [{**_call(4, 2), "uuid": "copied"},
                                               claude_user(other, _at(9), "go on", uuid="u9")])
    again = _sessions()
    assert again[S]["cost_usd"] == pytest.approx(rows[S]["cost_usd"], abs=1e-12)
    assert other not in again or not again[other]["cost_usd"]


def test_another_request_of_the_message_is_another_call(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, 2), _call(3, 2, request="req_2")],
          [_call(2, 0, session=PLAIN), _call(3, 0, session=PLAIN, request="req_2")])
    assert _extra(_sessions()) == pytest.approx(4 * SEARCH, abs=1e-12)


def test_a_sidechain_replay_loses_with_its_searches(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, 1)], [_call(2, 0, session=PLAIN)])
    claude_subagent_file(isolated_home, S, "aside_question", [_call(3, 1, request="req_other", sidechain=True)])
    assert _extra(_sessions()) == pytest.approx(SEARCH, abs=1e-12)


def _by_model_costs(session: str) -> dict[str, float]:
    return {row["key"]: row["cost_usd"] for row in cli_json("tokens", session, "--by", "model")["rows"]}


def _advising(searches: int, advisor_tools: dict | None = None) -> dict:
    advisor: dict[str, Any] = {"type": "advisor_message", "model": ADVISOR, "input_tokens": 1000, "output_tokens": 10,
                               "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    if advisor_tools is not None:
        advisor["server_tool_use"] = advisor_tools
    return _usage(searches, iterations=[{"type": "message", "input_tokens": 500, "output_tokens": 50}, advisor,
                                        {"type": "message", "input_tokens": 500, "output_tokens": 50}])


def test_an_advisor_call_carries_no_searches_of_its_own(isolated_home: Path) -> None:
    # The searches are the main model's (its tool calls): the advisor runs no tools.
    claude_session_file(isolated_home, S, [_call(2, usage=_advising(2), advisorModel=ADVISOR)])
    claude_session_file(isolated_home, PLAIN, [_call(2, session=PLAIN, usage=_advising(0), advisorModel=ADVISOR)])
    searched, plain = (_by_model_costs(sid) for sid in (S, PLAIN))
    assert searched[MODEL] - plain[MODEL] == pytest.approx(2 * SEARCH, abs=1e-12)
    assert searched[ADVISOR] == plain[ADVISOR]


def test_an_advisor_entry_with_its_own_count_is_priced_on_it(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [_call(2, usage=_advising(0, {"web_search_requests": 4}))])
    claude_session_file(isolated_home, PLAIN, [_call(2, session=PLAIN, usage=_advising(0))])
    searched, plain = (_by_model_costs(sid) for sid in (S, PLAIN))
    assert searched[ADVISOR] - plain[ADVISOR] == pytest.approx(4 * SEARCH, abs=1e-12)
    assert searched[MODEL] == plain[MODEL]


def test_a_progress_copy_alone_prices_the_subagents_searches(isolated_home: Path) -> None:
    def sub(session: str, searches: int) -> dict:
        return _call(4, searches, session=session, msg="msg_sub", request="req_sub", sidechain=True, agentId="a1b2c3d")

    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "delegate"),
                                           claude_progress(S, _at(5), "a1b2c3d", sub(S, 3)),
                                           claude_progress(S, _at(6), "a1b2c3d", sub(S, 3))])
    claude_session_file(isolated_home, PLAIN, [claude_user(PLAIN, _at(1), "delegate", uuid="pu1"),
                                               claude_progress(PLAIN, _at(5), "a1b2c3d", sub(PLAIN, 0))])
    assert _extra(_sessions()) == pytest.approx(3 * SEARCH, abs=1e-12)


_BAD = [
    (-2, "usage value is not a token count: server_tool_use.web_search_requests is -2, counted as 0", 0),
    ("3", "usage value is not a token count: server_tool_use.web_search_requests is '3', counted as 0", 0),
    (True, "usage value is not a token count: server_tool_use.web_search_requests is True, counted as 0", 0),
    (2.5, "usage value is not a token count: server_tool_use.web_search_requests is 2.5, counted as 2", 2),
    (10**13, "usage value is not a token count: server_tool_use.web_search_requests is 10000000000000, counted as 0", 0),
]


@pytest.mark.parametrize(("value", "said", "counted"), _BAD)
def test_a_malformed_count_warns_and_never_breaks(isolated_home: Path, value: object, said: str, counted: int) -> None:
    _pair(isolated_home, [_call(2, value)], [_call(2, 0, session=PLAIN)])
    rows = _sessions()
    assert rows[S]["tokens"] == rows[PLAIN]["tokens"]
    assert _extra(rows) == pytest.approx(counted * SEARCH, abs=1e-12)
    warnings = cli_json("tokens")["warnings"]
    assert [(w["message"], w["line"]) for w in warnings] == [(said, 2)]


@pytest.mark.parametrize(("tools", "kind"), [([3], "[3]"), ("3", "'3'"), (3, "3")])
def test_a_server_tool_use_that_is_no_object_warns(isolated_home: Path, tools: object, kind: str) -> None:
    _pair(isolated_home, [_call(2, usage={**claude_usage(input=1000, output=100, cache_read=5000, cache_write=300),
                                          "server_tool_use": tools})], [_call(2, 0, session=PLAIN)])
    assert _extra(_sessions()) == pytest.approx(0, abs=1e-12)
    warnings = cli_json("tokens")["warnings"]
    assert [(w["message"], w["line"]) for w in warnings] == [
        (f"usage value is not a token count: server_tool_use is {kind}, counted as 0", 2)]


def test_null_and_missing_counts_are_no_searches_and_no_warning(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, None), _call(3, msg="m2", usage={**claude_usage(input=1000, output=100, cache_read=5000,
                                                                                  cache_write=300), "server_tool_use": {}})],
          [_call(2, 0, session=PLAIN), _call(3, 0, session=PLAIN, msg="m2")])
    assert _extra(_sessions()) == pytest.approx(0, abs=1e-12)
    assert cli_json("tokens")["warnings"] == []


def _report(*args: str) -> tuple[dict, list]:
    report = cli_json("tokens", "--by", "session", *args)
    return ({row["key"]: (row["tokens"], row["cost_usd"]) for row in report["rows"]},
            sorted((w["message"], w["line"]) for w in report["warnings"]))


def test_cold_warm_no_cache_and_resumed_reads_agree(isolated_home: Path) -> None:
    path = claude_session_file(isolated_home, S, [claude_user(S, _at(1), "look"), _call(2, 3),
                                                  _call(3, "x", msg="msg_bad", request="req_bad")])
    claude_session_file(isolated_home, PLAIN, [claude_user(PLAIN, _at(1), "look", uuid="pu1"), _call(2, 0, session=PLAIN)])
    cold = _report()
    assert len(cold[1]) == 1
    assert _report() == cold == _report("--no-cache")
    with path.open("ab") as handle:
        for record in (claude_user(S, _at(10), "again", uuid="u10"), _call(11, 5, msg="msg_2", request="req_2"),
                       _call(12, -1, msg="msg_bad2", request="req_bad2")):
            handle.write(orjson.dumps(record) + b"\n")
    resumed, fresh = _report(), _report("--no-cache")
    assert resumed == fresh
    # One warning for the file, its count going on from the kept read's (``valuewarnings``).
    assert resumed[1] == [("usage value is not a token count: server_tool_use.web_search_requests is 'x', counted as 0 "
                           "(the first of 2 such values in this file)", 3)]
    tokens = {key: value[1] for key, value in resumed[0].items()}
    earlier = {key: value[1] for key, value in cold[0].items()}
    assert tokens[f"claude:{S}"] - earlier[f"claude:{S}"] > 5 * SEARCH  # (its tokens' price too)
    assert _report() == fresh  # (warm again)




def test_a_resume_state_keeps_the_counts(isolated_home: Path) -> None:
    path = claude_session_file(isolated_home, S, [_call(2, 3)])
    calls, state = session_calls_of(isolated_home)
    assert [call[C_WEB_SEARCHES] for call in calls] == [3]
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_call(5, 4, msg="msg_2", request="req_2")) + b"\n")
    resumed, _ = session_calls_of(isolated_home, state)
    whole, _ = session_calls_of(isolated_home)
    assert resumed == whole and [call[C_WEB_SEARCHES] for call in whole] == [3, 4]
    assert [entry[12] for entry in packed_entries(whole, S)] == [3, 4]  # (``model.WEB_SEARCHES``)


def test_an_older_resume_state_is_read_again() -> None:
    # A state of the calls before ``C_WEB_SEARCHES`` is no state: the file is parsed from its start.
    assert incremental.VERSION >= 10


def test_the_halves_read_finds_them_as_the_one_pass(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records: list = [claude_user(S, _at(1), "look")]
    for n in range(40):
        records.append(_call(2 + n % 50, "bad" if n in (3, 30) else n % 4, msg=f"msg_{n}", request=f"req_{n}"))
    claude_session_file(isolated_home, S, records)

    whole, halves = calls_whole_and_by_halves(isolated_home, monkeypatch)
    assert halves == whole
    assert sum(call[C_WEB_SEARCHES] for call in whole[0]) == sum(n % 4 for n in range(40) if n not in (3, 30))
    assert whole[2] == [("usage value is not a token count: server_tool_use.web_search_requests is 'bad', "
                         "counted as 0 (the first of 2 such values in this file)", 5)]


def test_the_row_sums_group_them_as_tokens_does() -> None:
    """A row's pass (``WindowedTotals``) sums what ``tokens`` keeps: the same groups, so the same cost."""
    from agentscan.providers.claude.dedupe import CallDeduper
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.scan.sessionsums import sums_of

    records = [_call(2, usage=_usage(0, output=10)), _call(3, 2), _call(4, 1, request="req_2"),
               _call(5, 6, msg="msg_s", sidechain=True, request="req_x"), _call(6, 1, msg="msg_1", request="req_y",
                                                                                 sidechain=True)]
    advisors, windowed, exact, calls = Advisors(), WindowedTotals(), CallDeduper(), []
    for order, record in enumerate(records):
        call = call_of(record, None, order, advisors=advisors)
        assert call is not None and not advisors
        windowed.add(call)
        calls.append(call)
    exact.add_all(calls)
    groups = sums_of(packed_entries(exact.winners(), S))
    assert sorted(windowed.groups(set()), key=repr) == sorted(groups, key=repr)
    assert sum(group[12] for group in groups) == 2 + 1 + 6


def _listed_shown_and_tokens() -> tuple[float, float, float]:
    """``S``'s cost as ``list``, ``show`` and ``tokens`` give it."""
    listed = {item["id"].split(":", 1)[1]: item for item in cli_json("list")["sessions"]}
    return listed[S]["cost_usd"], cli_json("show", S)["session"]["cost_usd"], _sessions()[S]["cost_usd"]


@pytest.mark.parametrize("split", [False, True])
def test_list_and_show_price_them_as_tokens_does(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                  split: bool) -> None:
    from claude_events import split_huge_passes

    split_huge_passes(monkeypatch, split)  # (a huge transcript's sums: added up by a side pass)
    _pair(isolated_home, [_call(2, 3), _call(3, 3), _call(4, 1, msg="msg_2", request="req_2")],
          [_call(2, 0, session=PLAIN), _call(4, 0, session=PLAIN, msg="msg_2", request="req_2")])
    listed, shown, cost = _listed_shown_and_tokens()
    assert listed == shown == pytest.approx(cost, abs=1e-12)
    assert _extra(_sessions()) == pytest.approx(4 * SEARCH, abs=1e-12)
    plain = {item["id"].split(":", 1)[1]: item for item in cli_json("list")["sessions"]}[PLAIN]["cost_usd"]
    assert listed - plain == pytest.approx(4 * SEARCH, abs=1e-12)


def test_a_rows_resumed_pass_prices_appended_searches(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_events import lower_row_limits

    lower_row_limits(monkeypatch)  # (a row's resume state kept, the window settled: as a huge one's)
    path = claude_session_file(isolated_home, S, [claude_user(S, _at(1), "look"), _call(2, 2)])
    listed, shown, cost = _listed_shown_and_tokens()
    assert listed == shown == pytest.approx(cost, abs=1e-12)
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_call(7, 5, msg="msg_2", request="req_2")) + b"\n")
    again = _listed_shown_and_tokens()
    assert again[0] == again[1] == pytest.approx(again[2], abs=1e-12)
    assert again[2] - cost > 5 * SEARCH


def test_by_day_model_and_provider_price_them(isolated_home: Path) -> None:
    _pair(isolated_home, [_call(2, 3)], [_call(2, 0, session=PLAIN)])
    total = cli_json("tokens")["cost_usd"]
    for by in ("day", "model", "provider"):
        rows = cli_json("tokens", "--by", by)["rows"]
        assert sum(row["cost_usd"] for row in rows) == pytest.approx(total, abs=1e-12)
    sessions = _sessions()
    assert total == pytest.approx(sessions[S]["cost_usd"] + sessions[PLAIN]["cost_usd"], abs=1e-12)
    assert _extra(sessions) == pytest.approx(3 * SEARCH, abs=1e-12)


def test_a_call_without_server_tool_use_is_looked_into_no_further(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fast path: no ``server_tool_use`` (older builds), or a zero count, never reaches ``web_searches``.
    from agentscan.providers.claude import usage

    def looked(*args: Any) -> int:
        raise AssertionError("looked into")

    monkeypatch.setattr(usage, "web_searches", looked)
    for record in (_call(2, usage=claude_usage(input=1, output=2)), _call(3, 0), _call(4, 9)):
        assert call_of(record, None, 0, advisors=Advisors()) is not None
