"""``scan.listing`` stood at 399 lines (pass 56): the filter value (``ListFilter``, ``STAGES``,
``check_filters``) went to ``scan.listfilter``, along its seam: what a caller asks for, apart
from the reading of rows that answers it.  Every caller's import from ``scan.listing`` holds."""

from __future__ import annotations

from pathlib import Path

import agentscan

ROOM = 360


def test_listing_has_room_and_the_filter_is_one_class() -> None:
    import agentscan.scan.listfilter as listfilter
    import agentscan.scan.listing as listing

    lines = len((Path(agentscan.__file__).parent / "scan" / "listing.py").read_text(encoding="utf-8").splitlines())
    assert lines <= ROOM, lines
    assert listing.ListFilter is listfilter.ListFilter is agentscan.ListFilter
    assert listing.check_filters is listfilter.check_filters
    assert listfilter.ListFilter.__module__ == "agentscan.scan.listfilter"
    assert listfilter.ListFilter(since="7d", grep="x").active_stages == ("since", "grep")


def test_the_package_takes_the_filter_from_listfilter() -> None:
    # Ten callers still imported it from ``scan.listing`` (an export's ``check_filters`` loaded
    # the listing and its imports for a value): the package names ``scan.listfilter``.
    import ast

    root = Path(agentscan.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ImportFrom) and node.module == "agentscan.scan.listing" and path.name != "listing.py"
                    and {alias.name for alias in node.names} & {"ListFilter", "check_filters"}):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert len(list(root.rglob("*.py"))) > 300
    assert found == [], found
