"""PriceBook: the same answer as genai-prices, remembered in the index, without the import on warm runs."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.scan.scanner import Scanner
from agentscan.scan.cache import Cache
from agentscan.context import ScanContext
from agentscan.model import TokenUsage, UsageEntry
from agentscan.pricing import PriceBook, Spend, source
from agentscan.pricing.spend import NOTHING, combined
from agentscan.pricing.aliases import CURSOR_ALIASES, model_ref
from agentscan.scan.tokens import token_report
from codex_builders import Calls, meta, rollout_path, turn_context, user_message, write_rollout
from pricing_builders import claude_sonnet_session

REPO = Path(__file__).resolve().parents[1]

# (agent provider, recorded model, the genai-prices provider id the library is asked with)
MODELS = [
    ("claude", "claude-sonnet-4-5-20250929", "anthropic"),
    ("claude", "claude-opus-4-6", "anthropic"),  # a dated change (2026-03-13) and long-context tiers before it
    ("claude", "claude-haiku-4-5-20251001", "anthropic"),
    ("codex", "gpt-5-codex", "openai"),
    ("codex", "o3", "openai"),  # a dated price cut (2025-06-10)
    ("gemini", "gemini-2.5-pro", "google"),
    ("gemini", "gemini-3-pro-preview", "google"),
]


def _book(tmp: Path | None = None) -> PriceBook:
    ctx = ScanContext.create(env={"AGENTSCAN_DATA_DIR": str(tmp or "/nonexistent")})
    return PriceBook(ctx)


def _entry(model: str, ts: float | None, inp: int, cache_read: int, cache_write: int, hour: int, out: int, reasoning: int) -> list:
    tokens = TokenUsage(inp, cache_read, cache_write, out, reasoning)
    when = None if ts is None else datetime.fromtimestamp(ts, timezone.utc)
    return UsageEntry("s", tokens, when, model, cache_write_1h=hour).pack()


@settings(max_examples=150, deadline=None)
@given(
    choice=st.sampled_from(MODELS),
    ts=st.floats(min_value=datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp(),
                 max_value=datetime(2026, 12, 31, tzinfo=timezone.utc).timestamp()),
    inp=st.integers(0, 400_000),
    cache_read=st.integers(0, 400_000),
    cache_write=st.integers(0, 100_000),
    hour_share=st.floats(0, 1),
    out=st.integers(0, 50_000),
    reasoning_share=st.floats(0, 1),
)
def test_every_call_costs_what_the_library_says(choice, ts, inp, cache_read, cache_write, hour_share, out, reasoning_share) -> None:
    """The coefficients read off the library reproduce ``calc_price`` exactly, tiers and dates included."""
    provider, model, provider_id = choice
    hour = int(cache_write * hour_share)
    reasoning = int(out * reasoning_share)
    book = _BOOK
    ours = book.entry_cost(provider, _entry(model, ts, inp, cache_read, cache_write, hour, out, reasoning))
    theirs = calc_price(
        Usage(input_tokens=inp + cache_read + cache_write, cache_read_tokens=cache_read, cache_write_tokens=cache_write,
              cache_write_1h_tokens=hour, output_tokens=out, output_reasoning_tokens=reasoning),
        model, provider_id=provider_id, genai_request_timestamp=datetime.fromtimestamp(ts, timezone.utc),
    ).total_price
    assert ours == theirs


_BOOK = _book()


def test_a_period_is_fetched_once_and_reused_for_every_call_in_it() -> None:
    book = _book()
    ts = datetime(2025, 7, 1, tzinfo=timezone.utc).timestamp()
    first = book.key("codex", "o3", ts, 10)
    assert book.key("codex", "o3", ts + 86_400 * 30, 10) == first  # same period (after the 2025-06-10 cut)
    assert book.key("codex", "o3", datetime(2025, 6, 1, tzinfo=timezone.utc).timestamp(), 10) != first
    assert len(book.vectors) == 2


def test_unknown_and_non_models_have_no_price_and_are_named_once() -> None:
    book = _book()
    unknown = _entry("aide-gpt-5", 1.76e9, 100, 0, 0, 0, 10, 0)
    assert book.entry_cost("codex", unknown) is None
    assert book.entry_cost("codex", unknown) is None
    assert book.entry_cost("cursor", _entry("default", 1.76e9, 5, 0, 0, 0, 5, 0)) is None
    assert book.entry_cost("claude", _entry(None, 1.76e9, 5, 0, 0, 0, 5, 0)) is None  # type: ignore[arg-type]
    # A call that names no model: alone, even a call with no tokens has no price.
    assert book.entry_cost("claude", _entry(None, 1.76e9, 0, 0, 0, 0, 0, 0)) is None  # type: ignore[arg-type]
    paths = [w.path for w in book.ctx.warnings.items]
    assert paths == ["model:codex/aide-gpt-5", "model:cursor/default", "model:claude/unknown"]
    assert "aide-gpt-5" in book.ctx.warnings.items[0].message


def _parts(book: PriceBook, provider: str, *entries: list) -> dict[int, list[int]]:
    spend = Spend()
    for entry in entries:
        spend.add(entry, book.entry_key(provider, entry))
    return spend.parts


HAIKU = "claude-haiku-4-5-20251001"  # $1 in, $5 out per million, one price at every time


def test_calls_with_no_tokens_and_no_price_add_nothing_beside_priced_calls() -> None:
    book = _book()
    priced = _entry(HAIKU, 1.76e9, 1_000_000, 0, 0, 0, 200_000, 0)
    idle = _entry("aide-gpt-5", 1.76e9, 0, 0, 0, 0, 0, 0)  # a model no price list knows, no tokens
    mixed = book.assess(_parts(book, "claude", priced, idle))
    assert (mixed.cost, mixed.priced, mixed.unpriced) == (Decimal(2), Decimal(2), ())
    assert book.ctx.warnings.items == []  # nothing was left unknown: nothing to warn about
    alone = book.assess(_parts(book, "claude", idle, idle))
    assert (alone.cost, alone.priced, alone.unpriced, alone.tokens) == (None, Decimal(0), ("aide-gpt-5",), False)
    assert [w.path for w in book.ctx.warnings.items] == ["model:claude/aide-gpt-5"]
    # Groups taken together follow the same rule: the idle group does not null the total.
    assert combined([mixed, alone]).cost == Decimal(2)
    assert combined([alone, alone]).cost is None and combined([alone]).unpriced == ("aide-gpt-5",)


def test_synthetic_turns_were_never_billed_so_they_cost_nothing() -> None:
    """Claude Code writes its own error and interruption notices as ``<synthetic>`` turns: no
    model made them, so they cost $0 (even alone, even with tokens) and warn nothing."""
    book = _book()
    synthetic = _entry("<synthetic>", 1.76e9, 0, 0, 0, 0, 0, 0)
    alone = book.assess(_parts(book, "claude", synthetic, synthetic))
    assert (alone.cost, alone.priced, alone.unpriced, alone.tokens) == (Decimal(0), Decimal(0), (), False)
    assert book.entry_cost("claude", _entry("<synthetic>", None, 10, 20, 30, 0, 40, 0)) == 0  # type: ignore[arg-type]
    priced = _entry(HAIKU, 1.76e9, 1_000_000, 0, 0, 0, 200_000, 0)
    assert book.assess(_parts(book, "claude", priced, synthetic)).cost == Decimal(2)
    assert book.ctx.warnings.items == []


def test_a_call_with_tokens_and_no_price_leaves_a_lower_bound_and_names_its_model() -> None:
    book = _book()
    priced = _entry(HAIKU, 1.76e9, 1_000_000, 0, 0, 0, 200_000, 0)
    unknown = _entry("aide-gpt-5", 1.76e9, 100, 0, 0, 0, 10, 0)
    part = book.assess(_parts(book, "claude", priced, unknown, _entry(None, 1.76e9, 5, 0, 0, 0, 5, 0)))  # type: ignore[arg-type]
    assert (part.cost, part.priced, part.unpriced, part.partial) == (None, Decimal(2), ("aide-gpt-5", "unknown"), True)
    whole = combined([part, book.assess(_parts(book, "claude", priced))])
    assert (whole.cost, whole.priced, whole.unpriced) == (None, Decimal(4), ("aide-gpt-5", "unknown"))
    assert combined([]) == NOTHING and book.assess({}) == NOTHING


def test_costs_are_plain_decimals_with_no_trailing_zeros() -> None:
    book = _book()
    cost = book.entry_cost("claude", _entry(HAIKU, 1.76e9, 49_622, 5, 0, 0, 0, 0))
    assert cost == Decimal("0.0496225") and str(cost) == "0.0496225"
    assert str(book.entry_cost("claude", _entry(HAIKU, 1.76e9, 100_000_000, 0, 0, 0, 0, 0))) == "100"
    assert str(book.entry_cost("claude", _entry(HAIKU, 1.76e9, 0, 0, 0, 0, 0, 0))) == "0"


def test_an_untimed_call_is_priced_only_when_the_price_never_changed() -> None:
    book = _book()
    assert book.entry_cost("claude", _entry("claude-haiku-4-5-20251001", None, 1_000_000, 0, 0, 0, 0, 0)) == Decimal(1)
    assert book.entry_cost("codex", _entry("o3", None, 1_000_000, 0, 0, 0, 0, 0)) is None
    (warning,) = book.ctx.warnings.items
    assert warning.path == "model:codex/o3" and "no timestamp" in warning.message


@pytest.mark.parametrize("alias", sorted(CURSOR_ALIASES))
def test_each_cursor_alias_reaches_the_model_it_names(alias: str) -> None:
    """Every entry of the alias map, pinned: Cursor display name -> the library's model id."""
    from agentscan.pricing import library

    expected = {
        "claude-4.5-sonnet": "claude-sonnet-4-5",
        "claude-4.5-sonnet-thinking": "claude-sonnet-4-5",
        "claude-4.1-opus": "claude-opus-4-1",
        "claude-4.1-opus-thinking": "claude-opus-4-1",
        "gpt-5-high": "gpt-5",
    }
    assert set(expected) == set(CURSOR_ALIASES)
    ref = model_ref("cursor", alias)
    assert ref is not None
    assert library.find(source.current({}), None, ref).model.id == expected[alias]
    # Without the alias the library would not know the name: the map is needed.
    with pytest.raises(library.NotPriceable):
        library.find(source.current({}), None, alias)


