"""The Claude provider's modules stay readable (pass 52): each under ~400 lines, the project's
rule (``windowed.py`` had grown to 408: which calls count and what a row reads of their sums
are now apart, ``windowsums.py``)."""

from __future__ import annotations

from pathlib import Path

import agentscan.providers.claude as claude


def test_no_claude_module_passes_400_lines() -> None:
    folder = Path(claude.__file__).parent
    long = {path.name: n for path in folder.glob("*.py") if (n := len(path.read_text().splitlines())) > 400}
    assert not long, long


def test_the_window_reads_its_sums_as_before() -> None:
    # (the split moved methods, not behaviour: a row's readout is the same object's)
    from agentscan.providers.claude.windowed import SettledTotals, WindowedTotals
    from agentscan.providers.claude.windowsums import SumsReadout

    assert issubclass(WindowedTotals, SumsReadout) and issubclass(SettledTotals, WindowedTotals)
    assert WindowedTotals().total() is None and WindowedTotals().by_subagent() == {}
