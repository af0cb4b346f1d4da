"""Pass 61: no function or class of the package is used by nothing.

Ten were (``farbounds.far_day``, ``otlp.encode_json.span_json``, ``claude.records.usage_tokens``,
``codex.fullcounts.exact_counts``, ``codex.records.event_type``, ``codex.roots.highest_state_db``,
``cursor.messages.model_of``, ``fake.fake_usage``, ``toolkit.roots.Root.describe``,
``usagegroups.bucket_of``): left behind when their last caller moved on, each still read and
kept in step by whoever passed, called by nobody.  They are gone; two more, in ``hooks``, are
``LEFT`` for the helper who owns that package this pass.

What is pinned: every function, class and method defined in ``src/agentscan`` is named
somewhere in ``src``, ``tests`` or ``bench``: read, an attribute, imported, or a string that
is a name or a dotted path (what ``getattr`` or an entry point looks up); a docstring's
words are no use.  A name is matched, not a binding (the AST knows no types): a dead
``describe`` hides behind any other ``describe`` read anywhere, so this misses some, never
flags wrongly.  Not pinned, by design: what a framework calls (a decorator registers it: a
Typer command, a migration, a provider; a method the standard library, click or urllib call:
``OVERRIDES``), the library's public API (``agentscan.__all__`` and the names
``docs/library.md`` documents: a client uses them, not the package), and the TypedDicts that
write a provider's raw JSON down (``records.Raw*``: the format's documentation, for a reader).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import agentscan

SRC = Path(agentscan.__file__).parent
ROOT = SRC.parent.parent
#: methods of the package's classes that the standard library, click or urllib call by name
OVERRIDES = {"format_epilog", "fromutc", "dst", "redirect_request"}
#: used by nothing, left for the helper who owns ``hooks`` this pass: a name mended leaves
#: the list (the test says which are gone)
LEFT = {"hooks/capture.py: read_stdin", "hooks/evidence.py: canonical"}


_DOTTED = re.compile(r"[A-Za-z_][\w.:]*")


def _names_said(tree: ast.AST) -> set[str]:
    """The names ``tree`` says: read, an attribute, imported, or a string that is a
    name or a dotted path (not a docstring's or a message's words: they name, they do not use)."""
    said: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            said.add(node.id)
        elif isinstance(node, ast.Attribute):
            said.add(node.attr)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            said.update(alias.name.rpartition(".")[2] for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.fullmatch(node.value):
            said.update(node.value.replace(":", ".").split("."))  # a name looked up (``getattr``, an entry point)
    return said


def _defined(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]:
    """The functions and classes ``tree`` defines at its top and in its classes."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
        if isinstance(node, ast.ClassDef):
            found += [(item.name, item) for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return found


def _exempt(name: str, node: ast.AST) -> bool:
    if name.startswith("__") or name in OVERRIDES:
        return True
    if getattr(node, "decorator_list", None):  # registered (a command, a migration) or a property
        return True
    return isinstance(node, ast.ClassDef) and name.startswith("Raw")  # a raw format's TypedDict


def _documented() -> set[str]:
    words = re.findall(r"`([^`]+)`", (ROOT / "docs" / "library.md").read_text(encoding="utf-8"))
    return set(agentscan.__all__) | {name for word in words for name in re.findall(r"[A-Za-z_]\w*", word)}


def unused(src: Path, others: list[Path]) -> list[str]:
    """``path: name`` of each function or class under ``src`` that nothing under ``src``
    nor in ``others`` names (a ``def`` names nothing: only a use does, its own module's too)."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(src.rglob("*.py"))}
    said: set[str] = set()
    for tree in [*trees.values(), *(ast.parse(path.read_text(encoding="utf-8")) for path in others)]:
        said |= _names_said(tree)
    public = _documented()
    return [f"{path.relative_to(src)}: {name}" for path, tree in trees.items()
            for name, node in _defined(tree) if name not in said and name not in public and not _exempt(name, node)]


def test_no_function_or_class_is_used_by_nothing() -> None:
    others = sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "bench").glob("*.py"))
    assert len(others) > 500
    found = unused(SRC, others)
    assert sorted(set(found) - LEFT) == []  # (remove it, or use it)
    assert sorted(LEFT - set(found)) == []  # (mended: take it off ``LEFT``)
