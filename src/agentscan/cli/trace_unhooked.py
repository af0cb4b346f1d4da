"""``trace codex:ID``: an agent with no hooks has no hook events, ever.  Said so (not "see
``hooks install``", an install that refuses Codex), with the command that reads its session
(``show``) when the id opens one, else the one that lists its sessions (``list -p codex``).
An error path only: the id is looked up as ``show`` looks it up, Codex's sessions alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.cli.state import State
    from agentscan.errors import AgentscanError, NoHookEvents


def unhooked_agent(query: str) -> str | None:
    """The provider ``query``'s ``agent:`` prefix names (or ``query`` alone) when that agent has no
    hooks (``codex``); ``None``: no provider, or one with hooks (Claude Code, Cursor, Gemini CLI)."""
    from agentscan.hooks.events import HOOK_AGENTS
    from agentscan.providers import provider_named

    agent, colon, _ = query.strip().partition(":")
    name = provider_named(agent if colon else query.strip())  # (``codex``, a provider's name alone, too)
    return name if name is not None and name not in HOOK_AGENTS else None


def unhooked_said(query: str, missing: NoHookEvents, state: State, *, resolved: str | None = None) -> AgentscanError:
    """What ``trace`` says of ``query`` that the events store answered with ``missing``: that,
    but for an id of an agent with no hooks (its bare ``codex:`` the store refused as a
    provider: ``storedids.resolve``).  An id has no hook events, the agent no hooks, and the hint
    the store offered (a session captured under another agent, a near id) stays the one hint.
    ``resolved``: the session id ``query`` opens, when the caller looked it up as ``show`` does
    (``trace``'s transcripts): not looked up again."""
    from agentscan.errors import NoHookEvents
    from agentscan.providers import label_of

    name = unhooked_agent(query)
    if name is None:
        return missing
    said = NoHookEvents(query, store_empty=False, unhooked=label_of(name))
    offered = missing.details[len(missing.unlisted):]  # (no session of an agent with no hooks is in the store)
    said.details = offered or (_reads_it(query, name, state, resolved),)
    return said


def _reads_it(query: str, name: str, state: State, resolved: str | None = None) -> str:
    """``hint: `agentscan show codex:ID` shows it`` when ``query`` opens one of ``name``'s
    sessions, as ``show`` finds it (``resolved``: found so already); else the command that
    lists them (an id unknown, too short, or several sessions')."""
    from agentscan.errors import AgentscanError
    from agentscan.hooks.program import shell_word
    from agentscan.invocation import command, hint
    from agentscan.providers import label_of

    if resolved is None:
        try:
            state.scanner([name], memo=True).resolve(query)
        except (AgentscanError, OSError):
            return hint(command(f"list -p {name}", demo=state.demo, home=state.home),
                        f"lists {label_of(name)}'s sessions")
    return hint(command(f"show {shell_word(query.strip())}", demo=state.demo, home=state.home), "shows it")
