"""A price period the index holds is kept with the rule that found its bounds
(``periods.BOUNDS_RULE``): a period an older build stored for a time-of-day window far from UTC
(before the window was looked for two days either side of a call) could begin at no time, and
the index kept it until the price data changed, pricing a call in an earlier day's window at the
rate outside it.  Such a period is no period now: the book asks the library again."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import orjson
from genai_prices import Usage, data_snapshot, types

from agentscan.context import ScanContext
from agentscan.model import TokenUsage, UsageEntry
from agentscan.pricing import PriceBook, aliases, library
from agentscan.scan.cache import Cache
from test_time_of_day_bounds_pass60 import DAY, START, _data

MODEL = "claude-west-1"  # its window: 23:00-23:30 at -12:00, 11:00-11:30 UTC


def test_a_period_stored_under_the_older_bounds_rule_is_asked_again(isolated_home: Path, tmp_path: Path) -> None:
    data, raw = _data(tmp_path)
    ctx = ScanContext.create(home=isolated_home)
    window_today = START + 11 * 3600
    outside = library.period_at(library.find(data, "anthropic", MODEL), window_today - 3600)
    # What the older rule stored for a call before today's window: the rate outside it, from no
    # time on (its ``to_json`` had no rule mark)
    old = outside._replace(start=None).to_json()[:4]
    cache = Cache.open(ctx)
    assert cache is not None
    cache.put_price(data.key, "claude", MODEL, {"ref": MODEL, "provider_id": "anthropic", "model_id": MODEL,
                                                "periods": [old], "variants": aliases.PRICE_RULES})
    cache.commit()
    book = PriceBook(ctx, cache, data)
    theirs = data_snapshot.DataSnapshot(providers=types._providers_from_raw(orjson.loads(raw)), from_auto_update=False)
    when = datetime.fromtimestamp(window_today - DAY + 600, timezone.utc)  # in yesterday's window
    ours = book.entry_cost("claude", UsageEntry("s", TokenUsage(10_000, 0, 0, 1_000, 0), when, MODEL).pack())
    expected = theirs.calc(Usage(input_tokens=10_000, output_tokens=1_000), MODEL, "anthropic", None, when).total_price
    assert ours == expected == Decimal(5 * 10_000 + 50 * 1_000) / 1_000_000  # (the window's rate)
    cache.close()
