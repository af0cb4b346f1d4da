"""Which sessions to export, and from which source each turn comes.

* A transcript session (any provider) is exported from its ``show`` detail
  and its per-call usage.
* When the events store also has hook events for it, the hook tree wins for
  the turns it covers (real start and end times), with the transcript's LLM
  calls placed into those turns; transcript turns that no hook turn overlaps
  (before the hooks were installed, or while they were off) still come from
  the transcript.
* A hook session with no transcript session (the transcript is gone, or was
  never found) is exported from its tree alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from agentscan.bounds import Bounds
from agentscan.model import ScanWarning, SessionRef
from agentscan.otlp import semconv
from agentscan.otlp.builder import SessionFacts
from agentscan.otlp.gaps import Gaps
from agentscan.otlp.resource import resource_for
from agentscan.toolkit.words import listed, plural
from agentscan.otlp.spans import ExportTrace
from agentscan.otlp.timeline import Window, ns

#: what the progress line on a terminal (``cli.progress``) says is being done with the sessions
EXPORTING = "exporting sessions"
#: hook capture times trail the transcript's by a hook's start-up (~0.1 s); turns this close overlap
SLACK_NS = 2_000_000_000

#: What the export reads of a session.  Not ``show``'s bounds (``bounds.DEFAULT_BOUNDS``): those
#: keep a screen's worth, the newest 1,000 prompts and 2,000 calls within 1 MiB of call text,
#: and the export would lose every older turn and call without a word (and, past 1,000
#: prompts, hand the oldest kept prompt's turn the work of every turn before it, under new
#: span ids).  The counts are the reading bounds' "largest sane transcript", a million lines:
#: no real session comes near, and one that does is said (``beyond_bounds``).  The byte budgets
#: only keep memory within what such a transcript holds: a prompt's or reply's text is still
#: cut at ``show``'s 64 KiB and a call's summary at 1,600 bytes, which only
#: ``--include-content`` sends.
EXPORT_BOUNDS = Bounds(prompts=1_000_000, responses=1_000_000, tools=1_000_000,
                       prompt_bytes=256 << 20, response_bytes=256 << 20, tool_bytes=256 << 20)
#: ``SessionDetail.truncated``'s counts of items left out that the export makes spans of (or,
#: for replies, ends turns by), and what they are called; its ``clipped_*`` cut text only
_LEFT_OUT = (("prompts", "prompt", "prompts"), ("responses", "response", "responses"), ("tools", "tool call", "tool calls"),
             ("subagent_prompts", "subagent prompt", "subagent prompts"),
             ("subagent_responses", "subagent response", "subagent responses"))

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.scan.scanner import Scanner
    from agentscan.hooks.store import StoredSession
    from agentscan.progress import Progress


@dataclass(frozen=True, slots=True)
class Selection:
    ids: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    since: datetime | None = None
    #: only turns that ended before it (``--until``); ``since``: those that ended at or after it
    until: datetime | None = None
    content: semconv.Content = semconv.Content()


@dataclass
class Built:
    """What ``traces`` produced so far: counts and warnings (the traces themselves are streamed)."""

    warnings: list[ScanWarning] = field(default_factory=list)
    #: what the sessions' formats do not record (Cursor's tool-call times), summed
    gaps: Gaps = field(default_factory=Gaps)
    #: ``gaps`` said, a line per provider (``export.run``): reported, not counted by ``--strict``
    format_notes: list[ScanWarning] = field(default_factory=list)
    #: the sessions that have a span in the export (JSON ``sessions``): a matching one whose
    #: turns all ended outside ``--since``/``--until``, or that has no time at all, is only ``matched``
    sessions: int = 0
    #: the sessions selected (the ids given, or those the filters matched), spans or none
    matched: int = 0
    traces: int = 0
    spans: int = 0
    #: the price data chat span costs came from (``PriceData.to_json``)
    prices: dict[str, Any] | None = None
    #: sessions asked for by id that ``--provider`` leaves out, as ``tokens`` leaves them out:
    #: (id, provider), for the note that says so
    left_out: list[tuple[str, str]] = field(default_factory=list)
    #: transcripts hook sessions name that are on disk but under no root read (Claude Code run
    #: with a ``CLAUDE_CONFIG_DIR`` this shell lacks): their turns went out with no LLM calls
    unread_transcripts: list[str] = field(default_factory=list)

    def count(self, found: list[ExportTrace]) -> list[ExportTrace]:
        """``found``: one selected session's traces."""
        spans = sum(len(t.spans) for t in found)
        self.matched += 1
        if spans:
            self.sessions += 1
        self.traces += len(found)
        self.spans += spans
        return found


