"""docs/architecture.md's source tree names every module of ``src/agentscan``, and only those.

The tree is where a newcomer looks for where a thing lives: a module left out of it cannot be
found there, and one it names after the module went sends a reader to nothing.  Each entry is a
line of the tree's block whose name column (its indentation: two spaces a level) holds a file
ending in ``.py`` or a folder ending in ``/``, then what it holds; a longer description goes on
in lines indented past every name column.  A failure says which line to add or drop, and where.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "agentscan"
DOC = REPO / "docs" / "architecture.md"

#: the deepest name column (a provider's module: ``      name.py``); continuation lines go past it
DEEPEST = 6
CONTINUED = 10


class Entry(NamedTuple):
    path: str  # relative to src/agentscan, "/"-separated
    line: int  # in docs/architecture.md
    says: str  # the words after the name on the entry's own line


def tree_block(text: str) -> tuple[int, list[str]]:
    """The lines of the fenced block that begins with ``src/agentscan/``, and the number of its first."""
    lines = text.splitlines()
    assert "src/agentscan/" in lines, "docs/architecture.md draws no source tree (a line `src/agentscan/`)"
    start = lines.index("src/agentscan/")
    end = lines.index("```", start)
    return start + 1, lines[start + 1:end]


def entries(text: str) -> tuple[list[Entry], list[str]]:
    """The tree's entries (files only), and the lines it could not read as an entry or a continuation."""
    first, block = tree_block(text)
    folders: list[str] = []
    found: list[Entry] = []
    unread: list[str] = []
    for number, line in enumerate(block, first + 1):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= CONTINUED:
            continue
        match = re.fullmatch(r"(\S+)(?:\s+(\S.*))?", line[indent:])
        if indent % 2 or indent > DEEPEST or match is None or not match[1].endswith(("/", ".py")):
            unread.append(f"line {number}: {line.strip()[:70]!r}")
            continue
        level = indent // 2 - 1
        if level > len(folders):
            unread.append(f"line {number}: {line.strip()[:70]!r} is indented past its folder")
            continue
        del folders[level:]
        name, says = match[1], match[2] or ""
        if name.endswith("/"):
            folders.append(name.rstrip("/"))
        else:
            found.append(Entry("/".join([*folders, name]), number, says))
    return found, unread


def modules() -> set[str]:
    return {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
            if "__pycache__" not in path.parts}


def _under(path: str) -> str:
    folder, _, name = path.rpartition("/")
    where = f"under `{folder}/`" if folder else "at the top (beside `entry.py`)"
    return f"`{'  ' * (path.count('/') + 1)}{name}  <what it holds>` {where}"


def test_the_tree_reads_as_entries() -> None:
    _, unread = entries(DOC.read_text(encoding="utf-8"))
    assert unread == [], (
        "docs/architecture.md's source tree: each line is an entry (two spaces a level, a `name.py` or"
        f" `folder/`, two spaces, what it holds) or a continuation indented {CONTINUED} or more:\n"
        + "\n".join(unread))


def test_every_module_is_named_once_with_what_it_holds() -> None:
    found, _ = entries(DOC.read_text(encoding="utf-8"))
    named = [entry.path for entry in found]
    have = modules()
    assert have, PACKAGE  # (the walk must see the package)
    problems = [f"src/agentscan/{path} is not in docs/architecture.md's source tree: add a line {_under(path)}"
                for path in sorted(have - set(named))]
    problems += [f"docs/architecture.md line {entry.line} names {entry.path}, which src/agentscan no longer"
                 " holds: drop that line (and the continuation lines under it)"
                 for entry in found if entry.path not in have]
    problems += [f"docs/architecture.md line {entry.line} names {entry.path} again: keep one line of it"
                 for number, entry in enumerate(found) if entry.path in named[:number]]
    problems += [f"docs/architecture.md line {entry.line}: {entry.path} says nothing of what it holds"
                 for entry in found if entry.path in have and not entry.says.strip()]
    assert problems == [], "\n".join(problems)


def test_the_parser_reads_a_tree() -> None:
    text = "\n".join([
        "```", "src/agentscan/",
        "  entry.py          the console script",
        "                    (a continuation: entry.py's words, not an entry)",
        "  providers/        2. discovery",
        "    base.py           the contract",
        "    claude/           Claude Code",
        "      usage.py            counting",
        "  scan/             3. the index",
        "    cache.py",
        "   odd.py           indented by three",
        "      deep.py             under no folder of its level",
        "```",
    ])
    found, unread = entries(text)
    assert [(entry.path, entry.says) for entry in found] == [
        ("entry.py", "the console script"), ("providers/base.py", "the contract"),
        ("providers/claude/usage.py", "counting"), ("scan/cache.py", "")]
    assert [line.split(":")[0] for line in unread] == ["line 11", "line 12"]
