"""``hint: did you mean --cwd ~/src/weather-app (4 sessions)?``: said under ``list``'s and
``tokens``' "no sessions under …" when the folder asked for nearly names a project
(``scan.cwdnear``), as ``show`` offers the id a mistyped one nearly is; and, for ``list``, whose
``--since``, ``--until`` and ``--running`` choose before ``--cwd`` does, those filters said to
be the cause when the folder holds sessions they left out (no hint then)."""

from __future__ import annotations

from collections import Counter
from os import fspath
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.listing import SessionPage
    from agentscan.scan.scanner import Scanner


def list_cwd_notes(scanner: Scanner, page: SessionPage, filters: ListFilter, *, since_text: str | None,
                   until_text: str | None) -> tuple[str | None, str | None]:
    """What ``list`` says when ``--cwd`` left no session (``page.emptied_by``): in place of
    "no sessions under …", when ``--running``, ``--pid``, ``--since`` or ``--until`` came first
    and the folder asked for holds sessions outside them, that they are the cause, as ``tokens``
    says "no usage since …" (``None``: no such line); and the hint of the projects the folder
    nearly names, among the sessions those filters kept (``page.elsewhere``; none where the
    folder holds sessions: it is the one meant)."""
    if page.emptied_by != "cwd" or filters.cwd is None:
        return None, None
    asked = fspath(filters.cwd)
    if filters.needs_liveness or filters.since is not None or filters.until is not None:
        from agentscan.scan.tokencwd import within

        there = len(within(scanner, scanner.refs(filters.providers), asked)[0])
        if there:
            return _outside(filters, asked, there, page.reached.get("cwd", 0), since_text, until_text), None
    return None, near_cwd_hint(asked, page.elsewhere or Counter())


def _outside(filters: ListFilter, asked: str, there: int, elsewhere: int, since_text: str | None,
             until_text: str | None) -> str:
    """``no sessions under ~/app updated since …: the 3 sessions there are outside that range
    (12 elsewhere are in it)``; ``no running sessions under ~/app: the only session there is
    not running (2 elsewhere are running)``."""
    from agentscan.cli.term import home_short

    if since_text is not None and until_text is not None:
        window = f" updated between {since_text} and {until_text}"
    elif since_text is not None:
        window = f" updated since {since_text}"
    else:
        window = f" last updated before {until_text}" if until_text is not None else ""
    running, held = filters.needs_liveness and filters.pid is None, filters.pid is not None
    why = ["not running"] if running else ["not held by it"] if held else []
    kept = ["running"] if running else ["held by it"] if held else []
    if window:
        why.append("outside that range")
        kept.append("in it")
    sessions = "the only session there is" if there == 1 else f"the {there:,} sessions there are"
    told = f"{elsewhere:,} elsewhere {'is' if elsewhere == 1 else 'are'} {' and '.join(kept)}"
    which = f"{'running ' if running else ''}sessions{f' held by process {filters.pid}' if held else ''}"
    return f"no {which} under {home_short(asked)}{window}: {sessions} {' or '.join(why)} ({told})"


def near_cwd_hint(asked: str, cwds: Iterable[str | None] | Counter[str]) -> str | None:
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
    from agentscan.hooks.program import shell_word

    return shell_word(path)  # (as every hint's command line words a path: Windows' too)
