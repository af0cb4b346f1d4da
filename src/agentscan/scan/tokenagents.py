"""``tokens --by agent``: what each kind of agent spent, the sessions' own agents included.

A call's row is its run's kind: ``main`` for a session's own calls (the agent the user
talked to), else the kind its provider recorded for the delegated run that made it, as
``show`` names it (Claude Code's ``Explore``, a Codex ``reviewer``, Cursor's ``explore``,
``compaction`` for Claude's auto-compaction worker), and ``unknown`` where none was
recorded (Gemini CLI's subagents, an older build's).  One kind spelt in two cases (Claude
Code's ``Explore`` and Cursor's ``explore``, a custom agent renamed ``Reviewer``) is one row,
named by the spelling that comes first in code-point order (a capital before its small
letter: ``Explore``): two rows read as one kind split in two (``spellings``).

Only the sessions whose calls name a run are asked (``Provider.subagent_types``), quietly
(what reading them warns of is theirs, said by ``show``), and their answer is kept in the
index at the session's fingerprint, as ``scan.tablefacts`` keeps the table's facts, and at
what the files beside the session's its provider reads them from are
(``Provider.subagent_type_files``: Claude's ``.meta.json`` sidecars, which the fingerprint
leaves out).  A recorded kind named as one of the rows above (a custom agent called
``main``) is a row of its own, in double quotes (``"main"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from agentscan.model import SESSION, SUBAGENT

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.scan.providerusage import ProviderUsage
    from agentscan.scan.scanner import Scanner

#: the row of the sessions' own calls
MAIN = "main"
#: the row of the runs whose kind was not recorded
UNKNOWN = "unknown"
#: what the index keeps them as (``toolkit.keptjson``, under the session's main file, else
#: its id: ``_kept_under``): bump the version when a provider's ``subagent_types`` changes
KIND = "agent-types"
#: 2: a Claude side question's run (``aside_question``) is ``side-question``, not of no kind
#: 3: a Claude session whose transcript is gone names its runs' kinds from the copies of a
#: session resumed from it (``agenttypes.copied_task_types``), not ``unknown``
VERSION = "3"


def run_types(scanner: Scanner, refs: Sequence[SessionRef],
              usage: Mapping[str, ProviderUsage]) -> dict[str, dict[str, str]]:
    """Session id -> run id -> its kind, for the sessions among ``refs`` whose calls (in
    ``usage``) name a delegated run; a run of no recorded kind is left out."""
    runs = _runs(usage)
    if not runs:
        return {}
    from agentscan.errors import AgentscanError
    from agentscan.toolkit import keptjson

    ctx = scanner.ctx
    cache = scanner.cache
    asked = [ref for ref in refs if runs.get(ref.id)]
    if cache is not None:  # one query for them all, not one a session
        keptjson.prefetch(ctx, [_kept_under(ref) for ref in asked], KIND, VERSION, _decode)
    found: dict[str, dict[str, str]] = {}
    kept_any = False
    with ctx.held_warnings():
        for ref in asked:
            wanted = runs[ref.id]
            provider = scanner.provider(ref.provider)
            stamp = None
            if cache is not None:
                # The session's files, and the files beside them its runs' kinds are read from
                # (Claude's ``.meta.json`` sidecars, which its fingerprint leaves out): one
                # written or changed since is a kind not kept.
                stamp = keptjson.session_stamp(ref.id, scanner.fingerprint(ref),
                                               _identity(ctx, provider.subagent_type_files(ref)))
            kept = keptjson.prefetched(ctx, KIND, stamp)
            if kept is not None and wanted <= kept[0]:
                found[ref.id] = kept[1]
                continue
            own = scanner.real_ref(ref)
            if own is None:
                continue  # gone since the census: its runs are of no known kind
            try:
                types = provider.subagent_types(own, ctx, wanted)
            except (AgentscanError, OSError):
                continue  # unreadable now: its runs are of no known kind (``show`` says why)
            found[ref.id] = types
            if stamp is not None:
                keptjson.keep(ctx, _kept_under(ref), KIND, VERSION, stamp, (frozenset(wanted), types),
                              [sorted(wanted), types])
                kept_any = True
    if kept_any and cache is not None:
        cache.commit()
    return spellings(found)


def spellings(found: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """``found`` with each kind in one spelling whatever its case: the first of its spellings
    in code-point order (``Explore`` before ``explore``), kept as found when no kind is spelt
    two ways (the bench's homes: one spelling each).

    By the spellings alone: the one most runs recorded, a tie to the oldest session's (by its
    files' time), named the row by what a ``touch`` or a ``--since`` changed, its JSON key
    too.  Which spellings the selected sessions record still decides (``-p cursor`` has
    ``explore`` alone): knowing every session's would read the kinds of sessions not asked for."""
    chosen: dict[str, str] = {}
    for types in found.values():
        for kind in types.values():
            folded = kind.casefold()
            if folded not in chosen or kind < chosen[folded]:
                chosen[folded] = kind
    if all(chosen[kind.casefold()] == kind for types in found.values() for kind in types.values()):
        return found
    return {session: {run: chosen[kind.casefold()] for run, kind in types.items()} for session, types in found.items()}


def _identity(ctx: ScanContext, paths: Sequence[str]) -> str:
    """What ``paths`` are now, for a stamp, a missing one's absence too (one written later
    is another stamp); ``""`` for no paths."""
    if not paths:
        return ""
    from agentscan.providers.base import files_identity

    return files_identity(ctx, paths, absent_ok=True) or ""


def _kept_under(ref: SessionRef) -> str:
    """Where the index keeps ``ref``'s kinds: under its main file, so that ``prune`` forgets
    them with it; a session with no file of its own (a Cursor composer only the IDE's
    database holds) under its id."""
    return ref.path_text or ref.id


def row_of(types: Mapping[str, Mapping[str, str]], session_id: str, run: str | None) -> str:
    """The ``--by agent`` row of a call of ``session_id``'s ``run`` (``None``: its own)."""
    if run is None:
        return MAIN
    kind = types.get(session_id, {}).get(run)
    if not kind:
        return UNKNOWN
    # (``Main`` too: one kind a row whatever its case, ``spellings``)
    return kind if kind.casefold() not in _NAMES_OURS and not kind.startswith('"') else _quoted(kind)


#: the rows this module names: a kind recorded by one of these names is another row
_NAMES_OURS = frozenset({MAIN, UNKNOWN})


def _quoted(kind: str) -> str:
    """A recorded kind that would read as one of our rows (a custom agent named ``main``) as
    its own row: in double quotes, as JSON writes it (``"main"``); one that begins with a
    quote is quoted too, so no two kinds share a row."""
    import json

    return json.dumps(kind, ensure_ascii=False)


def _runs(usage: Mapping[str, ProviderUsage]) -> dict[str, set[str]]:
    """Session id -> the runs its calls name."""
    runs: dict[str, set[str]] = {}
    for provider_name, part in usage.items():
        prefix = provider_name + ":"
        for native_id, sums in part.sums.items():
            named = {group[0] for group in sums.groups if group[0] is not None}
            if named:
                runs.setdefault(prefix + native_id, set()).update(named)
        for entry in part.entries:
            if entry[SUBAGENT] is not None:
                runs.setdefault(prefix + entry[SESSION], set()).add(entry[SUBAGENT])
    return runs


def _decode(document: Any) -> tuple[frozenset[str], dict[str, str]] | None:
    """What ``run_types`` kept: the runs asked about and their kinds; ``None``: not as kept."""
    if not (isinstance(document, list) and len(document) == 2):
        return None
    asked, types = document
    if not (isinstance(asked, list) and all(isinstance(run, str) for run in asked)
            and isinstance(types, dict) and all(isinstance(kind, str) for kind in types.values())):
        return None
    return frozenset(asked), types
