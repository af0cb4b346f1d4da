"""Pass 60: four modules near the 400-line cap split along a seam each, names that say what
they hold; every caller imports the moved names from their new home.

* ``cli.tokens_notes`` (387): the rows a table folds and why (``fold_kind``, ``Folded``) to
  ``cli.tokens_folds``;
* ``cli.tokens_text`` (372): laying out and printing the lines (``print_lines``,
  ``choose_layout``, ``bounds_drawn``) to ``cli.tokens_layout``; ``print_report`` makes them;
* ``providers.claude.usage`` (374): the service tier a call ran on (``other_tier``) to
  ``providers.claude.servicetier``;
* ``providers.claude.row`` (385): what each record says of a row (``note_assistant`` …,
  ``NOTES``, ``MAX_RESULTS``) to ``providers.claude.recordnotes``, shared with ``halfrow``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentscan

SRC = Path(agentscan.__file__).parent
ROOM = 340
SPLIT = {"cli/tokens_notes.py": "cli/tokens_folds.py", "cli/tokens_text.py": "cli/tokens_layout.py",
         "providers/claude/usage.py": "providers/claude/servicetier.py",
         "providers/claude/row.py": "providers/claude/recordnotes.py"}


def test_each_split_module_has_room() -> None:
    for old in SPLIT:
        lines = len((SRC / old).read_text(encoding="utf-8").splitlines())
        assert lines <= ROOM, (old, lines)


def test_the_moved_names_live_in_their_new_modules() -> None:
    from agentscan.cli import tokens_folds, tokens_layout
    from agentscan.providers.claude import recordnotes, servicetier

    assert tokens_folds.Folded.__module__ == tokens_folds.__name__ and callable(tokens_folds.fold_kind)
    assert tokens_layout.print_lines.__module__ == tokens_layout.__name__
    assert tokens_layout.bounds_drawn.__module__ == tokens_layout.__name__
    assert servicetier.other_tier.__module__ == servicetier.__name__
    assert recordnotes.note_assistant.__module__ == recordnotes.__name__


def test_no_caller_takes_a_moved_name_from_its_old_module() -> None:
    moved = {"agentscan.cli.tokens_notes": {"Folded", "fold_kind", "named_folds", "names_nothing", "EMPTY_FILES"},
             "agentscan.cli.tokens_text": {"print_lines", "choose_layout", "bounds_drawn", "Laid"},
             "agentscan.providers.claude.row": {"MAX_RESULTS", "NOTES", "note_task", "note_result"},
             # (pass 61: ``pricing.book``'s no-price words to ``pricing.unpriced``)
             "agentscan.pricing.book": {"said_of", "UNPRICED_LOOK", "_UNTIMED", "_LIBRARY"}}
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in moved:
                found += [f"{path.relative_to(SRC)}: {alias.name}" for alias in node.names if alias.name in moved[node.module]]
    assert found == [], found
