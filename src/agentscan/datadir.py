"""Where agentscan keeps what later runs read back: hook events, fetched price data.

Its own module because ``list`` and ``tokens`` look for fetched prices there
and need nothing else of the hooks store (``hooks/store.py``, which
re-exports these names).  Stdlib only: ``agentscan hook`` imports it on every
agent event.
"""

from __future__ import annotations

import os
from typing import Mapping

ENV_VAR = "AGENTSCAN_DATA_DIR"


def data_dir(env: Mapping[str, str] | None = None) -> str:
    """``$AGENTSCAN_DATA_DIR``, else ``platformdirs.user_data_dir("agentscan")`` (``toolkit.userdirs``),
    read in ``env`` (``HOME``, ``XDG_DATA_HOME``) when given, as the cache's is (``scan.cachefile``).

    A relative ``AGENTSCAN_DATA_DIR`` is ignored (``ignored``), as a relative provider
    setting is: each hook runs in the directory the agent runs it from, so the events
    would be scattered over every project, where ``trace`` run anywhere else finds none.
    """
    env = os.environ if env is None else env
    override = env.get(ENV_VAR)
    if override and relative_setting(env, ENV_VAR) is None:
        return os.path.expanduser(override)
    from agentscan.toolkit.userdirs import user_data_dir  # only when needed: the override is the common case in tests

    return user_data_dir(env)


def ignored(env: Mapping[str, str] | None = None) -> str | None:
    """The ``AGENTSCAN_DATA_DIR`` that ``data_dir`` ignored (a relative path), for the note that says so."""
    return relative_setting(os.environ if env is None else env, ENV_VAR)


def relative_setting(env: Mapping[str, str], name: str) -> str | None:
    """``env[name]`` when it is set to a relative path (after ``~``), which agentscan's own
    folder settings ignore (``AGENTSCAN_DATA_DIR``, ``AGENTSCAN_CACHE_DIR``): resolved against
    whatever directory a run starts in, each would be another folder; else ``None``."""
    override = env.get(name)
    return override if override and not os.path.isabs(os.path.expanduser(override)) else None


def not_a_directory(root: str, env: Mapping[str, str] | None = None) -> str | None:
    """What is wrong with ``root`` (the data dir) when it, or the nearest of its parents that
    exists, is no directory (``AGENTSCAN_DATA_DIR`` set to a file): ``"AGENTSCAN_DATA_DIR
    /x: not a directory"``, said as a named root's is (``context``), not as a store with no
    events yet; ``None`` when it is one, or may be made."""
    env = os.environ if env is None else env
    path = os.path.abspath(root)
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    if os.path.isdir(path):
        return None
    label = ENV_VAR if env.get(ENV_VAR) and ignored(env) is None else "the data directory"
    return f"{label} {root}: " + ("not a directory" if path == os.path.abspath(root) else f"{path} is not a directory")


def check(root: str, env: Mapping[str, str] | None = None) -> None:
    """Raise ``NoReadableRoot`` (exit 1) when ``root`` cannot be the data dir (``not_a_directory``)."""
    problem = not_a_directory(root, env)
    if problem is not None:
        from agentscan.errors import NoReadableRoot

        raise NoReadableRoot(problem)
