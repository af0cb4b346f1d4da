"""Which Claude Code sessions a running process has: the registry Claude Code keeps of them.

Claude Code opens, writes and closes its transcript for each record (claude-code issues
25864, 63758), so no process holds a running session's transcript open, and ``/proc``'s
open files (``scan.liveness``) never saw one.  Since about 2.1.1xx each process writes
``<config>/sessions/<pid>.json`` (``pid``, ``sessionId``, ``procStart``, ``status``, …)
while it runs.  A file outlives a process that was killed, and a pid is reused, so an
entry counts only while ``/proc/<pid>/stat``'s start time (field 22, clock ticks since
boot) is its ``procStart``.  Older builds wrote ``pid-<n>.json`` (``session_id``, no
``procStart``): nothing guards those against a reused pid, so they are not read.
"""

from __future__ import annotations

import os
from typing import Any

#: the registry's entries are small; anything larger is not one
_MAX_ENTRY_BYTES = 64 * 1024


class _Registry:
    """Claude Code's registry of its running sessions, as ``scan.liveness`` asks it
    (``providers.base.RunningRegistry``; ``ClaudeProvider.running_registry``)."""

    missing = "its home has no Claude Code session registry (~/.claude/sessions/, which 2.1.x builds write)"

    def running(self, transcript: str, pid: int | None, read: dict[str, Any]) -> bool | None:
        """Whether a running Claude Code (``pid``, if given) names the session of the main
        transcript ``transcript`` in its registry; ``None``: its home has none (a build older
        than 2.1.x, or none ran there since)."""
        if "/projects/" not in transcript or not transcript.endswith(".jsonl"):
            return False  # (no Claude transcript: a filtered ``list`` asks of 15,000 sessions' files)
        registry = registry_of(transcript)
        if registry is None:
            return False
        if registry not in read:
            read[registry] = live_sessions(registry)
        live = read[registry]
        if live is None:
            return None
        found = live.get(os.path.basename(transcript)[: -len(".jsonl")])
        return found is not None and (pid is None or found == pid)


REGISTRY = _Registry()


def registry_of(transcript: str) -> str | None:
    """The registry folder of the Claude Code home a main transcript
    (``<config>/projects/<project>/<session>.jsonl``) is in, if that is where it is."""
    project = os.path.dirname(transcript)
    projects = os.path.dirname(project)
    if os.path.basename(projects) != "projects" or not transcript.endswith(".jsonl"):
        return None
    return os.path.join(os.path.dirname(projects), "sessions")


def live_sessions(registry: str) -> dict[str, int] | None:
    """The session ids of the running processes ``registry`` names -> their pids; ``None``: no
    registry (an older Claude Code, or none ever ran here).  Read once by each
    ``scan.liveness.Liveness`` (a long-lived library scanner sees sessions start and stop)."""
    try:
        names = os.listdir(registry)
    except OSError:
        return None
    live: dict[str, int] = {}
    for name in names:
        pid = name[:-5] if name.endswith(".json") else ""
        if not pid.isdigit():
            continue  # (``pid-<n>.json``: the older builds' entries)
        entry = _entry(os.path.join(registry, name))
        if entry is None or entry.get("pid") != int(pid):
            continue
        session, started = entry.get("sessionId"), entry.get("procStart")
        if isinstance(session, str) and session and isinstance(started, str | int) and _started_at(int(pid)) == str(started):
            live[session] = int(pid)
    return live


def _entry(path: str) -> dict | None:
    # (Imported here: a remembered ``list`` page asks whether its sessions run, and most homes
    # have no registry.)
    import orjson

    from agentscan.toolkit.fsutil import open_regular

    try:
        with open_regular(path) as handle:
            data = handle.read(_MAX_ENTRY_BYTES + 1)
        entry = orjson.loads(data) if len(data) <= _MAX_ENTRY_BYTES else None
    except (OSError, ValueError):
        return None  # (one being written, or gone meanwhile: read again next run)
    return entry if isinstance(entry, dict) else None


def _started_at(pid: int) -> str | None:
    """Field 22 of ``/proc/<pid>/stat`` (its start time); ``None``: no such process here."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or ``)``: count after its last.
    fields = stat[stat.rfind(b")") + 2:].split()
    if len(fields) <= 19 or fields[0] in (b"Z", b"X"):
        return None  # (a zombie, its exit not yet reaped by its parent: it runs no session)
    return fields[19].decode("ascii", "replace")
