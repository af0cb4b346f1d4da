"""A row's JSON makes its sums and its cost into JSON once when they repeat
(``scan.tokenreport.TokenRow.to_json``).

Most rows are a session's own calls, all priced: ``own`` equals ``tokens`` and the four costs
are one object, and each was made into JSON again (a cold ``tokens`` makes 15,000 rows'
fragments at the bench's scale 10 in the parent's serial end).  The JSON must be what making
each field apart gives, for rows of every shape.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.model import TokenUsage, usage_json, usd
from agentscan.scan import tokenreport
from agentscan.scan.tokenreport import TokenRow

_COUNT = st.integers(0, 2**64)
_USAGE = st.none() | st.builds(TokenUsage, _COUNT, _COUNT, _COUNT, _COUNT, _COUNT)
_COST = st.none() | st.decimals(min_value=0, max_value=10**6, places=9, allow_nan=False)


def _apart(row: TokenRow) -> dict[str, Any]:
    """The row's JSON with each field made apart (as it was)."""
    costs = row.subagent_costs or (None,) * len(row.subagents)
    priced = row.subagent_costs_priced or (None,) * len(row.subagents)
    recovered = dict(row.recovered)
    return {
        "key": row.key, "tokens": usage_json(row.tokens), "cost_usd": usd(row.cost),
        "cost_usd_priced": usd(row.cost_priced), "unpriced_models": list(row.unpriced_models),
        "own": usage_json(row.own), "own_cost_usd": usd(row.own_cost),
        "own_cost_usd_priced": usd(row.own_cost_priced),
        "subagents": [{"id": sub_id, "tokens": usage_json(tokens), "cost_usd": usd(cost), "cost_usd_priced": usd(part),
                       "recovered_from": recovered.get(sub_id)}
                      for (sub_id, tokens), cost, part in zip(row.subagents, costs, priced)],
        **({"archived": row.archived} if row.archived is not False else {}),
    }


@st.composite
def _rows(draw: st.DrawFn) -> TokenRow:
    tokens = draw(_USAGE)
    # ``own``: the same object, an equal one, or another
    own = draw(st.sampled_from(["same", "equal", "other"]))
    own_usage = tokens if own == "same" else (
        None if tokens is None else TokenUsage(tokens.input, tokens.cache_read, tokens.cache_write, tokens.output,
                                               tokens.reasoning)) if own == "equal" else draw(_USAGE)
    cost = draw(_COST)
    shared = draw(st.lists(st.booleans(), min_size=3, max_size=3))
    others = draw(st.lists(_COST, min_size=3, max_size=3))
    own_cost, cost_priced, own_cost_priced = (cost if same else other for same, other in zip(shared, others))
    subagents = tuple((f"agent-{index}", draw(_USAGE)) for index in range(draw(st.integers(0, 2))))
    return TokenRow("claude:s", tokens, own_usage, subagents, cost, own_cost,
                    tuple(draw(_COST) for _ in subagents), (), cost_priced, (), None,
                    own_cost_priced=own_cost_priced, archived=draw(st.sampled_from([False, True, None])))


@given(_rows())
@settings(max_examples=400, deadline=None)
def test_a_rows_json_is_each_field_made_apart(row: TokenRow) -> None:
    assert row.to_json() == _apart(row)


def test_a_common_rows_sums_and_cost_are_made_into_json_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    made: list[object] = []
    costs: list[object] = []

    def counted_usage(usage: TokenUsage | None) -> dict[str, int] | None:
        made.append(usage)
        return usage_json(usage)

    def counted_usd(cost: Decimal | None) -> float | None:
        costs.append(cost)
        return usd(cost)

    monkeypatch.setattr(tokenreport, "usage_json", counted_usage)
    monkeypatch.setattr(tokenreport, "usd", counted_usd)
    tokens, cost = TokenUsage(10, 20, 30, 40, 5), Decimal("0.123456789")
    row = TokenRow("claude:s", tokens, TokenUsage(10, 20, 30, 40, 5), (), cost, cost, (), (), cost, (), None)
    document = row.to_json()
    assert document == _apart(row)
    assert len(made) == 1 and len(costs) == 1, (made, costs)
