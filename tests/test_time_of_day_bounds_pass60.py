"""A daily price window written in a zone far from UTC (genai-prices' ``TimeOfDateConstraint``:
``23:00-12:00`` is 11:00 UTC the next day, ``00:10+14:00`` 10:10 UTC the day before) is priced
exactly at every time: the price period around a call (``library._bounds``) has both its ends,
the changes just before and just after it.  Looking at the days just around the call's UTC day
found no change before an early-UTC call in a far-west window: its period began at no time, so
the book priced a later call inside the window at the price outside it."""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from genai_prices import Usage, data_snapshot, types

from agentscan.context import ScanContext
from agentscan.model import TokenUsage, UsageEntry
from agentscan.pricing import PriceBook, library, source

DAY = 86_400
START = datetime(2026, 3, 10, tzinfo=timezone.utc).timestamp()


def _prices(input_mtok: float, output_mtok: float) -> dict:
    return {"input_mtok": input_mtok, "output_mtok": output_mtok, "cache_read_mtok": input_mtok / 10,
            "cache_write_mtok": input_mtok * 1.25}


WINDOWS = {  # model -> its window's start and end, each a time of day in its own zone
    "claude-west-1": ("23:00:00-12:00", "23:30:00-12:00"),
    "claude-east-1": ("00:10:00+14:00", "00:40:00+14:00"),
    "claude-wide-1": ("22:00:00-11:00", "03:00:00+13:00"),  # 09:00 UTC to 14:00 UTC the day before
}


def _data(tmp_path: Path) -> tuple[source.PriceData, bytes]:
    models = [{"id": model, "match": {"starts_with": model},
               "prices": [{"prices": _prices(1, 10)},
                          {"constraint": {"start_time": start, "end_time": end}, "prices": _prices(5, 50)}]}
              for model, (start, end) in WINDOWS.items()]
    raw = orjson.dumps([{"id": "anthropic", "name": "Anthropic", "api_pattern": r"https://api\.anthropic\.com",
                         "model_match": {"contains": "claude"}, "models": models}])
    path = tmp_path / "prices.json"
    path.write_bytes(raw)
    sha = hashlib.sha256(raw).hexdigest()
    return source.PriceData("fetched", "0.0.0", sha, "2026-03-01T00:00:00Z", "http://example.invalid/p.json", path), raw


@pytest.mark.parametrize("model", sorted(WINDOWS))
def test_the_period_around_every_time_has_both_ends(tmp_path: Path, model: str) -> None:
    data, _ = _data(tmp_path)
    match = library.find(data, "anthropic", model)
    for step in range(0, 3 * DAY, 7 * 60):
        ts = START + step
        period = library.period_at(match, ts)
        assert period.start is not None and period.end is not None, (model, datetime.fromtimestamp(ts, timezone.utc), period)
        assert period.start <= ts < period.end and period.end - period.start < DAY, (model, ts, period)


@pytest.mark.parametrize("order", ["oldest first", "newest first", "shuffled"])
@pytest.mark.parametrize("model", sorted(WINDOWS))
def test_each_call_costs_what_genai_prices_says_in_any_order(tmp_path: Path, model: str, order: str) -> None:
    """Calls over three days, asked in time order, newest first or shuffled (a period found for
    one call must not take in another day's window), each priced by the book as genai-prices' own
    ``calc`` prices it with the same file."""
    data, raw = _data(tmp_path)
    theirs = data_snapshot.DataSnapshot(providers=types._providers_from_raw(orjson.loads(raw)), from_auto_update=False)
    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": str(tmp_path / "data")}), None, data)
    rng = random.Random(model)
    times = sorted((START + step + rng.randrange(0, 600) for step in range(0, 3 * DAY, 10 * 60)), reverse=True)
    if order == "shuffled":
        rng.shuffle(times)
    elif order == "oldest first":
        times.reverse()
    for ts in times:
        inp, read, write, out = (rng.randrange(0, 50_000) for _ in range(4))
        when = datetime.fromtimestamp(ts, timezone.utc)
        ours = book.entry_cost("claude", UsageEntry("s", TokenUsage(inp, read, write, out, 0), when, model).pack())
        usage = Usage(input_tokens=inp + read + write, cache_read_tokens=read, cache_write_tokens=write, output_tokens=out)
        expected = theirs.calc(usage, model, "anthropic", None, when).total_price
        assert ours == expected and isinstance(ours, Decimal), (model, when, ours, expected)
