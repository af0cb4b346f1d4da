"""``doctor``'s findings about Codex (``CodexProvider.diagnostics``): which thread index was
used, what it knows that disk does not, and the session indexes read for thread names."""

from __future__ import annotations

import os

from agentscan.context import ScanContext
from agentscan.providers.codex.discovery import Discovery, discover
from agentscan.toolkit.andmore import cut_lines
from agentscan.toolkit.roots import Root


def diagnostics(ctx: ScanContext, roots: list[Root]) -> list[str]:
    found = discover(ctx)
    lines: list[str] = []
    if not found.thread_index.databases:
        # os.path.exists, not Path.exists: a folder that cannot be entered (CODEX_SQLITE_HOME of
        # mode 0) raised PermissionError here and ended doctor in a traceback.
        present = [str(root.path) for root in roots if root.kind == "database" and os.path.exists(root.path)]
        # None there: the database root's note says so already ("no state_*.sqlite found").
        if present:
            lines = [f"thread index: none readable ({', '.join(present)}); sessions listed from rollouts only"]
    else:
        used = ", ".join(str(path) for path in found.thread_index.databases)
        lines = [f"thread index: {used} ({_counted(len(found.thread_index.rows), 'thread', 'threads')})"]
    if found.orphan_index_rows:
        lines.append(_counted(found.orphan_index_rows, "thread index row points at a rollout that is gone",
                              "thread index rows point at rollouts that are gone") + " (not listed)")
    if found.foreign_index_rows:
        lines.append(_counted(found.foreign_index_rows, "thread index row names", "thread index rows name")
                     + " another thread's rollout (ignored, not listed)")
    if found.outside_index_rows:
        lines.append(_counted(found.outside_index_rows, "thread index row points", "thread index rows point")
                     + " outside CODEX_HOME (not opened, not listed)")
    unindexed = sum(1 for thread in found.threads.values() if thread.indexed is None)
    if found.thread_index.databases and unindexed:
        lines.append(_counted(unindexed, "rollout is", "rollouts are") + " not in the thread index (listed from the rollout)")
    lines.extend(_names_diagnostics(found))
    return lines


#: the most not-listed index rows ``known_gone`` names
_GONE_SHOWN = 3


def known_gone(prefix: str, ctx: ScanContext) -> list[str]:
    """The thread-index rows whose id starts with ``prefix`` (lower-cased) and that discovery
    did not list, each said with why: its rollout is gone (or names none), or it names
    another thread's rollout (``indexpaths``), or one outside the Codex homes.  Every "no
    session matches" asks, a mistyped id most often: the index alone is read first (what
    discovery reads first, memoised), and discovery, a walk of every rollout that a stored
    discovery may have spared this scan, runs only when one of its rows has that prefix."""
    from agentscan.providers.codex.index import thread_index
    from agentscan.providers.codex.indexpaths import Confinement
    from agentscan.providers.codex.roots import codex_roots, session_roots

    rows = thread_index(ctx).rows
    if not any(thread_id.lower().startswith(prefix) for thread_id in rows):
        return []
    found = discover(ctx)
    index = found.thread_index
    where = ", ".join(str(path) for path in index.databases)
    inside = Confinement(session_roots(codex_roots(ctx)))
    lines = []
    for thread_id, row in sorted(index.rows.items()):
        if not thread_id.lower().startswith(prefix) or thread_id in found.threads or thread_id.lower() in found.threads:
            continue
        path = row.rollout_path
        if path is None:
            why = "its row names no rollout"
        elif not inside(path):  # (first: such a path is never opened, nor stat'ed)
            why = f"its row names a file outside the Codex homes, not opened: {path}"
        elif not os.path.isfile(path):  # (as discovery takes it: ``indexpaths``)
            why = f"its rollout is gone: {path}"
        else:
            why = f"its row names another thread's rollout, ignored: {path}"
        lines.append(f"codex:{thread_id} is in Codex's thread index ({where}), but {why}")
    return cut_lines(lines, _GONE_SHOWN, "row of that index", "rows of that index")


def _names_diagnostics(found: Discovery) -> list[str]:
    """The session indexes read for thread names, and those read only in part."""
    from agentscan.providers.codex.names import window_text

    names = found.session_names
    if not names.files:
        return []
    named = sum(1 for thread_id in found.threads if names.has_name(thread_id.lower()))
    lines = [f"thread names: {', '.join(map(str, names.files))} ({_counted(named, 'listed thread', 'listed threads')} named)"]
    for path in names.partial:
        lines.append(f"{path}: only its last {window_text()} read (names set before are not seen there)")
    return lines


def _counted(count: int, one: str, many: str) -> str:
    """``count`` and the words that go with it: one thing, or many."""
    return f"{count:,} {one if count == 1 else many}"
