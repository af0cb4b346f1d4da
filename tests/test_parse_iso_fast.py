"""``timeutil.parse_iso`` reads a 24-character ``…Z`` string with ``datetime.fromisoformat``
directly (c3a72fc): for every such string it gives what the lenient way gives."""

from __future__ import annotations

from datetime import datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentscan.timeutil import UTC, parse_iso
from conftest_hypothesis import FUZZ

_CANONICAL = "2026-11-01T09:00:00.000Z"
# What ISO 8601 and ``fromisoformat`` know, and a few things they do not.
_PIECES = "0123456789-:T .,W+Zz\u0660\uff11\x00"


def _lenient(value: str) -> datetime | None:
    """The way every string was read before: Z made +00:00, naive taken as UTC, in range."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        parsed = (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return parsed if datetime(1970, 1, 2, tzinfo=UTC) <= parsed < datetime(9998, 1, 1, tzinfo=UTC) else None


@st.composite
def _z_strings(draw: st.DrawFn) -> str:
    """24 characters ending in ``Z``: the canonical form with a few characters changed."""
    chars = list(_CANONICAL)
    for position in draw(st.lists(st.integers(0, 22), max_size=5)):
        chars[position] = draw(st.sampled_from(_PIECES))
    return "".join(chars)


@settings(FUZZ, max_examples=500)
@given(st.one_of(_z_strings(), st.text(_PIECES, min_size=23, max_size=23).map(lambda text: text + "Z")))
@example("2026-W44-1T09:00:00.000Z")
@example("20261101T090000.0000000Z")
@example("2026-11-01 09:00:00,000Z")
@example(" 2026-11-01T09:00:00.00Z")
@example("0001-01-01T00:00:00.000Z")
@example("9999-12-31T23:59:59.999Z")
def test_the_canonical_form_is_read_as_the_lenient_way_reads_it(value: str) -> None:
    assert len(value) == 24 and value.endswith("Z")
    fast, lenient = parse_iso(value), _lenient(value)
    assert fast == lenient
    if fast is not None:
        assert fast.utcoffset() == lenient.utcoffset() and fast.tzinfo is UTC  # type: ignore[union-attr]
