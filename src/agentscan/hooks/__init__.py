"""Live capture of agent hook events, and the conversation tree rebuilt from them.

Modules, in the order data flows through them::

    capture.py     the `agentscan hook` command: stdin -> one envelope line (hot path)
    payloads.py    a payload's agent, event and ids, what is kept of it, its envelope line
    store.py       where envelopes live, how they are listed, id resolution
    envelopes.py   how a stored line reads back as an envelope (or why not)
    install.py     planning and writing `hooks install` / `uninstall` of an agent's config
    ourentries.py  which entries of a config are agentscan's, and which see the whole event
    merging.py     our entry merged into Cursor's hooks.json / Claude's and Gemini's settings.json
    model.py       frozen values: HookEvent, Node, Turn, Trace
    evidence.py    canonical JSON, path/command normalisation, unique-best scoring
    pairing.py     completion -> request, inner shell/MCP/file events, subagents
    repeats.py     an event delivered twice (agentscan registered twice) counted once
    tree.py        the builder: events -> sessions -> turns -> nodes
    waves.py       parallel waves and Claude's PostToolBatch
    skills.py      skills, slash commands and thought mentions
    summary.py     per-turn and per-session summaries
    text.py        the human-readable tree
    tracetimes.py  its durations and capture times
    crosscheck.py  transcript path -> agentscan session id; `has_hook_events`
    eventcounts.py `hook_event_counts`: a session's events as `trace` counts them (for `show`)
    listing.py     `trace --list`: each session's count, time, first workspace and prompt

This package must stay cheap to import: ``agentscan hook`` runs on every agent
event, so nothing here is imported eagerly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["has_hook_events", "hook_event_counts", "trace_session"]


def __getattr__(name: str) -> Any:
    # Lazy re-exports: `import agentscan.hooks.capture` must not pay for the tree.
    if name == "has_hook_events":
        from agentscan.hooks.crosscheck import has_hook_events

        return has_hook_events
    if name == "hook_event_counts":
        from agentscan.hooks.eventcounts import hook_event_counts

        return hook_event_counts
    if name == "trace_session":
        from agentscan.hooks.tree import trace_session

        return trace_session
    raise AttributeError(name)
