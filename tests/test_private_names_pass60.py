"""Pass 60: no module of the package takes another module's private names.

Pass 59 held ``providers.claude.discovery``'s private names to itself
(``test_claude_discovery_names_pass59``); others leaned on private names too: ``scan.exactcalls``
and ``scan.windowsettle`` imported ``collect._Collector`` and called its ``_whole``, ``_parser``
and ``_sums_of``; ``claude.halfpass`` imported ``windowed._packed``; ``claude.halfrow`` imported
``row._note_*``, ``_NOTES`` and ``_TASK_NAMES``; ``whentext``, ``scan.arguments`` and ``halfrow``
imported ``timeutil._EARLIEST``/``_LATEST``.  A name with a leading underscore is its module's to
rename or drop; another module leaning on it breaks without a word.  They are public now
(``collect.Collector`` and its seam, ``windowed.packed_hashes``, ``recordnotes``: the rules a
record is noted by, split from ``row``, ``timeutil.EARLIEST``/``LATEST``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentscan

SRC = Path(agentscan.__file__).parent


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentscan"):
            found += [f"{path.relative_to(SRC)}:{node.lineno}: {node.module}.{alias.name}" for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def _private_calls_on(path: Path, names: set[str]) -> list[str]:
    """``name._attr`` where ``name`` is a parameter of another module's class (``collector``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in names):
            found.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_imports_another_module_s_private_name() -> None:
    paths = sorted(SRC.rglob("*.py"))
    assert len(paths) > 300
    used = [use for path in paths for use in _private_imports(path)]
    assert used == [], used


def test_the_collector_s_helpers_use_its_public_seam() -> None:
    from agentscan.scan import collect

    helpers = [SRC / "scan" / "exactcalls.py", SRC / "scan" / "windowsettle.py"]
    used = [use for path in helpers for use in _private_calls_on(path, {"collector"})]
    assert used == [], used
    for name in ("every_session", "parser", "stored_sums", "read_misses", "fill_keys"):
        assert getattr(collect.Collector, name).__doc__, name


def test_both_row_loops_note_records_by_one_set_of_rules() -> None:
    from agentscan.providers.claude import halfjoin, halfrow, recordnotes, row

    assert row.note_assistant is halfrow.NOTES[0] is recordnotes.note_assistant
    assert row.NOTES is halfrow.NOTES is recordnotes.NOTES
    assert halfrow.note_task is recordnotes.note_task and halfrow.note_result is recordnotes.note_result
    assert "MAX_RESULTS" in Path(halfjoin.__file__).read_text(encoding="utf-8")
    assert not hasattr(row, "MAX_RESULTS")  # one cap, where the results are listed
