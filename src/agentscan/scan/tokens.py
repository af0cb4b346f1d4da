"""Token reports: deduplicated usage entries grouped by session, day, week, month, model, provider,
directory or kind of agent.

Each row keeps the session's own part and each delegated run's part apart,
so a user can see what the subagents cost, in tokens and in USD.  Every
call is priced at its own time (``agentscan.pricing``); the grouping only
decides which bucket a call lands in, so cost works for any ``--by``.
Sessions whose provider recorded no usage at all report ``null``, never
zeros.

Most sessions are added up from their cached sums (``sessionsums.SessionSums``:
per subagent, model, quarter hour and input-size class, which prices them
exactly); a session is read call by call only when its calls may be shared
with another session, when ``--since`` or ``--until`` cuts through one of its
quarter hours, when a period grouping meets a zone whose offset is not whole
quarter hours, or when a price changes inside one of its groups (of those a
window keeps: a group it leaves out needs no price).
"""

from __future__ import annotations

from os import PathLike
from dataclasses import replace
from datetime import datetime, tzinfo
from decimal import Decimal
from typing import TYPE_CHECKING, Hashable, Iterable, Sequence, cast

from agentscan.errors import TranscriptUnreadable
from agentscan.bounds import TOKEN_SUM_CAPPED
from agentscan.scan.arguments import check_window, moment, names, project, time_zone
from agentscan.scan.groupby import GROUPING, GroupBy, parse_group
from agentscan.scan.tokensort import SortKey, parse_sort, sorted_rows
from agentscan.model import SessionRef, TokenUsage, sum_usage
from agentscan.pricing import PriceBook
from agentscan.pricing.spend import Priced, combined
from agentscan.scan.collect import collect
from agentscan.progress import PRICING
from agentscan.scan.providerusage import ProviderUsage
from agentscan.scan.groupprices import GroupPrices
from agentscan.scan.rowmemo import KeptRow, SessionRows
from agentscan.scan import saidorder, tokenagents, tokencwd, tokenmodels
from agentscan.scan.copiedsessions import copied_from, without
from agentscan.scan.rowkeys import UNTIMED, row_of as rows_keyed
from agentscan.scan.tokenbucket import Bucket, add_session_sums
from agentscan.scan.tokenfill import add_entries, add_sums, needs_calls
from agentscan.scan.tokenreport import ReportCoverage, TokenReport, TokenRow
from agentscan.scan.unrecorded import unrecorded
from agentscan.scan.untimed import untimed_calls, untimed_note
from agentscan.scan.unreadrows import unread_cause, unread_ids, without_unread
from agentscan.scan.tokenrowmarks import marked_archived, unread_causes

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.windowrefs import WindowRefs


