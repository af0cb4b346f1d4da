"""Hook sessions <-> transcript sessions.

A hook payload's ``transcript_path`` names the file the agent writes its
transcript to; its stem is the native id agentscan's providers use, so the
mapping needs no scan.  In the other direction, ``show`` asks whether hook
events exist for a session: the store keeps one file per session, so that is
a ``stat``, not a read.
"""

from __future__ import annotations

import os
import re
from typing import Mapping

from agentscan.hooks import store

_SEPARATORS = re.compile(r"[\\/]+")


def transcript_session_id(agent: str, path: str | None) -> str | None:
    """``…/<id>.jsonl`` -> ``<agent>:<id>``; a subagent transcript maps to its parent.

    Claude: ``~/.claude/projects/<slug>/<session>.jsonl`` and
    ``…/<session>/subagents/agent-<id>.jsonl``.  Cursor:
    ``…/agent-transcripts/<id>.jsonl``, ``…/<id>/<id>.jsonl`` and
    ``…/<id>/subagents/<sub>.jsonl``.
    """
    if not path:
        return None
    if agent == "gemini":
        return gemini_chat_id(path)
    parts = [p for p in _SEPARATORS.split(path.strip()) if p]
    if not parts:
        return None
    name = parts[-1]
    for suffix in (".jsonl.zst", ".jsonl"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            break
    else:
        return None
    if len(parts) >= 3 and parts[-2] == "subagents":
        stem = parts[-3]
    return f"{agent}:{stem}" if stem else None


def gemini_chat_id(path: str) -> str | None:
    """``gemini:<sessionId>`` of the Gemini CLI chat at ``path``, from a bounded read of its
    head (``providers.gemini.chathead``, as ``list`` reads it), ``None`` when it cannot be read.

    Its file is not named by its id (``chats/session-<time>-<8 characters>.jsonl``), and the
    hook's own ``session_id`` need not be the chat's: before Gemini CLI set its session id to a
    resumed chat's (``config.setSessionId`` on ``--resume`` and ``/resume``), the hooks of a
    resumed session named a new id while the chat they wrote to kept its own.  A subagent's chat
    (``chats/<parent sessionId>/<id>.jsonl``) is its parent's session, as ``list`` counts it."""
    from agentscan.providers.gemini.chathead import HEADER_BYTES, jsonl_header, legacy_header
    from agentscan.toolkit.fsutil import open_regular
    from agentscan.toolkit.jsonl import BOM

    named = os.path.expanduser(path.strip())
    parts = [p for p in _SEPARATORS.split(named) if p]
    if len(parts) >= 3 and parts[-3] == "chats" and parts[-1].endswith((".json", ".jsonl")):
        return f"gemini:{parts[-2]}"  # (the folder is named by the parent's whole sessionId)
    try:
        with open_regular(named, 4096) as handle:
            head = handle.read(HEADER_BYTES)
    except (OSError, ValueError):  # gone (agents delete old chats), a NUL in a payload's path
        return None
    whole = len(head) < HEADER_BYTES
    head = head.removeprefix(BOM)
    fields = jsonl_header(head, whole) if named.endswith(".jsonl") else legacy_header(head)
    session_id = fields.get("sessionId")
    return f"gemini:{session_id}" if session_id else None


def transcript_exists(path: str | None) -> bool:
    """Whether the transcript a payload names is still on disk.

    Claude deletes old transcripts while their hook events stay in the store:
    ``agentscan show`` is only worth suggesting when the file is there.
    """
    if not path:
        return False
    try:
        return os.path.isfile(os.path.expanduser(path))
    except (OSError, ValueError):  # a NUL or an unencodable name in a payload's path
        return False


def has_hook_events(agent: str, native_id: str, *, env: Mapping[str, str] | None = None) -> bool:
    """True when the events store holds at least one hook event for this session."""
    try:
        return os.path.getsize(store.session_path(store.data_dir(env), agent, native_id)) > 0
    except OSError:
        return False


#: the setting that names the folder an agent keeps its transcripts under (``projects/``);
#: ``CLAUDE_CONFIG_DIR`` replaces the default folders, ``CURSOR_CONFIG_DIR`` adds one: either
#: way, ``show`` then reads the folder named
_CONFIG_SETTINGS = {"claude": "CLAUDE_CONFIG_DIR", "cursor": "CURSOR_CONFIG_DIR"}


def show_setting(agent: str, path: str, env: Mapping[str, str] | None = None, home: str | None = None) -> str | None:
    """What ``agentscan show`` needs to read the transcript at ``path`` (one that exists):
    ``""`` when it reads it as things are (under a folder of the agent's that agentscan
    reads: the roots ``doctor`` lists), ``NAME=DIR`` when the agent's config setting naming
    its folder would make it (an agent run with ``CLAUDE_CONFIG_DIR`` elsewhere), ``None``
    when neither is known.  ``trace`` suggests ``show`` by it: a bare ``agentscan show`` of
    a transcript under no root read answered "no session matches".  ``home``: ``--home``'s."""
    import shlex

    env = dict(os.environ if env is None else env)
    named = os.path.abspath(os.path.expanduser(path))
    try:
        if _read_under(agent, named, env, home):
            return ""
    except Exception:  # an agent agentscan has no provider for, an unreadable root: as before
        return ""
    setting = _CONFIG_SETTINGS.get(agent)
    if setting is None:
        return None
    folder = os.path.dirname(named)
    while os.path.dirname(folder) != folder:
        # The config dir is the parent of ``projects/`` (``<dir>/projects/<slug>/<id>.jsonl``);
        # a comma would split the setting's value into two folders.
        parent = os.path.dirname(folder)
        if os.path.basename(folder) == "projects" and "," not in parent and _read_under(agent, named, {**env, setting: parent}, home):
            return f"{setting}={shlex.quote(parent)}"
        folder = parent
    return None


def _read_under(agent: str, path: str, env: Mapping[str, str], home: str | None = None) -> bool:
    """Whether ``path`` is under one of the folders of transcripts agentscan reads for ``agent`` with ``env``."""
    from agentscan.context import ScanContext
    from agentscan.providers import get_provider

    ctx = ScanContext.create(home=home, env=env)
    try:
        roots = get_provider(agent).roots(ctx)
    finally:
        ctx.close()
    from agentscan.toolkit.paths import is_within

    real = os.path.realpath(path)
    return any(root.kind == "sessions" and is_within(real, os.path.realpath(root.path)) for root in roots)
