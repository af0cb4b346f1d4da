"""The sessions a ``tokens ID`` reads beside the ones asked for: those whose history the
asked ones' files begin with a copy of (a resumed Claude session's first session), so that
a copied call counts once, in the session its record names, as ``tokens`` of every
session counts it; and taking their calls out again once merging credited them."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from agentscan.model import SESSION, SessionRef

if TYPE_CHECKING:
    from agentscan.scan.providerusage import ProviderUsage
    from agentscan.scan.scanner import Scanner


#: how many sessions back a chain of resumed sessions is followed (``copied_from``)
_RESUMES_FOLLOWED = 8


def copied_from(scanner: Scanner, refs: Sequence[SessionRef]) -> tuple[SessionRef, ...]:
    """The sessions whose history ``refs``' files begin with a copy of (``Provider.copied_from``:
    a resumed Claude session's first session), found and not asked for themselves, and the
    other sessions of the same folder resumed from the same one (a chain A → B → C: C's copy
    holds B's calls after A's, each with its own session's id, and its head names A alone):
    read with the asked ones, so that a copied call counts once, in the session its record
    names, as ``tokens`` of every session counts it; their own rows are not shown."""
    asked = {ref.id for ref in refs}
    found: dict[str, SessionRef] = {}
    firsts: set[str] = set()  # every session a head named, found or not
    todo = list(refs)
    for _ in range(_RESUMES_FOLLOWED):
        named = [f"{ref.provider}:{native}" for ref in todo
                 for native in scanner.provider(ref.provider).copied_from(ref, scanner.ctx)]
        firsts.update(named)
        wanted = [name for name in named if name not in asked and name not in found]
        if not wanted:
            break
        todo = scanner.refs_by_id(wanted)
        found.update((ref.id, ref) for ref in todo)
    if firsts:  # (the first one gone too: its copies count where ``tokens`` of every session puts them)
        folders: dict[str, set[str]] = {}
        for ref in refs:
            if ref.path is not None:
                folders.setdefault(ref.provider, set()).add(os.path.dirname(ref.path))
        for provider, places in folders.items():
            copied_from = scanner.provider(provider).copied_from
            # (each session's folder taken once: ``list --all`` of hundreds of resumed sessions
            # asks this of every folder they are in)
            for other in scanner.refs([provider]):
                if other.id in asked or other.id in found:
                    continue
                if other.path is None:
                    # A session of the folder whose transcript is gone and whose own folder of
                    # subagents is left (``<folder>/<id>/subagents/``): its runs' calls may be
                    # copied in a chain's middle (A → B → C, B gone, C's head naming A), which
                    # no head names; read, its calls count there, as ``tokens`` of every
                    # session counts them (``tokens C`` counted them in C as well).
                    if any(str(file).startswith(os.path.join(place, other.native_id, ""))
                           for place in places for file in other.files[:1]):
                        found[other.id] = other
                elif (os.path.dirname(other.path) in places
                        and any(f"{provider}:{native}" in firsts for native in copied_from(other, scanner.ctx))):
                    found[other.id] = other
    return tuple(found.values())


def without(usage: dict[str, ProviderUsage], hidden: set[str]) -> dict[str, ProviderUsage]:
    """``usage`` less the calls and sums of the ``hidden`` sessions (full ids): read only for
    what they share with the others (``tokens._report``'s ``companions``), which merging has
    already credited to one copy."""
    for name, part in usage.items():
        prefix = name + ":"
        part.sums = {native: sums for native, sums in part.sums.items() if prefix + native not in hidden}
        part.entries = [entry for entry in part.entries if prefix + entry[SESSION] not in hidden]  # (native ids)
        part.exact = {native for native in part.exact if prefix + native not in hidden}
        part.elsewhere = {native for native in part.elsewhere if prefix + native not in hidden}
        # (a window's unread ones too: a hidden one's would make a total of no usage 0, not null)
        part.outside = {native for native in part.outside if prefix + native not in hidden}
    return usage
