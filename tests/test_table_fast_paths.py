"""The table's fast paths (ASCII cells measured by ``len``, padded by ``str.ljust``, a
line's width added up from its cells) lay out exactly what the general way does.

The oracle below measures and cuts every cell a character at a time
(``charset.char_width``), as the table did before a heavy user's 15,000-row
``tokens`` made that the slow part.  Cells mix ASCII, wide CJK, emoji,
combining marks and ``…``; terminals are narrow and wide, piped and not.
Settings: ``conftest_hypothesis.FUZZ``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Iterable

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from agentscan.cli import charset, render, table, tablefit, tablewidths, term
from agentscan.cli.tableparts import GAP, Column, Row, spanned
from agentscan.cli.term import ELLIPSIS, Terminal
from conftest_hypothesis import FUZZ
from zones import in_each_zone


def _width(text: str) -> int:
    return sum(charset.char_width(ch) for ch in text)


def _fitting(chars: Iterable[str], width: int) -> list[str]:
    """The first of ``chars`` that fit in ``width - 1`` columns (one is left for the "…")."""
    kept, used = [], 0
    for ch in chars:
        if used + charset.char_width(ch) > width - 1:
            break
        kept.append(ch)
        used += charset.char_width(ch)
    return kept


def _cut(text: str, width: int) -> str:
    if _width(text) <= width:
        return text
    if width <= 0:
        return ""
    return "".join(_fitting(text, width)) + ELLIPSIS


def _cut_left(text: str, width: int) -> str:
    if _width(text) <= width:
        return text
    if width <= 0:
        return ""
    tail = "".join(reversed(_fitting(reversed(text), width)))
    for index, ch in enumerate(tail):
        if ch in "/\\" and index + 1 < len(tail):
            return ELLIPSIS + tail[index:]
    return ELLIPSIS + tail


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(0, width - _width(text))
    return gap + text if right else text + gap


def _oracle_line(columns: list[Column], cells: list[str], widths: list[int], terminal: Terminal,
                 style: str | None, header: bool = False) -> str:
    texts = []
    last = len(cells) - 1
    for index, (column, cell, width) in enumerate(zip(columns, cells, widths)):
        if terminal.tty and _width(cell) > width:
            cell = _cut_left(cell, width) if column.keep_end else _cut(cell, width)
        texts.append(cell if index == last and not column.right else _pad(cell, width, column.right))
    plain = GAP.join(texts).rstrip()
    if not terminal.color:
        return plain
    styled = []
    for column, text in zip(columns, texts):
        styles = [s for s in (style, None if header or style else column.style) if s]
        styled.append(terminal.style(text, *styles) if styles and text.strip() else text)
    return GAP.join(styled).rstrip()


def _oracle(columns: list[Column], rows: list[Row], terminal: Terminal) -> list[str]:
    """The table's lines, laid out with the widths ``tablefit.fit`` chose (fitting is not what changed)."""
    kept, widths = (tablefit.fit(columns, rows, terminal.width) if terminal.tty
                    else (list(range(len(columns))), tablewidths.natural(columns, rows)))
    natural = [_width(c.header) for c in columns]
    for row in rows:
        for index, cell in enumerate(row.cells):
            if not spanned(row, index):
                natural[index] = max(natural[index], _width(cell))
    for row in rows:
        if row.span is not None:
            first, last = row.span
            room = sum(natural[first:last + 1]) + len(GAP) * (last - first)
            natural[last] += max(0, _width(row.cells[first]) - room)
    assert natural == tablewidths.natural(columns, rows)
    lines = [_oracle_line([columns[i] for i in kept], [columns[i].header for i in kept], widths, terminal, "bold",
                          header=True)]
    for row in rows:
        shown_columns, cells, shown_widths = table._merged(row, columns, kept, widths)
        lines.append(_oracle_line(shown_columns, cells, shown_widths, terminal, row.style))
    return lines


_PIECES = st.sampled_from(["a", "Z", "7", " ", "/", "-", ".", "é", "e\u0301", "日本", "语", "🙂", "…", "\u200b", "$"])
_CELLS = st.lists(_PIECES, max_size=14).map("".join)
_COLUMNS = [
    Column("SESSION", style="yellow"),
    Column("DATE", drop=2),
    Column("PROJECT", flex=True, min_width=6, keep_end=True, drop=3),
    Column("TITLE", flex=True, min_width=8, weight=2, drop=4),
    Column("INPUT", right=True, drop=6),
    Column("TOTAL", right=True),
]


@st.composite
def _rows(draw: st.DrawFn) -> list[Row]:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        cells = [draw(_CELLS) for _ in _COLUMNS]
        span = draw(st.sampled_from([None, None, (4, 5)]))
        style = draw(st.sampled_from([None, "dim", "bold"]))
        rows.append(Row(cells, style=style, span=span))
    return rows


