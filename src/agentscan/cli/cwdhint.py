"""``hint: did you mean --cwd ~/src/weather-app (4 sessions)?``: said under ``list``'s and
``tokens``' "no sessions under …" when the folder asked for nearly names a project
(``scan.cwdnear``), as ``show`` offers the id a mistyped one nearly is."""

from __future__ import annotations

from typing import Iterable


def near_cwd_hint(asked: str, cwds: Iterable[str | None]) -> str | None:
    """The hint for ``--cwd`` ``asked`` (absolute) among the sessions' working directories
    ``cwds``; ``None``: it nearly names none."""
    from agentscan.scan.cwdnear import nearly_named
    from agentscan.toolkit.words import either, plural

    found, count = nearly_named(asked, cwds)
    if not found:
        return None
    offered = [f"--cwd {_typed(folder.path)} ({plural(folder.sessions, 'session')})" for folder in found]
    more = ""
    if count > len(found):  # (``--cwd project`` among forty ``project-N``: the command that lists them)
        from agentscan.invocation import running_command

        more = f" ({count - len(found):,} more: `{running_command('tokens --by cwd')}` lists every project)"
    return f"hint: did you mean {either(offered)}?{more}"


def _typed(path: str) -> str:
    """``path`` as a shell takes it: ``~/src/app`` under the home, else quoted when it must be
    (a space: ``'/srv/my app'``)."""
    import shlex

    from agentscan.cli.term import home_short

    short = home_short(path)
    if short.startswith("~/") and shlex.quote(short[2:]) == short[2:]:
        return short
    return shlex.quote(path)