def token_report(
    scanner: Scanner,
    *,
    ids: str | Iterable[str] = (),
    providers: str | Iterable[str] = (),
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    by: GroupBy = "session",
    tz: tzinfo | str | None = None,
    cwd: str | PathLike[str] | None = None,
    sort: SortKey = "date",
    breakdown: bool = False,
) -> TokenReport:
    """The tokens (and their cost) of the scanner's sessions grouped ``by`` session, day,
    week, month, model, provider, cwd (the project) or agent, as ``agentscan tokens --json`` reports them: a
    ``TokenReport`` (``.rows``, each a ``TokenRow``; ``.total``; ``.cost``, a ``Decimal`` or
    ``None``; ``.to_json()``).  Raises ``UsageProblem`` for a value the CLI would refuse,
    ``SessionNotFound`` or ``AmbiguousSessionId`` for an id in ``ids``.

    A library caller's values as the CLI's (``scan.arguments``): one id or name, a zone's name, a naive time,
    a ``since``/``until`` str as ``--since``/``--until`` read it (``"7d"``, ``"2026-11"``; a date in ``tz``).
    ``cwd``: only sessions whose working directory is ``cwd`` or below it (``scan.tokencwd``).
    ``sort``: the rows' order, as ``tokens --json --sort`` prints them (``scan.tokensort``):
    ``date``, the report's own; ``cost`` or ``tokens``, the dearest or largest first, rows
    that tie in the report's own order.  ``breakdown``: each row's models too (``TokenRow.models``,
    ``scan.tokenmodels``; not with ``by="model"``)."""
    by = parse_group(by)  # library callers may pass any string (and ``sort``: a Literal, for mypy alone)
    breakdown = tokenmodels.check(by, breakdown)
    order = parse_sort(sort)  # before the sessions are read: a slip costs no scan
    tz = time_zone(tz)
    since, until = moment(since, "since", tz), moment(until, "until", tz)
    check_window(since, until)
    ids, providers = names(ids, "ids"), names(providers, "providers")
    cwd = project(cwd)
    # Each id with its session and the run it names; only the warnings of finding them that
    # may concern them (``scan.showscope``: another provider's unreadable file is not theirs).
    asked: tuple[tuple[str, SessionRef, str | None], ...] = ()
    if ids:
        from agentscan.scan.showscope import find_all  # not for a run with no id (its import)

        asked = find_all(scanner, ids)
    refs = [ref for _, ref, _ in asked] if ids else scanner.refs(providers)
    by_provider = tuple(ref for ref in refs if ref.provider not in providers) if providers and ids else ()
    if by_provider:
        refs = [ref for ref in refs if ref.provider in providers]
    every, picked = refs, None
    if not ids and cwd is None and by != "cwd" and (since is not None or until is not None):
        from agentscan.scan.windowrefs import window_refs  # (a window's alone)

        # The sessions whose sums the window needs, picked before any ref is made: the others
        # are made for no step (15,000, for a week's 113); ``every``: those the report covers.
        picked = window_refs(scanner, refs, since, until)
        refs = picked.refs if picked is not None else refs
    refs = list({ref.id: ref for ref in refs}.values())  # an id given twice is one session
    cwds: dict[str, str | None] | None = None
    by_cwd: list[tuple[SessionRef, str | None]] = []
    matched: dict[str, str] = {}
    if cwd is not None:
        refs, by_cwd, cwds, matched = tokencwd.within(scanner, refs, cwd)
    elif by == "cwd":
        cwds = tokencwd.session_cwds(scanner, refs)
    companions = copied_from(scanner, refs) if ids else ()
    report = _report(scanner, refs, every_session=not ids and cwd is None, since=since, until=until, by=by, tz=tz,
                     cwds=cwds, companions=companions, breakdown=breakdown, picked=picked)
    if ids and refs and len(report.unreadable) == len(refs):
        # Every session asked for could not be read: its usage is not known, which a total of 0
        # would say was nothing spent; failed as ``show`` of it fails (exit 1).
        first = next(ref for ref in refs if ref.id == report.unreadable[0])
        path, why = unread_cause(scanner, first)
        raise TranscriptUnreadable(first.id, path, why, in_part=scanner.row(first).usage_cut is not None)
    return replace(report, rows=sorted_rows(report.rows, order), matched_cwds=matched,
                   selection=ReportCoverage(asked, by_provider, tuple(by_cwd), len(every if picked else refs),
                                            every if picked else tuple(refs)))


def session_rows(scanner: Scanner, refs: Sequence[SessionRef]) -> TokenReport:
    """``--by session`` rows of ``refs`` alone, as a report of just these sessions gives them
    (``scan.answerpatch``: the sessions that changed since a whole report was kept)."""
    return _report(scanner, refs, every_session=False, since=None, until=None, by="session", tz=None)


def credited_report(scanner: Scanner, refs: Sequence[SessionRef], companions: Sequence[SessionRef]) -> TokenReport:
    """``--by session`` rows of ``refs`` read with ``companions`` (``copiedsessions.copied_from``),
    as ``tokens ID`` gives them: a row's figures where its files copy another session's
    calls (``creditedrows``)."""
    return _report(scanner, refs, every_session=False, since=None, until=None, by="session", tz=None,
                   companions=companions)