def traces(scanner: Scanner, selection: Selection, built: Built, *, use_hooks: bool = True,
           events_env: Mapping[str, str] | None = None) -> Iterator[ExportTrace]:
    """Every trace of the selected sessions, one session at a time, so memory stays bounded by the
    largest session.  ``use_hooks=False`` ignores the events store; ``events_env``: the
    environment that names it, when not the scanner's (``--demo``: the demo's own store)."""
    from agentscan.hooks import store

    env: Mapping[str, str] = scanner.ctx.env
    root = store.data_dir(env if events_env is None else events_env) if use_hooks else None
    stored = store.stored_sessions(root) if root else []
    if root and not selection.ids:
        # The hook sessions of a folder that could not be listed are left out of the export:
        # said, as `trace --list` says it (that of an agent `--provider` leaves out, not).
        from agentscan.hooks.unlisted import unlisted_folders

        built.warnings.extend(w for w in unlisted_folders(root) if not selection.providers
                              or os.path.basename(w.path) in (*selection.providers, store.EVENTS_DIR))
    refs, hook_only = _select(scanner, selection, stored, built.left_out, root)
    progress = scanner.ctx.progress
    # The rows a cold selection read are done (their line erased): exporting is a phase of
    # its own, counted from none, as ``tokens``' table is after its sums.
    progress.finish()
    window = Window(ns(selection.since), ns(selection.until))
    entries = _usage(scanner, refs)
    from agentscan.pricing import PriceBook

    prices = PriceBook(scanner.ctx, scanner.cache)
    built.prices = prices.data.to_json()
    by_id = {s.id: s for s in stored}  # an events file, even an empty one, is all it takes: a tree with no turns changes nothing
    def make(real: SessionRef, ctx: ScanContext, own_prices: Any, notes: list[ScanWarning], gaps: Gaps) -> list[ExportTrace]:
        # ``own_prices``: a worker's book (``otlp.parallel``); ``entries`` as they were when it forked
        return _transcript_session(scanner, ctx, real, entries.get(real.id, []), by_id.get(real.id), selection,
                                   window, notes, own_prices or prices, gaps)

    from agentscan.otlp.parallel import sessions

    with progress.named(EXPORTING):
        progress.expect(len(refs) + len(hook_only))
        for ref, found in zip(refs, sessions(scanner, refs, make, built.warnings, built.gaps, prices)):
            entries.pop(ref.id, None)  # its calls are in its traces now
            yield from built.count(found)
            progress.advance()
        yield from _hook_only(hook_only, {r.id for r in refs}, selection, window, built, env, progress)
        progress.finish()  # the line is erased before the result is printed


def _hook_only(
    sessions: list[StoredSession], covered: set[str], selection: Selection, window: Window, built: Built,
    env: Mapping[str, str], progress: Progress,
) -> Iterator[ExportTrace]:
    """The traces of hook sessions that no transcript session of the export covers."""
    from agentscan.otlp.from_hooks import hook_traces

    for session in sessions:
        trace = None if session.id in covered else _tree(session, built.warnings)
        # A tree's own transcript session may be covered under another id (a Claude
        # subagent's events filed under it); an old one is out of ``--since``.
        if (trace is not None and trace.session.transcript_session_id not in covered
                and (window.since is None or (trace.session.ended_ns or 0) >= window.since)):
            facts = _facts(session.agent, session.session_id, "hooks", selection, env, cwd=trace.session.workspace)
            found = built.count(hook_traces(trace, facts, window=window))
            if found and trace.session.transcript_found and trace.session.transcript_path:
                built.unread_transcripts.append(trace.session.transcript_path)
            yield from found
        progress.advance()


