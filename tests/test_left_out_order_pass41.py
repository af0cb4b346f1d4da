"""Every table names the columns it left out to fit in the order they went (one sentence,
``table.left_out_text``): ``prices`` named them the other way round."""

from __future__ import annotations

import re

from builders import invoke


def test_prices_names_what_it_left_out_in_the_order_it_went(tty) -> None:  # noqa: ANN001
    tty(38)
    result = invoke("--demo", "prices", "gpt-5", "claude-sonnet-4-5")
    note = " ".join(result.stderr.split())
    found = re.search(r"left out to fit 38 columns: ([A-Z ,]+)", note)
    assert found is not None, result.stderr
    gone = [name.strip() for name in found.group(1).split(",")]
    # (pass 45) MODEL first: each PRICED AS says its name whole (``openai/gpt-5``)
    assert gone == [name for name in ("MODEL", "CACHE WRITE", "CACHE READ", "OUTPUT") if name in gone] and gone, gone
