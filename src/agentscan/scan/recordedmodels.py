"""The models a home's sessions recorded, by the agent that recorded them (``agentscan prices``
without a MODEL: what the models a person uses cost).

A model is one a call names, in the session or in one of its subagents: the
sums the index keeps per session are grouped by model already
(``sessionsums.sums_of``), so a warm run reads one snapshot per provider and
decodes no call, and a cold one parses what ``tokens`` would (and leaves the
index warm for it).  Each session's own sums, not deduplicated against other
sessions: a call counted in another session's copy still names a model the
person used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.pricing.aliases import model_ref, unbilled
from agentscan.scan.collect import sums_by_session

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner


def recorded_models(scanner: Scanner, providers: Iterable[str] = (),
                    refs: Sequence[SessionRef] | None = None) -> list[tuple[str, str]]:
    """(provider, model) of every model a call of the selected providers' sessions names
    (``refs``: of those sessions alone, as a ``tokens`` table's), each once: by provider in
    the scanner's order (``claude``, ``codex``, …), then by name.
    A call that names no model, or messages no model made (Claude Code's ``<synthetic>``),
    is no model anyone pays for, and is left out."""
    refs = scanner.refs(providers) if refs is None else refs
    provider_of = {ref.id: ref.provider for ref in refs}
    found: set[tuple[str, str]] = set()
    for session_id, sums in sums_by_session(scanner, refs).items():
        provider = provider_of.get(session_id)
        if provider is None:
            continue
        # A group is ``[subagent, model, …]`` (``usagegroups``).  A session names a handful
        # of models over hundreds of groups: each is checked once, not once per group.
        for model in {group[1] for group in sums.groups}:
            if isinstance(model, str) and (provider, model) not in found and _is_model(provider, model):
                found.add((provider, model))
    order = {provider.name: rank for rank, provider in enumerate(scanner.providers)}
    return sorted(found, key=lambda pair: (order.get(pair[0], len(order)), pair[0], pair[1].casefold(), pair[1]))


def _is_model(provider: str, model: str) -> bool:
    return not unbilled(model) and model_ref(provider, model) is not None