def _select(scanner: Scanner, selection: Selection, stored: list[StoredSession],
            left_out: list[tuple[str, str]], root: str | None) -> tuple[list[SessionRef], list[StoredSession]]:
    """``left_out`` gets the sessions asked for by id that ``--provider`` drops; ``root``: the
    events store's data directory (``None``: not read)."""
    from agentscan.errors import SessionNotFound

    if selection.ids:
        from agentscan.scan.notfound import without_transcript_hint
        from agentscan.scan.showscope import scoped

        wanted = set(selection.providers)
        refs: list[SessionRef] = []
        hooks: list[StoredSession] = []
        # Only the warnings of finding them that may concern the sessions (as `show ID`).
        with scoped(scanner) as found_refs:
            for query in selection.ids:
                try:
                    # (a hook session's id is answered below: its events are read once, to export it)
                    with without_transcript_hint():
                        ref = scanner.resolve(query)
                except SessionNotFound as missing:
                    from agentscan.hooks import storedids

                    try:
                        if not stored:
                            raise
                        found = storedids.resolve(query, stored)
                    except SessionNotFound:
                        # Neither a transcript nor a hook session: say so as `show` does. The store's
                        # own message ("see `agentscan hooks install`") would point at hooks that are
                        # installed already, for an id that is most likely a typo.
                        if stored:
                            _name_the_store(missing, len(stored), scanner)
                        _name_unlisted(missing, root)  # the session may be in a folder that could not be listed
                        raise missing from None
                    found_refs.append(None)  # no transcript found: it may be where nothing could be read
                    if wanted and found.agent not in wanted:
                        _leave_out(left_out, found.id, found.agent)
                    else:
                        hooks.append(found)
                    continue
                found_refs.append(ref)
                if wanted and ref.provider not in wanted:
                    _leave_out(left_out, ref.id, ref.provider)  # (an id still has to match: a typo is an error)
                elif ref.id not in {r.id for r in refs}:
                    refs.append(ref)
        return refs, hooks
    from agentscan.scan.listfilter import ListFilter

    rows = scanner.all_rows(filters=ListFilter(providers=selection.providers, since=selection.since))
    until = selection.until
    # A session that began at or after --until has no turn that ended before it: not read (an
    # hourly window over a heavy home read every session's turns to send none of them).
    wanted = {row.id for row in rows if until is None or row.started_at is None or row.started_at < until}
    refs = [ref for ref in scanner.refs(selection.providers) if ref.id in wanted]
    hooks = [s for s in stored if not selection.providers or s.agent in selection.providers]
    return refs, hooks


def _name_the_store(missing: Any, count: int, scanner: Scanner) -> None:
    """``otlp ID`` picks from the hook events store's sessions too: over a home of no
    transcript, "no sessions were found in this home" said there was nothing to pick from,
    with ``count`` hook sessions there; where they are listed is said either way."""
    from agentscan.invocation import hint, trace_words

    if missing.empty_home:
        missing.empty_home = False
        missing.details = (*missing.details, "no transcript sessions were found in this home: "
                           f"`{scanner.ctx.command('doctor')}` shows where agentscan looked")
    listed_by = trace_words(demo=scanner.ctx.home_source == "--demo")
    missing.details = (*missing.details, hint(f"{listed_by} --list",
                                              f"lists the {plural(count, 'hook session') if count > 1 else 'hook session'} captured, "
                                              f"which otlp exports too"))


def _name_unlisted(missing: Any, root: str | None) -> None:
    """An id found nowhere may be a hook session in a folder of the events store that could not be
    listed: said under the error as ``trace ID`` says it, not only "no session matches"."""
    from agentscan.hooks.unlisted import unlisted_folders

    unlisted = unlisted_folders(root) if root else []
    if unlisted:
        missing.details = (*missing.details, "no hook events for it in the folders of the events store agentscan "
                           f"could list; it may be in one it could not ({len(unlisted)}):",
                           *(f"  {w.path}: {w.message}" for w in unlisted))


def _leave_out(left_out: list[tuple[str, str]], session_id: str, provider: str) -> None:
    if (session_id, provider) not in left_out:  # an id given twice is left out once
        left_out.append((session_id, provider))


def _usage(scanner: Scanner, refs: list[SessionRef]) -> dict[str, list[list[Any]]]:
    """Each session's counted calls; read with the sessions ``refs``' files copy (a resumed
    Claude session's first, ``copiedsessions``), so that a copied call is a chat of the
    session its record names, as ``tokens`` counts it: those sessions' own are not sent."""
    from agentscan.model import SESSION
    from agentscan.scan.collect import collect_usage
    from agentscan.scan.copiedsessions import copied_from

    grouped: dict[str, list[list[Any]]] = {}
    for provider, entries in collect_usage(scanner, [*refs, *copied_from(scanner, refs)]).items():
        for entry in entries:
            grouped.setdefault(f"{provider}:{entry[SESSION]}", []).append(entry)
    return grouped


