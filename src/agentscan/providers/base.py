"""The one small contract every provider adapter implements.

A provider owns its roots, finds its sessions cheaply (``discover``), and
parses them on demand: a bounded ``row`` for ``list``, a bounded ``detail``
for ``show`` and deduplicated ``usage`` for ``tokens``.  Everything returned
is the normalized model in ``agentscan.model``; no provider knows about the
CLI, and providers never import each other.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Callable, ClassVar, Collection, Iterable, Sequence

from agentscan.providers.doctorquestions import DoctorQuestions
# (re-exported: the providers and ``scan.tokenagents`` import them from here)
from agentscan.providers.fileidentity import file_identity, files_identity
from agentscan.providers.runningquestions import RunningQuestions
from agentscan.providers.unreadquestions import UnreadQuestions

__all__ = ["Provider", "file_identity", "files_identity"]

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import SessionRef, SessionRow, TableFacts, UsageEntry
    from agentscan.toolkit.roots import Root


class Provider(DoctorQuestions, UnreadQuestions, RunningQuestions, ABC):
    """A provider adapter: ``doctor``'s questions are ``DoctorQuestions``', those of what
    could not be read ``UnreadQuestions``'."""

    #: the id used in session ids (``claude:…``) and ``--provider``
    name: ClassVar[str]
    #: a human label for tables and ``doctor``
    label: ClassVar[str]
    #: bump when parsing changes, so cached rows and usage are rebuilt
    parser_version: ClassVar[str] = "2"
    #: environment variables that choose this provider's roots: ``--demo``
    #: ignores them, and the tests' isolation fixture clears them
    env_vars: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def roots(self, ctx: ScanContext) -> list[Root]:
        """Every place this provider reads, with what chose it."""

    @abstractmethod
    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        """Every session, cheaply: stat calls and bounded header reads only."""

    def census_paths(self, ctx: ScanContext) -> list[str] | None:
        """Every file and directory (walked whole) that ``discover`` and
        ``fingerprint`` read: while none of them changes, the previous
        discovery stands (``scan.memo``).  The default is the roots, with a
        database's ``-wal`` beside it; a provider that reads anything else
        must add it.  ``None``: never take discovery from the index.
        """
        paths: list[str] = []
        for root in self.roots(ctx):
            paths.append(str(root.path))
            if root.kind == "database":
                paths.append(f"{root.path}-wal")
        return paths

    def confinement_roots(self, ctx: ScanContext) -> list[Path]:
        """The directories (and index files) discovery may follow a symlink into
        (``ScanContext.admit``): the roots, but not a database's own path."""
        return [root.path for root in self.roots(ctx) if root.kind != "database"]

    def own_folders(self, ctx: ScanContext) -> list[Path]:
        """The agent's own folders, inside which agentscan writes nothing (``export -o``,
        ``otlp -o``: a file there may be read back as a session, or taken by the agent as
        its own, as a ``state_9.sqlite`` in ``~/.codex``).  The default: each root and each
        folder discovery reads (compared resolved: a ``projects`` that links elsewhere is
        refused where it leads), and the folder holding it (``~/.codex`` for
        ``~/.codex/sessions``, Cursor's ``User`` for its ``workspaceStorage``), but never the
        home or above it (``CODEX_HOME=~``), nor above what an env var names
        (``GEMINI_DATA_DIR=/data/gemini`` is not all of ``/data``; ``CURSOR_STATE_DB`` names
        the one file)."""
        from agentscan.providers.agentfolders import default_own_folders

        return default_own_folders(self, ctx)

    def census_stat_paths(self, ctx: ScanContext) -> list[str] | None:
        """Files and directories ``discover`` reads (a directory's own mtime, say) that
        need no walk: each is stat'ed alone.  ``None``: never take discovery from the index."""
        return []

    def refreshable_discovery(self, ctx: ScanContext) -> bool:
        """Whether the discovery just run stays true while no file comes or goes under
        the roots, except for the recency and fingerprint of the sessions whose own
        files changed (``refreshed``): then a run that finds only files changed in
        place (an agent appending to its transcript) mends the stored discovery
        instead of discovering afresh (``scan.memo``), and may ``locate`` the
        sessions it parses.  The default: no."""
        return False

    def refreshed(self, native_id: str, files: list[str], ctx: ScanContext) -> tuple[float, str] | None:
        """The recency and fingerprint of a stored session (``files``: its files' paths,
        none of which came or went) as discovery would give them now; ``None``: discover afresh."""
        return None

    @abstractmethod
    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """The ``list`` row of one session."""

    @abstractmethod
    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        """The bounded ``show`` detail of one session."""

    #: whether its transcripts record each tool call's time: Cursor's record none, which
    #: ``otlp`` then says once for the export rather than once a session (``otlp.gaps``)
    records_call_times: ClassVar[bool] = True

    #: whether any of its rows may be read in a worker process (``row_travels``)
    rows_may_travel: ClassVar[bool] = False
    #: a row's pass takes the session's tokens from its sums when a scan has read them
    #: (``readsums``): ``rowreader`` then reads those the index keeps before rows are read
    row_takes_sums: ClassVar[bool] = False

    #: whether ``table_facts(…, models=True)`` names the models (``TableFacts.models``)
    facts_name_models: ClassVar[bool] = False
    #: whether any of its rows may be ``archived`` (Codex's, Cursor's): ``list --archived`` leaves the
    #: other providers' sessions out unread (``scan.listing``), so one whose rows may say it
    #: must say so here, or its archived sessions are never listed
    can_archive: ClassVar[bool] = False

    def dates_session(self, record: dict) -> bool:
        """Whether a record of a session's JSON Lines file dates the session by its top-level
        ``timestamp`` (``scan.ambiguity`` dates a candidate by its file's last such record):
        one written while nobody worked in it (a Claude recap) does not."""
        return True

    def archived_unread(self, ref: SessionRef, ctx: ScanContext) -> bool | None:
        """Whether ``ref``'s row is ``archived``, known without reading the row (``None``: not
        known): never, for a provider that archives nothing (``can_archive``).  ``tokens``
        marks its session rows so (``TokenRow.archived``)."""
        return None if self.can_archive else False

    def row_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether ``row(ref)`` may be read in a worker process (``scan.rowbuild``) and
        come out the same: it reads nothing but the session's files (``ref`` carries all
        discovery found) and the index (``ctx.file_cache``), and keeps nothing in
        ``ctx.memo`` that this scan asks for later but ``toolkit.keptjson``'s values.
        The default: no."""
        return False

    def recorded_children(self, refs: Sequence[SessionRef], wanted: str, key: Callable[[str], str],
                          ctx: ScanContext) -> list[tuple[SessionRef, str]]:
        """``(session, subagent id)`` of the subagents among ``refs`` that have no file of
        their own (only their parent's records name them) whose id, folded by ``key``, is
        or starts with ``wanted``: asked by ``show <id>`` once nothing else matched
        (``scan.resolve``).  The default: none."""
        return []

    def copied_from(self, ref: SessionRef, ctx: ScanContext) -> list[str]:
        """The native ids of the sessions whose history ``ref``'s files begin with a copy of
        (a Claude transcript resumed from another: ``show``'s ``resumed_from``): ``tokens ID``
        counts the copied calls there, as ``tokens`` of every session does, when such a session
        is found (``scan.tokens``).  Read cheaply (a header).  The default: none."""
        return []

    def copied_elsewhere(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        """Whether another session's files begin with a copy of this one's history (a Claude
        session resumed from it, a Codex fork of it).  With this session's own transcript
        (``path``, gone) gone, ``tokens`` counts those copies there: an export then keeps none
        of its own calls as gone, which would count them twice (``export.children``).  Read
        cheaply (headers).  The default: none."""
        return False

    def copies_another(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        """Whether this session's files (``path``: its main one) begin with a copy of another
        session's history (resumed from it, forked from it): its calls then move between the
        two as either is deleted or restored, which an export does not call a loss.  Read
        cheaply (a header).  The default: no."""
        return False

    def subagent_types(self, ref: SessionRef, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
        """The kind (``Explore``, ``reviewer``) of each of ``ref``'s delegated ``runs`` (the ids
        its calls name), by the run's id, as ``show`` lists them (``SubagentInfo.agent_type``);
        a run whose kind was not recorded is left out.  Asked by ``tokens --by agent`` of the
        sessions that delegated, and kept (``scan.tokenagents``).  The default: none recorded
        (Gemini CLI's subagent chats name no kind)."""
        return {}

    def subagent_type_files(self, ref: SessionRef) -> Sequence[str]:
        """The files beside ``ref``'s own (which ``fingerprint`` covers) that ``subagent_types``
        may read, written yet or not: the kinds kept for ``ref`` hold while these are as they
        were (``scan.tokenagents``).  The default: none."""
        return ()

    def table_facts(self, ref: SessionRef, ctx: ScanContext, *, models: bool = False) -> TableFacts | None:
        """What ``tokens``' table shows beside ``ref``'s sums (its row's date, directory and
        title), found more cheaply than by the row's pass and equal to the row's; ``None``:
        read the row (``Scanner.row``).  Called in worker processes too, so it reads nothing
        but ``ref``, its files and the index; what it warns of is never said (the table's
        facts are read quietly: ``scan.tablefacts``).  ``models``: ``TableFacts.models`` too,
        where the provider can name them (else left ``None``).  The default: ``None``."""
        return None

    def usage_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether ``ref``'s usage may be parsed in a worker process (``scan.usageparse``), whose
        context holds nothing of this scan's discovery, and come out the same, warnings
        included: a pass that discovered its provider again there would keep the
        discovery's warnings with the session's sums.  The default: yes (the usage pass
        reads the session's files and ``ref``)."""
        return True

    def passes_stand_alone(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether every pass over ``ref``'s session (its row, its usage, a refresh of its
        row) reads nothing of this scan's discovery but what ``ref`` carries, so that a
        process handed ``ref`` and its fingerprint, but not the discovery (``scan.aside``),
        reads and warns as the one that discovered it: its files, ``ref.hint`` and the
        index, not what discovery left in ``ctx.memo`` (a database it opened, warning, or
        other sessions' threads).  The default: no (that process discovers it again)."""
        return False

    def shows_from_row(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether ``show`` should get the session's row first (from the index, or
        parsed and kept there) and ask ``detail_with_row``: for a session so large
        that its detail is cheaper built around a known row.  The default: no."""
        return False

    def detail_with_row(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds, row: SessionRow) -> SessionDetail | None:
        """The bounded detail built around ``row`` (the session's row for its files as
        they are), or ``None`` to have ``detail`` parse everything."""
        return None

    def row_sums(self, ref: SessionRef, ctx: ScanContext, fingerprint: str | None) -> list[list] | None:
        """The session's token sums as its row counted them, grouped as
        ``scan.collect`` groups a session's calls (``agentscan.usagegroups``), when
        the row's own pass kept them for the files at ``fingerprint`` (``ref`` may
        come from the index: its ``hint`` is then not the provider's): the row's
        cost is then priced from them instead of a second parse.  The default:
        ``None`` (parse the usage)."""
        return None

    def prefetch_row_sums(self, refs: Sequence[SessionRef], ctx: ScanContext) -> None:
        """``row_sums`` of all of ``refs`` is asked for next (``list --all``): what it reads
        from the index may be read at once.  The default: nothing."""
        return None

    @abstractmethod
    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        """Billed calls of these sessions and their delegated runs, deduplicated.

        Deduplication spans every file of the given sessions, so passing all
        sessions at once gives the exact global totals.
        """

    def session_usage(
        self, ref: SessionRef, ctx: ScanContext, resume: bytes | None = None, *, keep_state: bool = False,
        call_times: bool = False,
    ) -> tuple[Iterable[list], bytes | None]:
        """One session's billed calls as packed entries (``UsageEntry.pack``),
        deduplicated within the session, for ``tokens`` and its cache.
        ``call_times``: with the first and last times of a call written in several records,
        where the provider has them (``otlp``'s spans; sums leave them out: finding them
        costs a cold ``tokens`` more than a tenth of its dedupe).

        The entries may come as a generator (they are summed in one pass).
        A provider that can parse only what was appended to a session's files
        returns, with ``keep_state``, a state to pass back as ``resume`` the
        next time (the files may have changed in any way since).  The default
        parses the session with ``usage`` and keeps no state.
        """
        return [entry.pack() for entry in self.usage([ref], ctx)], None

    def fingerprint(self, ref: SessionRef, ctx: ScanContext, *, version: str | None = None) -> str | None:
        """A key that changes whenever the session's parsed results could change.

        The default covers the session's files (path, size, mtime, inode and
        ctime: a file replaced by ``os.replace`` has another inode, an in-place
        rewrite a new ctime) and the parser version; providers whose rows also
        depend on a database add its identity.  ``None`` means "do not cache".
        ``version``: the key as that parser version (not ``parser_version``) took it, for
        the note after an upgrade (``scan.upgraded``).
        """
        files = ref.read_files
        return files_identity(ctx, files, [self.name, version or self.parser_version]) if files else None

    def wants_refresh(self, row: SessionRow) -> bool:
        """Whether a cached ``row`` may be out of date in a way ``refresh_row`` can mend
        (then the scanner hands ``refresh_row`` the provider's own ref)."""
        return False

    def lends_kept(self, ref: SessionRef, ctx: ScanContext) -> bool:
        """Whether a row of ``ref`` read now may take what the row the index keeps of it, for
        other files or another parser, says that this read could not (``with_kept``): Cursor's,
        while the state DB that holds a chat's name and times cannot be read."""
        return False

    def with_kept(self, row: SessionRow, kept: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """``row``, just read, with what ``kept`` lends it (only when ``lends_kept``)."""
        return row

    def revised_by_the_index(self, row: SessionRow) -> bool:
        """Whether ``refresh_row`` may revise ``row`` from what the index learns with no
        provider's file changed (a Codex count made exact by a later full pass): a
        remembered ``list`` page showing it would be stale (``cli.list_answer``).  A
        revision only another file can bring (a Gemini cwd) changes that file's census.
        By default, any row ``wants_refresh``."""
        return self.wants_refresh(row)

    def refresh_row(self, row: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """A cached row, brought up to date with what the rest of the scan knows.

        The row cache is keyed by the session's own files; a fact that comes
        from elsewhere (Gemini's cwd, revealed by another provider's session)
        can appear later without changing them.  Called only when
        ``wants_refresh``; the default keeps the row.
        """
        return row

    def locate(self, native_id: str, path: str | None, ctx: ScanContext) -> SessionRef | None:
        """Rebuild one session's ref from an id-index entry without full discovery.

        ``None`` (the default) makes the caller fall back to discovery.
        """
        return None

    def known_gone(self, prefix: str, ctx: ScanContext) -> list[str]:
        """What this provider's own index knows of sessions whose id starts with ``prefix``
        (lower-cased) that are not listed, one line each (their files are gone): ``show``'s
        "no session matches" says it, rather than leave the user looking for a typo.  Every
        mistyped id asks, so it stays cheap: at most the index itself is read (as discovery
        reads it first, once a scan), and the home is walked (discovery) only when the index
        has a row of that prefix."""
        return []

    def known_cwds(self, ctx: ScanContext, *, brief: bool = False) -> set[str]:
        """Working directories this provider's sessions ran in, from cheap reads.

        Other providers use these to resolve directories that name a project
        only by a hash (Gemini's ``sha256(cwd)`` dirs).  Must not call ``ctx.cwd_candidates``
        itself.  ``brief``: the run did not ask for this provider, so a locked database is
        skipped, not waited for (``OwnRefs.borrowed_cwds``).
        """
        return set()
