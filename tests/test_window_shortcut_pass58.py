"""``windowspans.choose``'s shortcut when the census held still (the spans kept at these very
sessions and fingerprints: no dict of every span, nothing kept for a settling) is taken when a
warm windowed ``tokens`` picks from the stored rows (``windowrefs``): it asked with the ids in
discovery's order and the spans are kept in the session list's, so it was never taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.scan import windowspans
from spies import record_results
from test_window_refs_pass58 import _facts, _home, _warm


@pytest.mark.parametrize("since, until, by", [("2026-11-05T00:00:00+00:00", None, "session"),
                                              (None, "2026-11-02T12:00:00+00:00", "day")])
def test_a_still_census_takes_the_shortcut(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                           since: str | None, until: str | None, by: Any) -> None:
    _home(isolated_home)
    _warm(since, until, by)
    chosen = record_results(monkeypatch, windowspans, "choose")
    picked = _facts(since, until, by, use_cache=True)
    assert len(chosen) == 2  # (Claude's sessions and Gemini's chat, each picked once)
    for answer in chosen:
        assert answer is not None and answer.shared is not None
        assert answer.spans == {} and not answer.changed  # the shortcut's: no span kept aside
    assert picked == _facts(since, until, by, use_cache=False)
