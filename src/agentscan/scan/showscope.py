"""The sessions ids name (``show ID``, ``tokens ID``, ``otlp ID``), with only the warnings
of finding them that may concern those sessions.

An id that the index does not answer whole (a prefix, a bare native id) is looked for in
every provider's sessions (``scan.resolve``), and discovering them warns of what could not
be read: a Codex rollout of the wrong owner.  Told with ``show <a Claude session>``, it
failed ``--strict`` over a file that session has nothing to do with, where ``list -p
claude`` (which never discovers Codex) says nothing of it.  So the warnings raised while
the ids are looked up are held back, then said only when they may concern a session found
(``may_concern``); when the lookup fails (no such session, an ambiguous prefix) every one
is said: the session may be in a place that could not be read.

When unsure, a warning is kept.  One is left out only when it names:

* a file or folder of another provider's alone (under its own folders: ``~/.codex`` for
  a Claude session); or
* a file of the session's own provider that is none of the session's files and whose name
  holds another session's id (``rollout-…-<uuid>.jsonl``, ``<uuid>.jsonl``, or a Gemini
  chat's ``session-<time>-<8 hex>.json`` its ids do not start with), unless the file
  could not be read this time (a ``passing`` warning): unread, it may have been one of the
  session's own (a Codex subagent's rollout says in its header whose it is).
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Sequence

from agentscan.context import say

if TYPE_CHECKING:
    from agentscan.context import Told
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner

Asked = tuple[str, "SessionRef", "str | None"]


@lru_cache(maxsize=1)
def _named_id() -> re.Pattern[str]:
    """An id as providers write them in file names (a UUID: Claude's, Codex's, Cursor's
    sessions); compiled when first needed (``tokens`` with no id never needs it)."""
    return re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


@lru_cache(maxsize=1)
def _named_start() -> re.Pattern[str]:
    """The start of an id a Gemini chat's file name ends with (``session-<time>-eefc44a3.json``:
    its session id's first 8 hex digits)."""
    return re.compile(r"^session-.*-([0-9a-f]{8})\.jsonl?$", re.IGNORECASE)


def find_all(scanner: Scanner, queries: Sequence[str]) -> tuple[Asked, ...]:
    """Each of ``queries`` with its session and the run it names (``Scanner.find``); of the
    warnings raised meanwhile, those that may concern one of the sessions are said."""
    with scoped(scanner) as found_refs:
        found = tuple((query, *scanner.find(query)) for query in queries)
        found_refs.extend(ref for _, ref, _ in found)
    return found


@contextmanager
def scoped(scanner: Scanner) -> Iterator[list[SessionRef | None]]:
    """Hold back the warnings raised inside; at its end, say those that may concern one of
    the sessions the caller put in the list yielded.  ``None`` in it: a session whose files
    are not known (``otlp``'s hook session), so every warning is said; and so they are when
    the block raises (no such session, an ambiguous prefix: it may be where nothing could be
    read)."""
    ctx = scanner.ctx
    refs: list[SessionRef | None] = []
    held_back: list[Told] = []
    try:
        with ctx.held_warnings() as held:
            try:
                yield refs
            finally:
                held_back = list(held.said)
            if None in refs:
                kept = list(held_back)
            else:
                kept = concerning(scanner, held_back, [ref for ref in refs if ref is not None])
            kept += held.said[len(held_back):]  # what telling them apart said (a root's setting)
    except BaseException:
        say(ctx, held_back)  # not found, or ambiguous: every place that could not be read may hold it
        raise
    say(ctx, kept)


def concerning(scanner: Scanner, warnings: Sequence[Told], refs: Sequence[SessionRef]) -> list[Told]:
    """Those of ``warnings`` that may concern one of ``refs`` (the module's rules)."""
    if not warnings or not refs:
        return list(warnings)
    from agentscan.fsview import legible

    asked = {ref.provider for ref in refs}
    own_files = {legible(str(path)) for ref in refs for path in ref.read_files}
    own_ids = {name.casefold() for ref in refs for name in (ref.native_id, *ref.children)}
    folders = {provider.name: [os.path.join(str(folder), "") for folder in provider.own_folders(scanner.ctx)]
               for provider in scanner.witnesses}
    return [warning for warning in warnings
            if may_concern(warning, asked=asked, own_files=own_files, own_ids=own_ids, folders=folders)]


def may_concern(warning: Told, *, asked: set[str], own_files: set[str], own_ids: set[str],
                folders: dict[str, list[str]]) -> bool:
    """Whether ``warning`` may concern a session of the providers ``asked`` whose files are
    ``own_files`` and whose ids (its runs' too) ``own_ids`` (case folded); ``folders``:
    each provider's own folders, each ending with a separator."""
    path, _message, _line, passing = warning
    if path in own_files or not os.path.isabs(path):
        return True
    placed = os.path.join(path, "")  # a folder's own warning is in it
    whose = {name for name, places in folders.items() if any(placed.startswith(place) for place in places)}
    if not whose:
        return True  # no provider's: a setting, the index, anything else
    if not whose & asked:
        return False  # another provider's file alone
    name = os.path.basename(path)
    named = {found.casefold() for found in _named_id().findall(name)}
    start = _named_start().match(name)
    if not named and start is not None:  # a Gemini chat's: another session's if no id of ours starts so
        return passing or any(own.startswith(start.group(1).casefold()) for own in own_ids)
    return passing or not named or bool(named & own_ids)