def test_aliases_apply_to_cursor_only() -> None:
    assert model_ref("cursor", "claude-4.5-sonnet-thinking") == "claude-sonnet-4-5"
    assert model_ref("claude", "claude-4.5-sonnet-thinking") == "claude-4.5-sonnet-thinking"
    assert model_ref("cursor", "default") is None and model_ref("claude", "<synthetic>") is None


def test_periods_are_kept_in_the_index_under_the_price_data_version(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home, use_cache=True)
    token_report(scanner)
    scanner.close()
    ctx = ScanContext.create(home=isolated_home)
    cache = Cache.open(ctx)
    assert cache is not None
    stored = cache.get_prices(source.current(ctx.env).key)
    assert set(stored) == {("claude", "claude-sonnet-4-5-20250929"), ("claude", "claude-haiku-4-5-20251001")}
    # Another data version finds nothing: its prices are looked up afresh.
    assert cache.get_prices("fetched/0000") == {}
    other = PriceBook(ctx, cache, source.PriceData("fetched", "0.2.3", "0000"))
    assert other._cached_docs() == {}
    cache.close()


def _run(code: str, home: Path) -> str:
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_warm_run_prices_without_importing_genai_prices(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    code = (
        "import sys\n"
        "from agentscan.scan.scanner import Scanner\n"
        "from agentscan.scan.costs import with_costs\n"
        "from agentscan.pricing import PriceBook\n"
        "from agentscan.scan.tokens import token_report\n"
        "s = Scanner(use_cache=True)\n"
        "r = token_report(s)\n"
        "rows = with_costs(s, s.list_sessions(), s.refs(), PriceBook(s.ctx, s.cache))\n"
        "s.close()\n"
        "print(r.cost, rows[0].cost, 'genai_prices' in sys.modules, 'pydantic' in sys.modules)\n"
    )
    cold = _run(code, isolated_home).split()
    warm = _run(code, isolated_home).split()
    assert [Decimal(v) for v in cold[:2]] == [Decimal(v) for v in warm[:2]] == [Decimal("0.33195")] * 2
    assert cold[2:] == ["True", "True"]
    assert warm[2:] == ["False", "False"]


def test_a_new_model_on_a_warm_index_imports_the_library_once(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    code = "import sys\nfrom agentscan.scan.scanner import Scanner\nfrom agentscan.scan.tokens import token_report\n" \
           "s = Scanner(use_cache=True)\nprint(token_report(s).cost, 'genai_prices' in sys.modules)\ns.close()\n"
    _run(code, isolated_home)
    start = datetime(2025, 10, 3, tzinfo=timezone.utc)
    thread = "019c0000-0000-7000-8000-0000000000d1"
    write_rollout(rollout_path(isolated_home / ".codex", thread, start),
                  [meta(thread, start), turn_context(start, model="gpt-5"), user_message(start, "go"),
                   Calls().call(start, 1_000_000, 0, 0, 0)])
    cost, imported = _run(code, isolated_home).split()
    assert (Decimal(cost), imported) == (Decimal("1.58195"), "True")  # $1.25 more, looked up
    cost, imported = _run(code, isolated_home).split()
    assert (Decimal(cost), imported) == (Decimal("1.58195"), "False")


@pytest.mark.parametrize("model", ["synthetic", " <Synthetic> "])
def test_every_spelling_of_synthetic_is_unbilled(model: str) -> None:
    book = _book()
    assert book.entry_cost("claude", _entry(model, 1.76e9, 0, 0, 0, 0, 0, 0)) == 0
    assert book.ctx.warnings.items == []
