"""What names a session's subagent run when an id is typed: its id, a workflow run's agent
id alone, and a Claude run's file stem.  Apart from ``resolve`` so that ``notfound`` (which
``resolve`` imports) can ask it too, to tell a demo run's id, without an import cycle."""

from __future__ import annotations

from typing import Callable

#: how a query and a name are compared (``str.lower``, or as typed)
Key = Callable[[str], str]

#: how a Claude run's file names it (``agent-<agent id>.jsonl``): a key of the run (``child_keys``)
RUN_FILE_STEM = "agent-"


def child_keys(child: str, key: Key, provider: str = "") -> tuple[str, ...]:
    """What names a subagent: its id and, for a Claude workflow run (``wf_01/<agent id>``),
    its agent id alone; and a Claude run's file stem as ``ls`` shows it (``agent-<agent id>``)."""
    agent = child.rsplit("/", 1)[1] if "/" in child else child
    keys = (key(child),) if agent == child else (key(child), key(agent))
    return keys + (key(f"{RUN_FILE_STEM}{agent}"),) if provider == "claude" else keys
