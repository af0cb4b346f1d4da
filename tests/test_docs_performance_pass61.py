"""docs/performance.md keeps its hand-written analysis when the bench rewrites the tables, and its
"Targets, honestly" holds whatever run the tables are from.

``bench/run.py --write`` keeps what follows its marker; a table pasted over the marker (the
fifty-eighth pass's) left the next ``--write`` to drop every section.  And "Targets, honestly"
quoted "this run" against "last run" long after both were old (the twenty-sixth pass's figures
beside the sixtieth pass's tables): it points at the tables for the figures now, so it must not
speak of a run, or a pass, as the current one.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "performance.md"


def _marker() -> str:
    found = re.search(r'^ANALYSIS_MARKER = "(.+)"$', (REPO / "bench" / "run.py").read_text(encoding="utf-8"), re.M)
    assert found, "bench/run.py no longer names ANALYSIS_MARKER as this test reads it"
    return found.group(1)


def test_the_bench_keeps_the_analysis() -> None:
    text = PAGE.read_text(encoding="utf-8")
    marker = _marker()
    assert text.count(marker) == 1, f"docs/performance.md must hold {marker!r} once, after the tables"
    tables, analysis = text.split(marker)
    assert "## Scale 1:" in tables and "## How to read the tables" in analysis, (
        "the marker goes after the bench's tables and before the hand-written sections")


def test_targets_honestly_names_no_run_as_the_current_one() -> None:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Targets, honestly\n"):]
    section = section[:section.index("\n## ", 1)]
    stale = re.findall(r"[^.|]*\b(?:this|last|the last) (?:run|pass)\b[^.|]*", section, flags=re.I)
    assert stale == [], ("\"Targets, honestly\" points at the top tables for figures; it must not quote a run"
                         " or a pass as the current one:\n" + "\n".join(s.strip() for s in stale))
