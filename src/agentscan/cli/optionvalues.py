"""What an option's value must be, checked as every command checks it: an empty one refused
in the option's own words (``--since "$FROM"`` with the variable unset), ``--provider``
read as a comma list in any case, and ``--since``/``--until`` read as a window.  Every
command's start imports this module, so anything heavier is imported where it is needed.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from agentscan.toolkit.words import quoted

#: what each option takes, for the error an empty one gets
_WANTED = {
    "--home": "name a directory",
    "--output": "give a file path, or - for stdout",
    "--tz": "give an IANA zone such as Europe/Paris, utc or local, or leave it out",
    "--cwd": "give a directory, or leave it out",
    "--grep": "give the text to look for, or leave it out",
    "--at": "give a date (2026-03-05), an ISO time or a duration (90d), or leave it out for now",
    "--provider": "give a provider's name (claude, codex, gemini or cursor), or leave it out",
}


#: the options whose value is a WHEN (``whentext``): what they want is said by ``_wanted_when``
_WHEN_FLAGS = ("--since", "--until")


def _wanted_when() -> str:
    """What an empty ``--since`` or ``--until`` should have been: WHEN's forms, from
    ``whentext`` (imported only on this error: every command's start imports this module)."""
    from agentscan.whentext import WHEN_FORMS

    return f"give {WHEN_FORMS}, or leave it out"


def wanted(flag: str) -> str | None:
    """What ``flag`` (its long spelling) takes, as its empty value's error says it
    (``give the text to look for, or leave it out``); ``None`` for an option not listed."""
    return _wanted_when() if flag in _WHEN_FLAGS else _WANTED.get(flag)


def parse_window(since: Optional[str], until: Optional[str], zone: Any, ids: Sequence[str] = ()) -> tuple[Any, Any]:
    """``--since``/``--until`` as the times a window starts and ends (``None`` where not
    given), a window that holds nothing refused: a date, week or month ``--until`` names
    counts whole.  ``whentext`` is imported only for a window: a warm ``list`` or ``tokens``
    of every session goes without it.  ``ids``: the session ids typed with them (``--since
    last week`` unquoted leaves ``week`` among them: ``whentext.spaced_window``)."""
    if since is None and until is None:
        return None, None
    from agentscan.whentext import read_when, spaced_window

    if (spaced := spaced_window(since, until, ids, zone)) is not None:
        from agentscan.errors import UsageProblem

        raise UsageProblem(spaced)
    since_at = read_when("--since", since, zone) if since is not None else None
    until_at = read_when("--until", until, zone) if until is not None else None
    from agentscan.scan.arguments import check_window

    # Checked here in the options' words: the library's check would name its parameters.
    check_window(since_at, until_at, ("--since", "--until"))
    return since_at, until_at


def provider_names(given: Optional[list[str]]) -> Optional[list[str]]:
    """``--provider`` as every command takes it: repeatable, a comma list (``-p claude,codex``,
    as gh takes ``--label a,b``) and any case (``-p Claude``); each name once, in the order
    given.  A name no provider has is still refused where the scanner looks it up."""
    if not given:
        return given
    from agentscan.providers import is_provider_name

    names: list[str] = []
    for value in given:
        # ``-p "$AGENT"`` with the variable unset: said as every empty option is, not as an
        # unknown provider named ''.
        reject_blank(provider=value)
        if any(not name.strip() for name in value.split(",")):
            from agentscan.errors import UsageProblem

            raise UsageProblem(f"--provider {quoted(value)} names an empty provider (is a variable unset?): give names "
                               "separated by commas (claude,codex), or leave it out")
        for name in value.split(","):
            # folded only when that names a provider: a name none has is refused (by the
            # scanner) as it was typed, ``'Claude_Code'``, never as ``'claude_code'``
            folded = name.strip().casefold()
            name = folded if is_provider_name(folded) else name.strip()
            if name not in names:
                names.append(name)
    return names


def reject_blank(**options: Optional[str]) -> None:
    """A usage error for an option given empty (``since="", cwd=None``: ``--since`` is).
    ``--since "$FROM"`` with the variable unset would otherwise answer for every session,
    as if the option were left out, and a cron job would never know; an empty ``--home``
    or ``--output`` would read or write the current directory."""
    for name, value in options.items():
        if value is not None and not value.strip():
            from agentscan.errors import UsageProblem

            flag = f"--{name}"
            raise UsageProblem(f"{flag} is empty (is a variable unset?): {_wanted_when() if flag in _WHEN_FLAGS else _WANTED[flag]}")
