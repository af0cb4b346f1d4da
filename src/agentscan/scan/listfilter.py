"""Which sessions ``list`` and ``export`` answer with (``ListFilter``, as ``list``'s options
choose them), and which filter a row fails first (``failed_stage``, ``STAGES``): the value a
library caller builds and the listing (``scan.listing``), the export (``scan.everyrow``) and
the facts read ahead (``scan.factfilter``, ``grepkept``) ask.  Apart from ``scan.listing``,
which reads the rows it is asked about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any, Sequence

from agentscan.pricing.modelnames import spellings
from agentscan.scan.cwdmatch import Form, asked_directory, shown_folder, under, wanted_forms
from agentscan.scan.grepmatch import grep_hit, grep_key
from agentscan.titles import title_spellings

if TYPE_CHECKING:
    from agentscan.model import SessionRow


#: the row filters, in the order an empty result is explained (``archived`` last: ``factfilter`` tests the others)
STAGES = ("running", "since", "until", "cwd", "grep", "archived")


@dataclass(frozen=True, slots=True)
class ListFilter:
    """Which sessions ``Scanner.list_sessions``, ``list_page`` and ``all_rows`` answer with, as
    ``list``'s options choose them: ``providers``, ``since``/``until`` (a naive datetime is
    local time; a str is read as ``--since``/``--until`` read it: ``"7d"``, ``"2026-11"``,
    held as the time it names), ``grep``, ``cwd`` (a project: that directory or below),
    ``running``, ``pid``, ``archived``."""

    providers: tuple[str, ...] = ()
    since: datetime | None = None
    grep: str | None = None
    #: a project: this directory or below it (a path is taken as the str it names)
    cwd: str | PathLike[str] | None = None
    running: bool = False  # only sessions whose transcript a live process holds open
    pid: int | None = None  # only sessions held open by this process
    #: only sessions last updated before it (``--until``: the end of the day, week or month it names)
    until: datetime | None = None
    #: only archived sessions (``True``), or none (``False``; ``None``: either): ``SessionRow.archived``
    archived: bool | None = None
    #: ``cwd``'s spellings, worked out once: ``holds_cwd`` runs on every row (``scan.cwdmatch``)
    _cwd_forms: tuple[Form, ...] = field(default=(), init=False, repr=False, compare=False)
    #: ``since``/``until`` as given when a wall time (a str, a naive datetime), which
    #: ``export_sessions(tz=…)`` reads again in its zone (``scan.arguments.read_in``)
    _given: tuple[Any, Any] = field(default=(None, None), init=False, repr=False, compare=False)

    if TYPE_CHECKING:
        # What a caller may pass, for type checkers (the dataclass makes the real one): ``since``
        # and ``until`` are held as datetimes, taken from a str too (``__post_init__``).
        def __init__(self, providers: str | Sequence[str] = (), since: datetime | str | None = None,
                     grep: str | None = None, cwd: str | PathLike[str] | None = None, running: bool = False,
                     pid: int | None = None, until: datetime | str | None = None, archived: bool | None = None) -> None: ...

    def __post_init__(self) -> None:
        """A library caller's values as the CLI's (``scan.arguments.list_filter_fields``:
        ``providers="claude"`` is one provider, a naive ``since`` local time, ``since="7d"`` a
        week back), and ``cwd``'s spellings worked out once."""
        if not self._as_the_cli_gives():
            from agentscan.scan.arguments import list_filter_fields

            for name, value in list_filter_fields(self).items():
                object.__setattr__(self, name, value)
        if self.cwd is not None:
            # As the CLI takes it (``.``: here, ``~``: the home), for a library caller too.
            object.__setattr__(self, "_cwd_forms", wanted_forms(asked_directory(fspath(self.cwd))))

    def _as_the_cli_gives(self) -> bool:
        """Whether every field is of the type the CLI gives, which ``list_filter_fields`` would
        keep as it is: then ``scan.arguments`` is not imported (``list`` and ``export`` never
        need it).  Anything else, even a subclass, is looked at there."""
        return (type(self.providers) is tuple and type(self.running) is bool
                and (self.archived is None or type(self.archived) is bool)
                and all(value is None or type(value) is kind
                        for value, kind in ((self.grep, str), (self.cwd, str), (self.pid, int)))
                and all(when is None or (type(when) is datetime and when.utcoffset() is not None)
                        for when in (self.since, self.until))
                and (self.since is None or self.until is None))  # (a window is checked there)

    @property
    def needs_liveness(self) -> bool:
        return self.running or self.pid is not None

    @property
    def active_stages(self) -> tuple[str, ...]:
        active = {"running": self.needs_liveness, "since": self.since is not None, "until": self.until is not None,
                  "cwd": self.cwd is not None, "grep": bool(self.grep), "archived": self.archived is not None}
        return tuple(stage for stage in STAGES if active[stage])

    def failed_stage(self, row: SessionRow) -> str | None:
        """The first filter ``row`` does not pass, ``None`` when it matches."""
        if self.needs_liveness and row.running is not True:
            return "running"
        if self.since is not None and (row.updated_at is None or row.updated_at < self.since):
            return "since"
        if self.until is not None and (row.updated_at is None or row.updated_at >= self.until):
            return "until"
        if not (self.holds_cwd(row.cwd) or any(self.holds_cwd(folder) for folder in row.workspace_folders)):
            return "cwd"
        if self.grep:
            # The model as recorded and as ``list`` shows it (``opus-4.6``).
            # The title as recorded and as the tables print it (``Task: read``, its Markdown gone).
            # A multi-root Cursor chat's every folder, as ``--cwd`` matches each: which it worked in is not recorded.
            haystack = (*title_spellings(row.title), row.cwd, *row.workspace_folders,
                        *(spellings(row.model) if row.model else ()), row.path)
            if not grep_hit(self.grep_key, haystack):
                return "grep"
        if self.archived is not None and row.archived is not self.archived:
            return "archived"
        return None

    @property
    def grep_key(self) -> str:
        """``grep`` as it is compared (``grepmatch``: case and Unicode spelling aside)."""
        return grep_key(self.grep or "")

    def holds_cwd(self, cwd: str | None) -> bool:
        """Whether ``cwd`` passes ``--cwd`` (at or under it)."""
        return self.cwd is None or under(cwd, self._cwd_forms)

    def shown_cwd(self, row: SessionRow) -> str | None:
        """The cwd a table shows for ``row`` (``cwdmatch.shown_folder``)."""
        return shown_folder(row.cwd, row.workspace_folders, self._cwd_forms if self.cwd is not None else None,
                            self.grep_key if self.grep else None)

    def matches(self, row: SessionRow) -> bool:
        return self.failed_stage(row) is None


def check_filters(filters: object) -> None:
    """A library caller's ``filters`` that is no ``ListFilter`` (a dict of its fields): a
    ``UsageProblem`` saying so, not an ``AttributeError`` from deep in the listing."""
    if filters is not None and not isinstance(filters, ListFilter):
        from agentscan.errors import UsageProblem

        raise UsageProblem(f"filters must be a ListFilter or None, not {type(filters).__name__}",
                           parameter="filters")
