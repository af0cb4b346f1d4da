"""Pass 61: nothing the package defines is used by nothing.

Ten were (``farbounds.far_day``, ``otlp.encode_json.span_json``, ``claude.records.usage_tokens``,
``codex.fullcounts.exact_counts``, ``codex.records.event_type``, ``codex.roots.highest_state_db``,
``cursor.messages.model_of``, ``fake.fake_usage``, ``toolkit.roots.Root.describe``,
``usagegroups.bucket_of``): left behind when their last caller moved on, each still read and
kept in step by whoever passed, called by nobody.  They are gone, and so are three a name
shared with live code hid (``claude.records.cache_write_1h`` and ``as_int``: a ``cache_write_1h``
field, a ``Period``'s part; ``linescan._HALF_LINE``, a constant); two more, in ``hooks``, are
``LEFT`` for the helper who owns that package this pass.

What is pinned: every function, class and method, and every constant a module assigns at its
top, defined in ``src/agentscan`` is used somewhere in ``src``, ``tests`` or ``bench``: read,
an attribute, imported, or (in ``src``) a string that is a name or a dotted path (what
``getattr`` or an entry point looks up); a docstring's words in ``src`` are no use, nor is an
assignment.  ``src`` is read as syntax; ``tests`` and ``bench`` only add uses, so any word of
theirs counts (a comment's too: lenient, and a tenth of the time of parsing them).

A name is matched, not a binding (the AST knows no types).  For what a module defines at its
top (a function, a class, a constant) the match is narrowed: it is used in its own module, or
in a file that names that module (an import of it or from it, a dotted path: its last part
as a word), so a dead ``cache_write_1h`` no longer hides behind a live field of that name in
another module.  A method is matched by name alone: a dead ``describe`` hides behind any other
``describe`` read anywhere, so this misses some, never flags wrongly.

Not pinned, by design: what a framework calls (a decorator registers it: a Typer command or
callback, a migration, a property's setter or deleter: ``REGISTERING``; other decorators, a
``dataclass``, ``lru_cache``, ``staticmethod``…, register nothing and exempt nothing); a
method the standard library, click or urllib call by name (``OVERRIDES``); the library's
public API (``agentscan.__all__`` and the names ``docs/library.md`` documents: a client uses
them, not the package); and the TypedDicts that write a provider's raw JSON down
(``records.Raw*``: the format's documentation, for a reader).  Deliberate test hooks pass:
code the package itself never calls but tests do (``providers.unregister``,
``cursor.statedb.close_state_db``, ``fake.FakeProvider``…) is used, by tests; ``TEST_ONLY``
lists the module-top ones and may shrink (the test says which are gone), never grow.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import agentscan

# (the checkout's files, not the installed copy's: CI installs agentscan, not in editable mode)
ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "agentscan"
#: methods of the package's classes that the standard library, click or urllib call by name
OVERRIDES = {"format_epilog", "fromutc", "dst", "redirect_request"}
#: decorators that register what they decorate (called by a framework, not by name); the
#: last part of a dotted one (``@x.setter``) is matched for ``setter``/``deleter``
REGISTERING = {"app.command", "app.callback", "migration", "setter", "deleter"}
#: used by nothing, left for the helper who owns ``hooks`` this pass: a name mended leaves
#: the list (the test says which are gone)
LEFT = {"hooks/capture.py: read_stdin", "hooks/evidence.py: canonical"}

_DOTTED = re.compile(r"[A-Za-z_][\w.:]*")
_WORD = re.compile(r"[A-Za-z_]\w*")


def _names_said(tree: ast.AST) -> set[str]:
    """The names ``tree`` says: read, an attribute, imported (and the module's dotted path),
    or a string that is a name or a dotted path (not a docstring's or a message's words: they
    name, they do not use).  A name assigned is not said."""
    said: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Store):
                said.add(node.id)
        elif isinstance(node, ast.Attribute):
            said.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            said.update(alias.name for alias in node.names)
            said.update((node.module or "").split("."))
        elif isinstance(node, ast.Import):
            said.update(part for alias in node.names for part in alias.name.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.fullmatch(node.value):
            said.update(node.value.replace(":", ".").split("."))  # a name looked up (``getattr``, an entry point)
    return said


Defined = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign


def _defined(tree: ast.Module) -> list[tuple[str, Defined, bool]]:
    """``(name, node, at the module's top)`` of the functions, classes and constants ``tree``
    defines at its top, and of the methods of its classes."""
    found: list[tuple[str, Defined, bool]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node, True))
        elif isinstance(node, ast.Assign):
            found += [(target.id, node, True) for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node, True))
        if isinstance(node, ast.ClassDef):
            found += [(item.name, item, False) for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return found


def _registered(decorator: ast.expr) -> bool:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    dotted = ast.unparse(called)
    return dotted in REGISTERING or dotted.rpartition(".")[2] in {"setter", "deleter"}


def _exempt(name: str, node: Defined) -> bool:
    if name.startswith("__") or name in OVERRIDES:
        return True
    if any(_registered(decorator) for decorator in getattr(node, "decorator_list", ())):
        return True
    return isinstance(node, ast.ClassDef) and name.startswith("Raw")  # a raw format's TypedDict


def _documented() -> set[str]:
    words = re.findall(r"`([^`]+)`", (ROOT / "docs" / "library.md").read_text(encoding="utf-8"))
    return set(agentscan.__all__) | {name for word in words for name in _WORD.findall(word)}


def _module_word(path: Path, src: Path) -> str:
    """The word a file names ``path``'s module by: its last part (a package's for ``__init__``)."""
    relative = path.relative_to(src)
    return relative.parent.name or src.name if relative.stem == "__init__" else relative.stem


def unused(src: Path, others: list[Path], keep_for: set[str] | None = None) -> list[str]:
    """``path: name`` of each function, class, method or module constant under ``src`` that
    nothing under ``src`` nor in ``others`` uses (a ``def`` or an assignment uses nothing:
    only a use does, its own module's too).  ``keep_for``: filled with those that only
    ``others`` use, when given."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(src.rglob("*.py"))}
    words: list[set[str]] = [_names_said(tree) for tree in trees.values()]
    src_files = len(words)
    words += [set(_WORD.findall(path.read_text(encoding="utf-8"))) for path in others]
    saying: defaultdict[str, set[int]] = defaultdict(set)  # a word -> the files that say it
    for index, said in enumerate(words):
        for word in said:
            saying[word].add(index)
    public = _documented()
    found = []
    for index, (path, tree) in enumerate(trees.items()):
        module = saying.get(_module_word(path, src), set())
        for name, node, top in _defined(tree):
            if name in public or _exempt(name, node):
                continue
            users = saying.get(name, set())
            if top:
                users = users & (module | {index})  # its own module, or a file naming that module
            if not users:
                found.append(f"{path.relative_to(src)}: {name}")
            elif keep_for is not None and top and min(users) >= src_files:
                keep_for.add(f"{path.relative_to(src)}: {name}")
    return found


#: what a module defines at its top that only tests or benchmarks use (a hook for them, or a
#: name kept for them): the list may shrink (the test says which are gone), never grow
TEST_ONLY = {
    "providers/__init__.py: unregister",  # (a provider a test registered, taken off again)
    "providers/cursor/statedb.py: close_state_db",  # (a scan's connection closed before a test moves the DB)
    "providers/fake.py: FakeProvider",  # (the in-memory provider: tests, docs and experiments)
    "hooks/text.py: _seconds",  # (old names kept for a test: ``tracetimes.seconds_text``, ``livecounts.count_outcome``)
    "otlp/live.py: _count",
}


def _others() -> list[Path]:
    """The tests (not this one: it names what it lists) and the benchmarks."""
    tests = [path for path in sorted((ROOT / "tests").rglob("*.py")) if path.name != Path(__file__).name]
    return tests + sorted((ROOT / "bench").glob("*.py"))


def test_nothing_defined_is_used_by_nothing() -> None:
    others = _others()
    assert len(others) > 500
    test_only: set[str] = set()
    found = unused(SRC, others, test_only)
    assert sorted(set(found) - LEFT) == []  # (remove it, or use it)
    assert sorted(LEFT - set(found)) == []  # (mended: take it off ``LEFT``)
    assert sorted(test_only - TEST_ONLY) == []  # (used by tests alone: let the package use it, or move it to tests)
    assert sorted(TEST_ONLY - test_only) == []  # (the package uses it now, or it is gone: take it off ``TEST_ONLY``)


def test_what_the_rules_flag(tmp_path: Path) -> None:
    """The rules themselves, on a small package: a dead frozen dataclass, cached function and
    static method are flagged (a property's setter is not); a dead constant; a function whose
    name another module's live attribute shares; and one only a test uses is told apart."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "values.py").write_text(
        "import dataclasses, functools\n\n\n@dataclasses.dataclass(frozen=True)\nclass DeadValue:\n    x: int = 0\n\n\n"
        "@functools.lru_cache\ndef dead_cached(x):\n    return x\n\n\nclass Holder:\n    @staticmethod\n"
        "    def dead_static():\n        return 1\n\n    @property\n    def shown(self):\n        return 1\n\n"
        "    @shown.setter\n    def shown(self, value):\n        pass\n\n\nDEAD_LIMIT = 3\nLIVE_LIMIT = 4\n\n\n"
        "def cache_write_1h(usage):\n    return LIVE_LIMIT\n\n\ndef tested_only():\n    return 1\n", encoding="utf-8")
    (package / "user.py").write_text("from pkg.values import Holder\n\nprint(Holder().shown)\n", encoding="utf-8")
    (package / "other.py").write_text("import sys\n\nprint(sys.cache_write_1h)\n", encoding="utf-8")
    test = tmp_path / "test_user.py"
    test.write_text("from pkg import values\n\n\ndef test_it():\n    assert values.tested_only()\n", encoding="utf-8")
    test_only: set[str] = set()
    assert {name.partition(": ")[2] for name in unused(package, [test], test_only)} == {
        "DeadValue", "DEAD_LIMIT", "cache_write_1h", "dead_cached", "dead_static"}
    assert test_only == {"values.py: tested_only"}
