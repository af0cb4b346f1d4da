"""A stored hook session found by what a person types (``agentscan trace ID``): ``agent:id``, a
bare id, a unique prefix, a UUID in any case, as ``show`` finds a transcript's session."""

from __future__ import annotations

from typing import Iterable

from agentscan.hooks.store import MIN_PREFIX, StoredSession


def resolve(query: str, sessions: Iterable[StoredSession], *, demo: bool = False) -> StoredSession:
    """One stored session by ``agent:id``, bare id, or a unique prefix (≥ 6 chars); ``demo``:
    ``sessions`` are the demo's (the errors' advice says ``--demo``)."""
    from agentscan.errors import NoHookEvents, UsageProblem

    query = query.strip()
    if not query:
        raise UsageProblem("a session id is required")
    everyone = candidates = list(sessions)
    if not candidates:
        _refuse_a_provider(query, None, hooked=False)  # (``trace codex``: no install fills the store for it)
        raise NoHookEvents(query, store_empty=True, demo=demo)
    agent, sep, bare = query.partition(":")
    if sep and any(s.agent == agent for s in candidates):
        candidates = [s for s in candidates if s.agent == agent]
    else:
        bare = query  # no agent prefix (or a colon inside the id itself)
    try:
        return _one(query, bare, candidates, demo)
    except NoHookEvents as missing:
        # ``claude:<id>`` of a session captured under another agent (Cursor runs Claude
        # models; a payload without ``--agent``): that session is offered, not "no events".
        other = under_another_agent(query, everyone, demo) if sep else None
        if other is not None:
            from agentscan.invocation import hint, trace_words
            from agentscan.hooks.program import shell_word

            missing.details = (*missing.details, hint(
                f"{trace_words(demo=demo)} {shell_word(other.id)}", f"shows the session captured under {other.agent}"))
        elif not missing.store_empty and (meant := _meant_as_mistyped(query, everyone, demo)):
            missing.details = (*missing.details, meant)
        raise


def _meant_as_mistyped(query: str, sessions: list[StoredSession], demo: bool) -> str | None:
    """``hint: did you mean 'claude:7f3c9a12'?`` for ``7f3c9a13``, as ``show`` says it
    (``toolkit.words.meant_ids``): among the captured sessions, each checked to open that
    session alone."""
    from agentscan.toolkit.words import meant_ids

    agent, sep, bare = query.partition(":")
    if sep and any(s.agent == agent for s in sessions):
        sessions = [s for s in sessions if s.agent == agent]
    else:
        bare = query

    def opens(meant: str, targets: set[StoredSession]) -> bool:
        from agentscan.errors import AgentscanError

        if len(targets) != 1:
            return False  # several sessions begin so: that prefix opens none of them
        (session,) = targets
        try:
            return _one(meant, meant.partition(":")[2], [s for s in sessions if s.agent == session.agent], demo) == session
        except AgentscanError:  # several sessions begin so: that prefix opens none of them
            return False

    return meant_ids(bare, ((s.agent, s.session_id, s) for s in sessions), opens, shortest=MIN_PREFIX)


def under_another_agent(query: str, sessions: list[StoredSession], demo: bool = False) -> StoredSession | None:
    """The one session of another agent than ``query``'s prefix names whose id ``query``'s id
    is, or starts; ``None``: none, or several (``show``'s hint asks too: ``scan.notfound``)."""
    agent, _, bare = query.partition(":")
    try:
        found = _one(query, bare, [s for s in sessions if s.agent != agent], demo)
    except Exception:  # none, or several: nothing to offer
        return None
    return found


def _one(query: str, bare: str, candidates: list[StoredSession], demo: bool) -> StoredSession:
    """The session of ``candidates`` whose id is ``bare`` (in any case), else the one it starts."""
    from agentscan.errors import IdTooShort, NoHookEvents

    if not candidates:
        raise NoHookEvents(query, store_empty=False, demo=demo)
    # A UUID pasted in upper case names the same session, as ``show`` takes it (``scan.resolve``);
    # an id matching as typed wins.
    from agentscan.scan.arguments import case_free

    wanted = case_free(bare)
    exact = [s for s in candidates if s.session_id == bare] or [
        s for s in candidates if case_free(s.session_id) == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise _ambiguous(query, exact)
    from agentscan.invocation import trace_words

    shown_by = f"{trace_words(demo=demo)} --list"
    if len(bare) < MIN_PREFIX:
        _refuse_a_provider(query, shown_by)
        raise IdTooShort(query, MIN_PREFIX, shown_by=shown_by)
    matches = [s for s in candidates if s.session_id.startswith(bare)] or [
        s for s in candidates if case_free(s.session_id).startswith(wanted)]
    if not matches:
        _refuse_a_provider(query, shown_by)
        raise NoHookEvents(query, store_empty=False, demo=demo)
    if len(matches) > 1:
        raise _ambiguous(query, matches)
    return matches[0]


def _refuse_a_provider(query: str, shown_by: str | None, *, hooked: bool = True) -> None:
    """``ProviderNotId`` when ``query`` (``claude``, ``cursor:``) is a provider's name that named
    no session, as ``show`` says it (``scan.resolve``), not an id too short or of no events.
    ``hooked``: one with hooks too (not before an empty store's error: an install fills it)."""
    from agentscan.errors import ProviderNotId
    from agentscan.providers import provider_named

    name = provider_named(query)
    if name is not None:
        from agentscan.hooks.events import HOOK_AGENTS

        if name in HOOK_AGENTS and not hooked:
            return
        # (``trace codex``: Codex has no hooks, so no id ``trace --list`` shows; the CLI names ``list -p codex``)
        raise ProviderNotId(query, name, shown_by=shown_by if name in HOOK_AGENTS else None)


def _ambiguous(query: str, matches: list[StoredSession]) -> Exception:
    """Several sessions answer ``query``.  When they are one id captured under several agents
    (a payload without ``--agent`` is stored under ``unknown``), no more characters of the id
    tell them apart: the agent prefix does, and the hint says so."""
    from agentscan.errors import AmbiguousSessionId
    from agentscan.toolkit.words import either

    ids = [s.id for s in matches]
    if len({s.session_id for s in matches}) > 1:
        return AmbiguousSessionId(query, ids)
    return AmbiguousSessionId(query, ids, hint=(
        f"that is one session id captured under {len(matches)} agents: give it with its agent, "
        f"{either([s.agent + ':<id>' for s in matches])}, as listed above"))
