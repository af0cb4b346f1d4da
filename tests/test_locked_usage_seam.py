"""The rule for sums kept under a locked database (Cursor's state DB) lives in one small module
beside nothing else, not in the generic parse: ``usageparse`` had grown to 385 lines with it, and
``rowreader`` held its other half."""

from __future__ import annotations

import inspect
from pathlib import Path


def test_the_locked_database_rule_is_in_lockedusage() -> None:
    from agentscan.scan import lockedusage, rowreader, usageparse

    for module in (usageparse, rowreader):
        source = inspect.getsource(module)
        assert "locked_usage(" not in source and "older_parsers" not in source, module.__name__
    assert "kept_under_a_lock(" in inspect.getsource(usageparse.UsageParser.parse)
    assert "sums_stand_under_a_lock(" in inspect.getsource(rowreader.note_kept_sums)
    sizes = {m.__name__: len(Path(m.__file__).read_text(encoding="utf-8").splitlines())
             for m in (usageparse, lockedusage)}
    assert sizes["agentscan.scan.usageparse"] <= 360 and sizes["agentscan.scan.lockedusage"] <= 120, sizes
