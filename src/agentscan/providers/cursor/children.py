"""Which Cursor composer, transcript or CLI chat is a delegated run of which: one rule for
``list``, ``tokens``, ``show`` and discovery alike (docs/providers/cursor.md, "Subagents").

Links come two ways: a parent lists a child (``subComposerIds``/``subagentComposerIds``, a
transcript's ``subagents/`` files) or a child names its parent (``subagentInfo`` of a
composer or of a CLI store).  They may disagree, loop or point at nothing, so each child
gets exactly one parent:

* the first parent it names that is there, else the listing parent with the smallest id
  (a child listed by two parents is counted once, not in both rows);
* a link to itself is no link; in a loop the member with the smallest id keeps no parent
  (so the loop is listed once, under it);
* a chain that ends at something that cannot be a session (an empty composer, a listed id
  with nothing behind it) is cut below it, at the highest member that can be one.

Everything that has a parent is no session of its own; every run rolls into the one
session at the top of its chain, so each bubble is counted once, in one row.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

from agentscan.context import ScanContext

if TYPE_CHECKING:
    from agentscan.providers.cursor.discovery import TranscriptSet

# Each run has one parent and no loop is left, so a walk visits every run once; this bounds
# only a row's tuple of ids, far past any real session (500, before the thirty-eighth pass,
# left the tokens of a session's later runs counted nowhere).
MAX_CHILDREN = 100_000


class Forest(NamedTuple):
    """The chosen parent of each child, and each parent's children in the order they
    were mentioned (a named tuple: see ``cli.term.Terminal``)."""

    parent: dict[str, str]
    kids: dict[str, tuple[str, ...]]

    def owned(self, node: str) -> bool:
        return node in self.parent

    def descendants(self, root: str) -> tuple[str, ...]:
        """Every run under ``root``, breadth first (a row's ``subagents``, its tokens)."""
        found: list[str] = []
        pending = [root]
        while pending and len(found) < MAX_CHILDREN:
            level = [kid for node in pending for kid in self.kids.get(node, ())]
            found.extend(level[: MAX_CHILDREN - len(found)])
            pending = level
        return tuple(found)


def build(named: Mapping[str, Sequence[str]], listed: Mapping[str, Sequence[str]],
          present: set[str], viable: set[str]) -> Forest:
    """``named``: child -> the parents it names, preferred first; ``listed``: parent -> the
    children it lists, in order; ``present``: what can be a parent (it exists);
    ``viable``: what may be a session of its own when nothing owns it."""
    lister: dict[str, str] = {}
    for parent in sorted(listed):
        if parent in present:
            for child in listed[parent]:
                if child != parent:
                    lister.setdefault(child, parent)
    parent_of: dict[str, str] = {}
    for child in sorted(set(named) | set(lister)):
        choice = next((p for p in named.get(child, ()) if p != child and p in present), None) or lister.get(child)
        if choice is not None:
            parent_of[child] = choice
    _break_loops(parent_of)
    _cut_dead_tops(parent_of, viable)
    mentions: dict[str, dict[str, None]] = {}
    for parent, children in listed.items():
        mentions.setdefault(parent, {}).update(dict.fromkeys(children))
    for child in sorted(named):
        for parent in named[child]:
            mentions.setdefault(parent, {})[child] = None
    kids = {}
    for parent, mentioned in mentions.items():
        mine = tuple(child for child in mentioned if parent_of.get(child) == parent)
        if mine:
            kids[parent] = mine
    return Forest(parent_of, kids)


def _break_loops(parent_of: dict[str, str]) -> None:
    """Each loop loses the link of its smallest member (deterministic whatever the order)."""
    done: set[str] = set()
    for start in sorted(parent_of):
        path: dict[str, None] = {}
        node: str | None = start
        while node is not None and node not in done and node not in path:
            path[node] = None
            node = parent_of.get(node)
        if node is not None and node in path:  # came back to the walk: a loop
            loop = list(path)[list(path).index(node):]
            del parent_of[min(loop)]
        done.update(path)


def _cut_dead_tops(parent_of: dict[str, str], viable: set[str]) -> None:
    """A chain whose top cannot be a session is cut at its highest member that can.

    One pass over the forest (``_break_loops`` left no loop): each run's top and the
    highest viable run on its way up are worked out once, shared by every run below it
    (a walk per run, as before, was quadratic in a chain's depth).  The runs cut are
    those highest viable ones under a top that is not viable, whatever order they are met."""
    top: dict[str, str] = {}
    highest: dict[str, str | None] = {}  # the viable run nearest the top, itself included
    for start in parent_of:
        path: list[str] = []
        node = start
        while node not in top and node in parent_of:
            path.append(node)
            node = parent_of[node]
        if node not in top:  # a top
            top[node] = node
            highest[node] = node if node in viable else None
        for below in reversed(path):  # down from the top, each one's parent already known
            above = parent_of[below]
            top[below] = top[above]
            reached = highest[above]
            highest[below] = reached if reached is not None else below if below in viable else None
    cut = {reached for node in parent_of
           if top[node] not in viable and (reached := highest[node]) is not None}
    for node in cut:
        del parent_of[node]


def _ordered(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(child for group in groups for child in group))


class Family(NamedTuple):
    """Every Cursor session discovery finds and the runs under each (a named tuple)."""

    transcripts: dict[str, TranscriptSet]  # the sessions with a transcript (unowned)
    ide: tuple[str, ...]  # IDE composers with no transcript
    stores: tuple[tuple[str, Path], ...]  # Agent CLI stores with no transcript
    forest: Forest
    #: the CLI subagent chats (a store, no transcript) that roll into a session: read in its ``show``
    run_stores: dict[str, Path]
    #: the runs with a top-level transcript of their own that roll into a session (a composer its
    #: parent lists): ``show`` reads their exchange from it while the state DB, which holds their
    #: bubbles, cannot be read (``showsession``)
    run_transcripts: dict[str, Path]
    #: the names of the ``ide`` chats as the links kept with the DB's stamp hold them, while the DB
    #: cannot be read (``keptfamily.Links``): such a chat's row has its title from nothing else
    kept_names: dict[str, str] = {}
    #: their update times as those links hold them (epoch seconds: ``keptfamily.Links.updated``)
    kept_times: dict[str, float] = {}

    def children(self, native_id: str) -> tuple[str, ...]:
        return self.forest.descendants(native_id)


_KEY = "cursor.family"


def family(ctx: ScanContext) -> Family:
    """The one assignment of runs to sessions, for discovery and every row (memoised per scan:
    a row rebuilt alone asks for it too, so its ``subagents`` and tokens are discovery's)."""
    found = ctx.memo.get(_KEY)
    if not isinstance(found, Family):
        found = ctx.memo[_KEY] = _family(ctx)
    return found


def _family(ctx: ScanContext) -> Family:
    from agentscan.providers.cursor.chats import chat_dirs, subagent_parents
    from agentscan.providers.cursor.discovery import discover_transcripts
    from agentscan.providers.cursor.keptfamily import family_links
    from agentscan.providers.cursor.roots import transcripts_roots
    from agentscan.providers.cursor.statedb import state_db

    transcripts = discover_transcripts(transcripts_roots(ctx), ctx)
    db = state_db(ctx)
    composers = db.composers()
    # While the DB cannot be read, its links as read last at the stamp it has now: a parent's
    # runs (its fingerprint) and the transcripts that are no sessions stay as that read made them.
    links = family_links(ctx, composers)
    chats = chat_dirs(ctx)
    # An ``isSubagent`` header (older builds) is a run of some session: its parent lists it
    # (``listed`` below), which owns it.  One that no parent lists or names is listed on its
    # own, as one whose named parent is gone: its tokens are never lost.
    talking = {c for c, link in links.items() if link.talking}
    # A chat with no transcript is read from its store, if that is there (``standalone``).
    stores = {c: d for c, d in sorted(chats.items()) if c not in transcripts and c not in talking
              and os.path.isfile(d / "store.db") and not ctx.linked_outside(d / "store.db")}
    named: dict[str, tuple[str, ...]] = {c: (link.parent_id,) for c, link in links.items() if link.parent_id}
    for chat, directory in stores.items():
        parents = subagent_parents(directory, ctx)
        if parents:
            named[chat] = _ordered(named.get(chat, ()), parents)
    listed: dict[str, tuple[str, ...]] = {t: tuple(sub.agent_id for sub in files.subagents)
                                          for t, files in transcripts.items() if files.subagents}
    for composer, link in links.items():
        if link.sub_ids:
            listed[composer] = _ordered(listed.get(composer, ()), link.sub_ids)
    stems = {sub for subs in listed.values() for sub in subs}
    # (The kept links leave out the empty composers no composer names: the Agent CLI, whose
    # chats alone may name another parent, writes no composer.)
    forest = build(named, listed, present=transcripts.keys() | composers.keys() | links.keys() | chats.keys() | stems,
                   viable=transcripts.keys() | talking | stores.keys())
    return Family(
        transcripts={t: files for t, files in transcripts.items() if not forest.owned(t)},
        # The composers with a conversation, as read now or, while the DB cannot be read, as its
        # last read at the stamp it has now kept them (``keptfamily``): a chat the DB alone holds
        # is listed with the row and sums kept of it then, as a chat with a transcript is (it
        # vanished from ``list`` and ``tokens`` while the DB was locked, before pass 56).
        ide=tuple(c for c, link in links.items() if link.talking and c not in transcripts and not forest.owned(c)),
        stores=tuple((c, d) for c, d in stores.items() if not forest.owned(c)),
        forest=forest,
        run_stores={c: d for c, d in stores.items() if forest.owned(c)},
        run_transcripts={t: files.main for t, files in transcripts.items() if forest.owned(t) and files.main is not None},
        kept_names={c: link.name for c, link in links.items() if link.name and c not in composers},
        kept_times={c: link.updated for c, link in links.items() if link.updated is not None and c not in composers},
    )