@FUZZ
@given(rows=_rows(), width=st.integers(20, 140), tty=st.booleans(), color=st.booleans())
def test_the_table_lays_out_what_a_character_at_a_time_does(rows: list[Row], width: int, tty: bool, color: bool) -> None:
    terminal = Terminal(tty=tty, width=width, color=tty and color)
    lines, _ = table.render(_COLUMNS, rows, terminal)
    assert lines == _oracle(_COLUMNS, rows, terminal)


@FUZZ
@given(text=_CELLS, width=st.integers(-1, 20))
@example(text="aa\u200b", width=1)  # (pass 54: a zero-width character after the mark at 1 column)
def test_cuts_agree_with_a_character_at_a_time(text: str, width: int) -> None:
    assert term.width_of(text) == _width(text)
    assert term.cut(text, width) == _cut(text, width)
    assert term.cut_left(text, width) == _cut_left(text, width)


def test_ascii_paths_are_cut_from_the_left_at_a_separator() -> None:
    assert term.width_of(ELLIPSIS) == _width(ELLIPSIS) == 1  # an ASCII cell cut is measured by ``len``
    assert term.cut_left("/home/me/src/weather-app", 14) == "…/weather-app"
    assert term.cut_left("/home/me/src/weather-app", 1) == ELLIPSIS
    assert term.cut_left("abcdef", 4) == "…def"


@given(seconds=st.integers(86_400, 253_000_000_000), micro=st.integers(0, 999_999),
       offset=st.integers(-14 * 60, 14 * 60))
@FUZZ
def test_short_date_is_the_local_date_astimezone_gives(seconds: int, micro: int, offset: int) -> None:
    moment = datetime.fromtimestamp(seconds, timezone.utc).replace(microsecond=micro)
    # Zones with half-hour, 45-minute and DST-shifted offsets.
    for zone in in_each_zone(("UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "Australia/Lord_Howe")):
        for value in (moment, moment.astimezone(timezone(timedelta(minutes=offset)))):
            assert render.short_date(value) == value.astimezone().strftime("%Y-%m-%d"), zone


def test_fixed_columns_wider_than_the_terminal_are_printed_whole() -> None:
    """Fixed columns wider than the terminal overflow it, never cut (a figure, an id or a time
    is never printed in part: tests/test_narrow_pass33.py); a padded, blank end still goes."""
    columns = [Column("SESSION"), Column("TOTAL", right=True)]
    rows = [Row(["x" * 30, ""]), Row(["y", "12345"])]
    terminal = Terminal(tty=True, width=33, color=False)
    lines, _ = table.render(columns, rows, terminal)
    assert lines == _oracle(columns, rows, terminal)
    assert lines[0].endswith("  TOTAL") and lines[1] == "x" * 30 and lines[2].endswith("  12345")


@FUZZ
@given(kept=_rows(), gone=_rows(), came=_rows())
def test_width_counts_tell_the_natural_widths_of_rows_that_come_and_go(kept: list[Row], gone: list[Row],
                                                                      came: list[Row]) -> None:
    """``tablewidths.WidthCounts`` (the patched table's layout, ``cli.tablepatch``) of rows counted in
    and out, kept as JSON between: ``tablewidths.natural`` of the rows left, or nothing when spans of
    two kinds are left (their order would matter)."""
    counts = tablewidths.WidthCounts.of(len(_COLUMNS), kept + gone)
    counts = tablewidths.WidthCounts.from_json(orjson.loads(orjson.dumps(counts.to_json())), len(_COLUMNS))
    assert counts is not None
    counts.add(gone, -1)
    counts.add(came)
    left = kept + came
    kinds = {(row.span, term.width_of(row.cells[row.span[0]])) for row in left if row.span is not None}
    told = counts.natural(_COLUMNS)
    assert told == (tablewidths.natural(_COLUMNS, left) if len(kinds) <= 1 else None)
    assert tablewidths.WidthCounts.from_json([[[]] * len(_COLUMNS), [[4, 9, 3, 1]]], len(_COLUMNS)) is None  # out of range


def test_width_counts_lay_a_span_over_its_columns() -> None:
    """A span's text, wider than its columns, widens the last of them; the cells it covers
    are not counted (the cases a few random rows seldom make)."""
    rows = [Row(["s", "d", "p", "t", "12", "34"]),
            Row(["s", "d", "p", "t", "not recorded, not at all", "x" * 20], span=(4, 5))]
    counts = tablewidths.WidthCounts.of(len(_COLUMNS), rows)
    assert counts.natural(_COLUMNS) == tablewidths.natural(_COLUMNS, rows) == [7, 4, 7, 5, 5, 5 + 24 - 12]
