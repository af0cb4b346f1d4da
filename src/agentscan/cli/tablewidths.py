"""How wide a table's columns are with no cell cut: told from its rows (``natural``), or
counted (``WidthCounts``) for rows that come and go (a patched table, ``cli.tablepatch``)."""

from __future__ import annotations

from typing import Any, Sequence

from agentscan.cli.tableparts import GAP, Column, Row, spanned
from agentscan.cli.term import width_of


def natural(columns: Sequence[Column], rows: Sequence[Row]) -> list[int]:
    """Each column's width with no cell cut: its widest cell, or its header."""
    widths = [width_of(c.header) for c in columns]
    spanning = []
    for row in rows:
        if row.span is not None:
            spanning.append(row)
            for index, cell in enumerate(row.cells):
                if not spanned(row, index):
                    widths[index] = max(widths[index], width_of(cell))
            continue
        # Most rows: no span, ASCII cells (a heavy user's table has 200,000 of them).
        for index, cell in enumerate(row.cells):
            width = len(cell) if cell.isascii() else width_of(cell)
            if width > widths[index]:
                widths[index] = width
    for row in spanning:
        if row.span is not None:  # always (for the type checker)
            _widen_for_span(widths, *row.span, width_of(row.cells[row.span[0]]))
    return widths


def _widen_for_span(widths: list[int], first: int, last: int, width: int) -> None:
    """Widen the last of the columns ``first..last`` until text ``width`` wide, laid over
    them and the gaps between them, fits."""
    room = sum(widths[first:last + 1]) + len(GAP) * (last - first)
    widths[last] += max(0, width - room)


class WidthCounts:
    """How many cells of each width each column holds, and the spans laid over them: the
    natural widths (``natural``) of rows that come and go, told without the rows (a
    patched table, ``cli.tablepatch``, has 20,000 lines and changes a few)."""

    def __init__(self, columns: list[dict[int, int]], spans: dict[tuple[int, int, int], int]) -> None:
        self.columns = columns
        #: (first, last, width of the spanning text) -> how many rows
        self.spans = spans

    @classmethod
    def of(cls, size: int, rows: Sequence[Row] = ()) -> WidthCounts:
        counts = cls([{} for _ in range(size)], {})
        counts.add(rows)
        return counts

    def add(self, rows: Sequence[Row], sign: int = 1) -> None:
        """Count ``rows`` in (``sign`` -1: out)."""
        columns = self.columns
        for row in rows:
            span = row.span
            for index, cell in enumerate(row.cells):
                if span is not None and span[0] <= index <= span[1]:
                    continue
                width = len(cell) if cell.isascii() else width_of(cell)
                counts = columns[index]
                counts[width] = counts.get(width, 0) + sign
            if span is not None:
                key = (span[0], span[1], width_of(row.cells[span[0]]))
                self.spans[key] = self.spans.get(key, 0) + sign

    def natural(self, columns: Sequence[Column]) -> list[int] | None:
        """``natural`` of the rows counted; ``None``: it cannot be told (more rows counted out
        than in, or spans of two kinds, whose order ``natural`` lays them in would matter)."""
        if any(count < 0 for counts in self.columns for count in counts.values()):
            return None
        widths = [max([width_of(column.header), *(width for width, count in counts.items() if count)])
                  for column, counts in zip(columns, self.columns)]
        spans = [key for key, count in self.spans.items() if count]
        if len(spans) > 1 or any(count < 0 for count in self.spans.values()):
            return None
        for first, last, width in spans:
            _widen_for_span(widths, first, last, width)
        return widths

    def to_json(self) -> list:
        return [[sorted(counts.items()) for counts in self.columns], [[*key, count] for key, count in self.spans.items()]]

    @classmethod
    def from_json(cls, value: Any, size: int) -> WidthCounts | None:
        """``to_json``'s value read back; ``None``: of another shape."""
        try:
            kept_columns, kept_spans = value
            if len(kept_columns) != size:
                return None
            counts = cls([{width: count for width, count in items} for items in kept_columns],
                         {(first, last, width): count for first, last, width, count in kept_spans})
        except (TypeError, ValueError):
            return None
        numbers = [number for column in counts.columns for pair in column.items() for number in pair]
        numbers += [number for key, count in counts.spans.items() for number in (*key, count)]
        if any(type(number) is not int for number in numbers) or any(
                not 0 <= first <= last < size for first, last, _ in counts.spans):
            return None
        return counts

    def copy(self) -> WidthCounts:
        return WidthCounts([dict(counts) for counts in self.columns], dict(self.spans))