def _facts(
    provider: str, native_id: str, source: str, selection: Selection, env: Mapping[str, str], **more: Any,
) -> SessionFacts:
    return SessionFacts(provider=provider, native_id=native_id, source=source, content=selection.content,
                        resource=resource_for(provider, env), **more)


def _tree(session: StoredSession, notes: list[ScanWarning]) -> Any:
    """The session's hook tree; ``None`` (one warning) when it cannot be built: one bad
    session never costs the others their traces."""
    from agentscan.hooks import store
    from agentscan.hooks.tree import stored_trace

    warnings: list[ScanWarning] = []
    try:
        trace = stored_trace(session, store.root_of(session), warnings)  # as ``trace`` builds it
    except Exception as exc:  # noqa: BLE001 - a bug or a payload the bounds missed: this session only
        notes.extend(warnings)
        notes.append(ScanWarning(session.path, f"hook events skipped: the tree could not be built ({type(exc).__name__})"))
        return None
    notes.extend(trace.warnings)  # the bad lines, and what the tree noted (events delivered twice)
    return trace


def _transcript_session(
    scanner: Scanner, ctx: ScanContext, ref: SessionRef, entries: list[list[Any]], hooks: StoredSession | None,
    selection: Selection, window: Window, notes: list[ScanWarning], prices: Any, gaps: Gaps,
) -> list[ExportTrace]:
    """``ref``: the provider's own (``Scanner.real_ref``: one taken from the index has no provider data).
    What its format never records goes to ``gaps``; what is wrong with it, to ``notes``."""
    from agentscan.otlp.from_transcript import transcript_traces

    detail = scanner.provider(ref.provider).detail(ref, ctx, EXPORT_BOUNDS)
    notes.extend(ScanWarning(str(ref.path or ref.id), f"otlp: {note}") for note in beyond_bounds(detail.truncated))
    row = detail.row
    facts = _facts(ref.provider, ref.native_id, "transcript", selection, ctx.env,
                   model=row.model, cwd=row.cwd, git_branch=row.git_branch, prices=prices)
    trace = _tree(hooks, notes) if hooks is not None else None
    spans = [(t.started_ns, t.ended_ns) for t in trace.turns if t.started_ns] if trace is not None else []

    def covered(start_ns: int, end_ns: int) -> bool:
        """A transcript turn that overlaps a hook turn is taken from the hooks (real times)."""
        return any(start_ns - SLACK_NS <= h_end and h_start <= end_ns + SLACK_NS for h_start, h_end in spans)

    result = transcript_traces(detail, entries, facts, window=window, skip=covered if spans else None)
    normal, wrong = result.untimed.split(scanner.provider(ref.provider).records_call_times)
    gaps.add(ref.provider, normal)
    for note in wrong.notes():
        notes.append(ScanWarning(str(ref.path or ref.id), f"otlp: {note}"))
    if trace is None or not spans:
        return result.traces
    from agentscan.otlp.from_hooks import hook_traces

    return hook_traces(trace, replace(facts, source="hooks"), result.handed_over, window=window,
                       tools=result.handed_tools) + result.traces


def beyond_bounds(truncated: dict[str, int]) -> list[str]:
    """A session's own warning when even ``EXPORT_BOUNDS`` could not hold it: what was left
    out (the oldest), never silently."""
    parts = []
    for key, one, many in _LEFT_OUT:
        count = truncated.get(key, 0)
        if count:
            parts.append(plural(count, one, many))
    if not parts:
        return []
    what = listed(parts)
    b = EXPORT_BOUNDS
    return [f"the session is larger than an export reads ({b.prompts:,} prompts, {b.responses:,} responses and "
            f"{b.tools:,} tool calls, within {b.prompt_bytes >> 20}, {b.response_bytes >> 20} and "
            f"{b.tool_bytes >> 20} MiB of their text): its oldest {what} "
            f"{'was' if what.startswith('1 ') and len(parts) == 1 else 'were'} left out of the traces"]
