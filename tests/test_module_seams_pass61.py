"""Pass 61: two modules at the 400-line cap split along a seam each, named by what they hold.

* ``pricing.book`` (400): what the no-price warning says of a model (``no_price_said``,
  ``said_of``, ``UNPRICED_LOOK``, ``UNTIMED``) to ``pricing.unpriced``; the book keeps the keys
  and costs and warns once a model;
* ``scan.scanner`` (397): what a Scanner answers of rows (``row``, ``prefetch_rows``,
  ``rows_read_ahead``, ``rows_kept``, ``end_batch``, ``expect_parses``, ``real_ref``,
  ``own_refs``) to ``scan.rowquestions.RowQuestions``, a base of ``Scanner``.
"""

from __future__ import annotations

from pathlib import Path

import agentscan

SRC = Path(agentscan.__file__).parent
ROOM = 360


def test_each_split_module_has_room() -> None:
    for old in ("pricing/book.py", "scan/scanner.py"):
        lines = len((SRC / old).read_text(encoding="utf-8").splitlines())
        assert lines <= ROOM, (old, lines)


def test_the_moved_names_live_in_their_new_modules() -> None:
    from agentscan.pricing import book, unpriced
    from agentscan.scan.rowquestions import RowQuestions
    from agentscan.scan.scanner import Scanner

    assert unpriced.no_price_said.__module__ == unpriced.__name__ and callable(unpriced.said_of)
    assert not hasattr(book, "said_of") and not hasattr(book, "UNPRICED_LOOK")
    for name in ("row", "prefetch_rows", "rows_read_ahead", "rows_kept", "end_batch", "expect_parses", "real_ref"):
        assert getattr(Scanner, name) is getattr(RowQuestions, name), name
        assert name in RowQuestions.__dict__ and name not in Scanner.__dict__, name
    assert "own_refs" in RowQuestions.__dict__


def test_the_no_price_warning_says_the_data_and_what_may_help() -> None:
    from agentscan.pricing.unpriced import UNPRICED_LOOK, UNTIMED, no_price_said

    label = "genai-prices 9.9 (bundled data)"
    said = no_price_said("claude", "claude-opus-99", "genai-prices has no model matching 'claude-opus-99'", label)
    assert said.startswith(f"no price: {label} has no model matching") and UNPRICED_LOOK in said
    assert "prices --update" in said
    assert "--update" not in no_price_said("claude", "claude-opus-99", UNTIMED, label)


# (No caller takes a moved name from ``pricing.book``: tests/test_module_seams_pass60.py's table.)
