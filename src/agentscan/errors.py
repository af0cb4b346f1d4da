"""Every domain exception agentscan raises.

The library raises these; only ``agentscan.cli`` maps them to exit codes::

    AgentscanError                 base; exit 1 unless a subclass says otherwise
    ├── UsageProblem               the user's input cannot be used (exit 2)
    ├── SessionNotFound            no session matches an id (exit 1)
    │   ├── IdTooShort             a prefix too short to look up (exit 1)
    │   └── NoHookEvents           no captured hook events for an id (exit 1)
    ├── AmbiguousSessionId         a prefix matches several sessions (exit 1)
    ├── SessionUnreadable          a session could not be read at all (exit 1)
    ├── UnknownProvider            a --provider name that is not registered (exit 2)
    ├── NoReadableRoot             an explicitly named root cannot be read (exit 1)
    ├── StrictWarnings             --strict and warnings were reported (exit 1)
    ├── ExportFailed               an export could not be written (exit 1)
    ├── OutputFailed               an OTLP file could not be written (exit 1)
    ├── SendFailed                 the OTLP collector refused a batch (exit 1)
    ├── HookConfigError            a hook config agentscan will not change (exit 1)
    └── DatabaseUnavailable        a provider DB cannot be used (caught by providers)

Bad input inside provider files is never an exception: it becomes a
``ScanWarning`` and the scan goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.otlp.sender import SendResult


class AgentscanError(Exception):
    exit_code = 1


class UsageProblem(AgentscanError):
    exit_code = 2


class SessionNotFound(AgentscanError):
    def __init__(self, query: str) -> None:
        super().__init__(f"no session matches {query!r}")
        self.query = query


class IdTooShort(SessionNotFound):
    """``shown_by``: the command that lists the ids this one looks up (``trace`` ids are
    not ``list``'s: they come from ``agentscan trace --list``)."""

    def __init__(self, query: str, minimum: int, shown_by: str = "agentscan list") -> None:
        AgentscanError.__init__(
            self, f"{query!r} is too short: give at least {minimum} characters of the id (`{shown_by}` shows them)"
        )
        self.query = query


class NoHookEvents(SessionNotFound):
    def __init__(self, query: str, *, store_empty: bool) -> None:
        where = "no hook events have been captured yet" if store_empty else f"no hook events for {query!r}"
        AgentscanError.__init__(
            self, f"{where}; see `agentscan hooks install` (and `agentscan trace --list` for the sessions captured)"
        )
        self.query = query


class AmbiguousSessionId(AgentscanError):
    def __init__(self, query: str, candidates: list[str]) -> None:
        shown = "\n  ".join(candidates[:20])
        more = f"\n  … and {len(candidates) - 20} more" if len(candidates) > 20 else ""
        super().__init__(f"{query!r} matches {len(candidates)} sessions:\n  {shown}{more}")
        self.query = query
        self.candidates = candidates


class SessionUnreadable(AgentscanError):
    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"could not read {session_id} ({reason}); please report this with `agentscan doctor`")


class UnknownProvider(AgentscanError):
    exit_code = 2

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown provider {name!r}; choose from: {', '.join(known)}")


class NoReadableRoot(AgentscanError):
    pass


class StrictWarnings(AgentscanError):
    def __init__(self, count: int) -> None:
        super().__init__(f"{count:,} warning{'' if count == 1 else 's'} (--strict)")
        self.count = count


class ExportFailed(AgentscanError):
    """The output could not be written (exit 1); the previous file is intact."""


class OutputFailed(AgentscanError):
    """An OTLP file could not be written (exit 1); a previous file is left intact."""


class SendFailed(AgentscanError):
    """The collector did not take a batch (exit 1); ``sent`` counts only what it acknowledged."""

    def __init__(self, message: str, sent: SendResult) -> None:
        super().__init__(message)
        self.sent = sent


class HookConfigError(AgentscanError):
    """A hook config file that agentscan will not change (exit 1)."""


class DatabaseUnavailable(AgentscanError):
    """A provider database is missing, not SQLite, locked, or has an unknown shape.

    Never reaches the CLI: providers catch it and fall back to the files, with a warning.
    """
