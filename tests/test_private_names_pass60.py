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

What is pinned: no ``from agentscan.x import _name``; no ``module._name`` through a module of
the package imported as a name (``render`` read ``term._GLUE``: ``term.GLUE`` now); and no
``thing._name`` where ``_name`` is an attribute its module never defines (assigns, defines, or
takes as a parameter), past the leftovers listed in ``LEFT`` (``scanner._known`` in
``arguments``, ``resolve`` and ``sessionids``: ``Scanner.scans_provider`` now; ``mergedrefs``
read ``MemoRefs._rows``: its ``rows`` now).  Not pinned: a private name the module also
defines for a class of its own (the AST knows no types), and the leftovers, each a class of
use too wide to mend in the pass: Claude's row and half passes reading the sets' state of
``filesummary``'s summary (``_members``, ``_size``…), mixins using their base class's
helpers (``scan.cache``/``filekeyed``, Cursor's ``statedb``, ``saidorder``, ``context``), the
Scanner's seam modules (``sessionids``: ``_refs``), ``ListFilter._given`` (a public dataclass's
field kept for ``arguments.read_in``), and third-party private names (click's
``_protected_args``, pathlib's, the price library's).

Pass 61 mended some: the file summary's summaries and message ids are public fields
(``summaries``, ``text_messages``…, the halves' passes' too: the old names are gone), the
index connection's reads and writes (``IndexConnection.query``, ``write``…) and Cursor's
state DB reader's (``StateDbReader.rows``, ``json_of``…) are public to the classes built on
them, and ``sessionids`` reads ``Scanner.taken_refs``.  What stays in ``halfrow`` and
``recordnotes`` is their inlined reads of ``RecentIds``' and ``ShowFacts``' state, kept for speed.
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


#: attributes named privately that a module reads but never defines, left for now (see above):
#: a name here that is mended should leave the list (the test says which are gone)
LEFT = {
    "cli/typer_app.py": {"_protected_args"},
    "pricing/library.py": {"_providers_from_raw"},
    "providers/claude/halfjoin.py": {"_evict_oldest", "_flush", "_keys", "_recent", "_size", "_window"},
    "providers/claude/halfpass.py": {"_counted", "_keys", "_members", "_order", "_recent", "_requests", "_size"},
    "providers/claude/halfrow.py": {"_flush", "_members", "_order", "_pending", "_size", "_texts", "_tool"},
    "providers/claude/recordnotes.py": {"_members"},
    "scan/arguments.py": {"_given"},
    "scan/saidorder.py": {"_per_file"},
    "toolkit/paths.py": {"_make_child_relpath"},
}
#: private names of the standard library's own making (a named tuple's, ``os._exit``)
STANDARD = {"_replace", "_asdict", "_fields", "_make", "_exit"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _modules_named(path: Path, tree: ast.Module) -> set[str]:
    """The names ``path`` binds to modules of the package (``from agentscan.cli import term as
    _term``, ``import agentscan.x as y``)."""
    def is_module(dotted: str) -> bool:
        place = SRC.parent.joinpath(*dotted.split("."))
        return place.with_suffix(".py").is_file() or (place / "__init__.py").is_file()

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name.startswith("agentscan")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentscan"):
            names |= {alias.asname or alias.name for alias in node.names if is_module(f"{node.module}.{alias.name}")}
    return names


def _defined(tree: ast.Module) -> set[str]:
    """Every name ``tree`` defines, assigns (an attribute too) or takes as a parameter."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _private_attributes(path: Path) -> tuple[list[str], set[str]]:
    """``module._name`` through a module of the package, and the private attributes read in
    ``path`` that it never defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, own = _modules_named(path, tree), _defined(tree)
    through, foreign = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in modules:
                through.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value.id}.{node.attr}")
            elif node.attr not in own and node.attr not in STANDARD:
                foreign.add(node.attr)
    return through, foreign


def test_no_module_reads_a_private_name_through_another_module() -> None:
    used = [use for path in sorted(SRC.rglob("*.py")) for use in _private_attributes(path)[0]]
    assert used == [], used


def test_no_module_reads_private_attributes_it_never_defines_but_the_leftovers() -> None:
    found = {str(path.relative_to(SRC)): foreign for path in sorted(SRC.rglob("*.py"))
             for foreign in [_private_attributes(path)[1]] if foreign}
    new = {name: sorted(names - LEFT.get(name, set())) for name, names in found.items() if names - LEFT.get(name, set())}
    assert new == {}, new  # (a new lean on another module's private name: make it public there)
    gone = {name: sorted(names - found.get(name, set())) for name, names in LEFT.items() if names - found.get(name, set())}
    assert gone == {}, gone  # (mended: take it off ``LEFT``)


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
