"""Pass 59: what other modules take from ``providers.claude.discovery`` is public.

``resumedfiles`` (split from discovery in pass 59) and ``gonehint`` imported its private
``_entries`` and ``_stat``: a name with a leading underscore is the module's own to rename or
drop, and another module leaning on it breaks without a word.  They are public now, named by
what they give (``admitted_entries``: a folder's entries the scan admits, ``cached_stat``: an
entry's stat, shared with the census); no module imports a private name of discovery's.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentscan

SRC = Path(agentscan.__file__).parent
DISCOVERY = "agentscan.providers.claude.discovery"


def _private_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == DISCOVERY:
            found += [f"{path.name}: {alias.name}" for alias in node.names if alias.name.startswith("_")]
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
              and isinstance(node.value, ast.Name) and node.value.id == "discovery"):
            found.append(f"{path.name}: discovery.{node.attr}")
    return found


def test_no_module_imports_a_private_name_of_discovery() -> None:
    used = [use for path in sorted(SRC.rglob("*.py")) if path.name != "discovery.py" for use in _private_uses(path)]
    assert used == [], used


def test_the_shared_helpers_are_public() -> None:
    from agentscan.providers.claude import discovery, gonehint, resumedfiles

    for name in ("admitted_entries", "cached_stat"):
        assert callable(getattr(discovery, name)) and getattr(discovery, name).__doc__
    assert resumedfiles.admitted_entries is discovery.admitted_entries
    assert resumedfiles.cached_stat is discovery.cached_stat
    assert "admitted_entries" in Path(gonehint.__file__).read_text(encoding="utf-8")