@saidorder.in_session_order  # (the sums' warnings, and those of kept rows said again with them)
def _report(scanner: Scanner, refs: Sequence[SessionRef], *, every_session: bool, since: datetime | None,
            until: datetime | None, by: GroupBy, tz: tzinfo | None,
            cwds: dict[str, str | None] | None = None, companions: Sequence[SessionRef] = (),
            breakdown: bool = False, picked: WindowRefs | None = None) -> TokenReport:
    """``every_session``: ``refs`` are every session of their providers (rows are kept for the next report).
    ``cwds``: each session's working directory, for ``--by cwd``.  ``companions``: sessions read
    with ``refs`` for the calls they share (``copiedsessions.copied_from``), in no row and no total.
    ``breakdown``: each row's models too (``scan.tokenmodels``: no kept row holds them).
    ``picked``: the window's pick made before the refs were (``refs`` are those picked)."""
    refs = list({ref.id: ref for ref in refs}.values())
    hidden = {ref.id for ref in companions} - {ref.id for ref in refs}
    low = since.timestamp() if since is not None else None
    high = until.timestamp() if until is not None else None
    buckets: dict[str, Bucket] = {}
    last_calls: dict[str, float] = {}
    book = PriceBook(scanner.ctx, scanner.cache)
    prices = GroupPrices(book)
    per_session = by == "session" and low is None and high is None
    kept_rows = SessionRows.for_report(scanner) if per_session and not breakdown else None
    kept = kept_rows.recall(refs, TokenRow, whole=every_session) if kept_rows is not None else {}
    read = [*refs, *(ref for ref in companions if ref.id in hidden)]
    usage = collect(scanner, read, needs_calls(by, tz, low, high, prices), kept.keys(),
                    window=(low, high) if low is not None or high is not None else None, picked=picked)
    if hidden:
        usage = without(usage, hidden)
    if low is not None or high is not None:
        untimed = untimed_calls(usage)  # in no window (``tokenfill.outside``): said, or the totals differ unexplained
        # ... but calls of 0 tokens change no total (and ``--by day`` shows no row of 0):
        # a warning on every windowed run would explain nothing.
        if untimed[0] and untimed[1]:
            scanner.ctx.warn("tokens", untimed_note(*untimed))
    agents = tokenagents.run_types(scanner, refs, usage) if by == "agent" else None
    row_of = rows_keyed(by, tz, cwds, agents)
    if GROUPED_USAGE in scanner.ctx.memo and every_session and not per_session and low is None and high is None:
        # Asked for: what a grouped answer's basis is made of (``scan.groupbasis``), with the
        # report's ``row_of`` (its memo of each minute's period, warm: the basis counts the same groups' rows).
        scanner.ctx.memo[GROUPED_USAGE] = (usage, row_of)
    if breakdown:
        row_of = tokenmodels.keyed_by_model(row_of)
    progress = scanner.ctx.progress
    # A phase of its own, counted: after an upgrade the line stood on "caching sessions" for
    # the 1.2 s of this (each session's sums bucketed and priced, the rows made) at scale 10.
    with progress.named(PRICING):
        progress.expect(sum(len(part.sums) for part in usage.values()))
        for taken in kept.values():
            # What reading the session's sums said, as a fresh run says it: also for a row
            # dropped below (its calls are shared now, and may come from the index, which says nothing).
            for warning in taken.warnings:
                scanner.ctx.warn(warning.path, warning.message, warning.line)
        for provider_name, part in usage.items():
            prefix = provider_name + ":"
            for native_id, sums in part.sums.items():
                if per_session and sums.price_keys is not None and not breakdown:  # ``needs_calls`` worked them out
                    # No window: every group has its key (``None`` only marks one left out of a window).
                    add_session_sums(buckets, sums, cast("list[int]", sums.price_keys), prefix + native_id)
                else:
                    add_sums(buckets, sums, prefix + native_id, provider_name, low, high, prices, row_of)
                progress.advance()
            add_entries(buckets, part.entries, provider_name, low, high, book, row_of)
            for native_id in part.exact if kept else ():
                kept.pop(prefix + native_id, None)  # shares calls with another session now: added up anew
        models: dict[str, list] = {}
        if breakdown:
            buckets, models = tokenmodels.merged(cast("dict[Hashable, Bucket]", buckets))
        if per_session:
            # Every selected session gets a row; one with no recorded usage shows null, one whose
            # every call is counted in another session's copy 0.
            elsewhere = {name + ":" + native_id for name, part in usage.items() for native_id in part.elsewhere}
            shown = [(ref.id, kept.get(ref.id) or buckets.get(ref.id) or (_SPENT_ELSEWHERE if ref.id in elsewhere else Bucket()))
                     for ref in refs]
        elif by == "session":  # a window: the sessions with usage in it (``kept`` is empty)
            shown = [(ref.id, bucket) for ref in refs
                     if (bucket := buckets.get(ref.id)) is not None and (bucket.own.parts or bucket.subagents)]
            last_calls = {key: bucket.last for key, bucket in shown if isinstance(bucket, Bucket) and bucket.last is not None}
        else:
            shown = [(key, buckets[key]) for key in sorted(buckets)]
        priced_rows = [(bucket.row, bucket.priced) if isinstance(bucket, KeptRow)
                       else _zero_row(key) if bucket is _SPENT_ELSEWHERE else bucket.row(key, book)
                       for key, bucket in shown]
        if breakdown:
            priced_rows = [(tokenmodels.with_models(row, models.get(row.key, ()), book), priced) for row, priced in priced_rows]
        if by == "session":
            priced_rows = marked_archived(scanner, refs, priced_rows, kept)
    fragments: dict[str, bytes] = {}
    if kept_rows is not None and every_session and len(kept) < len(refs):
        fragments = kept_rows.keep_report(refs, priced_rows, usage, kept)
    rows = tuple(row for row, _ in priced_rows)
    if GROUPING[by].period:
        # Calls of no time and 0 tokens (Claude Code's ``<synthetic>`` notices) make a row that tells nothing: the
        # table leaves it out (``tokens_folds.names_nothing``); --json kept it, all-zero ``unknown``, for a script to skip.
        rows = tuple(row for row in rows if not (row.key == UNTIMED and row.tokens is not None and not row.tokens.total))
    if GROUPING[by].dearest_first:
        rows = tuple(sorted(rows, key=lambda r: -(r.tokens.total if r.tokens else 0)))
    left = () if per_session else unrecorded(refs, usage, low, high, scanner)
    # A session whose transcript could not be read is not one that recorded nothing: no row.
    rows, unread = without_unread(scanner, refs, rows) if per_session else (rows, unread_ids(scanner, refs, left))
    left = tuple(session_id for session_id in left if session_id not in unread)
    sessions = {ref.id: ref for ref in refs} if by == "session" else {}
    recorded = [row for row in rows if row.tokens is not None]
    # A null row does not make the total null when its calls have no tokens (a <synthetic> row).
    whole = combined(priced for _, priced in priced_rows)
    total = sum_usage(row.tokens for row in recorded)
    if not rows and (len(unread) == len(refs) or _recorded_any(usage, kept)):
        # No session, or no call of theirs in the range: it spent 0.  (Sessions that recorded
        # no usage at all, current Cursor builds', stay ``null`` however they are grouped.)
        total, whole = TokenUsage(0, 0, 0, 0), Priced(Decimal(0), Decimal(0), (), False)
    report = TokenReport(by, rows, total, sessions, whole.cost,
                         book.data.to_json(), whole.priced, whole.unpriced,
                         {**fragments, **{key: taken.fragment for key, taken in kept.items() if taken.fragment is not None}},
                         left, unreadable=unread, last_calls=last_calls,
                         unread_causes=unread_causes(scanner, refs, unread))
    if report.total is not None and report.total.saturated:
        scanner.ctx.warn("tokens", TOKEN_SUM_CAPPED)
    return report


def _recorded_any(usage: dict[str, ProviderUsage], kept: dict[str, KeptRow]) -> bool:
    """Whether any of the report's sessions recorded usage (outside its range, maybe)."""
    return (any(part.entries or part.outside or any(sums.groups for sums in part.sums.values()) for part in usage.values())
            or any(taken.row.tokens is not None for taken in kept.values()))


#: ``ScanContext.memo``'s key of the usage a grouped report of every session added up and the
#: ``RowOf`` it put each group in by, kept there only when the key is (the CLI's ``tokens``: a
#: library caller's scan holds no such memory)
GROUPED_USAGE = "tokens.grouped_usage"

#: the bucket of a session whose every call is counted in another session's copy
_SPENT_ELSEWHERE = Bucket()


def _zero_row(key: str) -> tuple[TokenRow, Priced]:
    """The row of a session whose every call another session's copy counts: it spent 0 of
    its own (its calls are that session's), which is not "no usage recorded" (``null``)."""
    zero = TokenUsage(0, 0, 0, 0)
    return TokenRow(key, zero, zero, cost=Decimal(0), own_cost=Decimal(0), cost_priced=Decimal(0)), \
        Priced(Decimal(0), Decimal(0), (), False)
