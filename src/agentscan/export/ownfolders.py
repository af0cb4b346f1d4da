"""No file is written inside an agent's own folder (``export -o``, ``otlp -o``).

A file there may be read back as a session, or taken by the agent as its own: a
``state_9.sqlite`` written into ``~/.codex`` became Codex's thread index, and every
later run found that index unreadable.  Each provider names its folders
(``Provider.own_folders``); every provider is asked, not only those exported
(``export -p claude -o ~/.codex/x.csv`` is refused too), both as the scan sees them and
as the user's own environment does (``--home`` and ``--demo`` read another home, but
``~/.codex`` is still Codex's).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping

if TYPE_CHECKING:
    from agentscan.context import ScanContext


def refuse_own_folders(output: Path, ctx: ScanContext, failure: type[Exception],
                       env: Mapping[str, str] | None = None) -> None:
    """Raise ``failure`` when ``output`` (a file path; not ``-``) lies inside an agent's own
    folder.  Compared resolved (symlinks and ``..``), as the write would go: a link into
    ``~/.codex``, or an output that is a link to a file there, is refused too.  ``env``:
    the user's environment (default ``os.environ``)."""
    from agentscan.toolkit.paths import is_within

    def resolved(path: Path) -> str:
        try:
            return os.path.realpath(path)
        except OSError as exc:
            # A link changed while realpath read it (EINVAL from readlink): said, no traceback.
            raise failure(f"cannot tell where {path} leads ({exc.strerror or exc}; it changed while being "
                          "read?): try again") from None

    real = resolved(output.expanduser())
    for provider, folder in _folders(ctx, os.environ if env is None else env):
        if is_within(real, resolved(folder)):
            via = f"{output} leads to {real}; " if real != str(output) else ""
            raise failure(f"refusing to write inside {provider}'s own folder {folder} ({via}the agent may read a "
                          "file there as its own, so agentscan never writes there): give another --output")


def _folders(ctx: ScanContext, env: Mapping[str, str]) -> Iterator[tuple[str, Path]]:
    from agentscan.context import ScanContext
    from agentscan.providers import iter_providers

    # Fresh contexts: a setting ignored (a relative CODEX_HOME) warns there, not in this
    # scan's warnings, which a provider not exported must not add to (``--strict``).
    contexts = [ScanContext(home=ctx.home, env=dict(ctx.env), home_source=ctx.home_source)]
    own = ScanContext.create(env=env)
    if (own.home, dict(own.env)) != (ctx.home, dict(ctx.env)):
        contexts.append(own)
    for provider in iter_providers():
        for context in contexts:
            for folder in provider.own_folders(context):
                yield provider.name, folder
