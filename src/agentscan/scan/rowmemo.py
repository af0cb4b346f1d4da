"""Each session's ``tokens --by session`` row, kept for the next report.

With an agent at work, one or two of a heavy user's 15,000 sessions change
between two ``tokens`` runs, and the whole answer (``scan.answers``) cannot
be taken back; but the other sessions' rows are what they were.  A row added
up from the session's own sums (no call shared with another session, no
price changing inside one of its groups) depends on nothing but those sums,
that is on the session's fingerprint, and on the price data and the code.
Such rows are kept in the index's ``report_rows`` (one per session, with the
fingerprint it was computed at and the JSON a report prints for it), under
a stamp of the price data and the code; the next report takes back every
row whose session has the same fingerprint, and adds up only the others,
which are all it writes.  ``collect`` still decides, over every selected
session's key hashes, which sessions share calls: those are added up call
by call, whatever was kept.

A row whose cost is ``None`` because a model has no price is not kept:
pricing it again raises the warning that names the model.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import orjson

from agentscan.model import ScanWarning, TokenUsage
from agentscan.pricing.spend import Priced
from agentscan.progress import KEEPING_ROWS
from agentscan.scan.sessionsums import warning_from
from agentscan.digests import blake2b

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.providerusage import ProviderUsage
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenRow

_FORMAT = 1
#: rows written per statement
_BATCH = 1000
#: up to this many sessions of a report that is not of every session, their rows are
#: looked up alone (a provider's 10,000 kept rows are not read for the few changed)
_FEW = 64


class KeptRow(NamedTuple):
    row: TokenRow
    priced: Priced
    #: what reading the session's sums said (said again when the row is taken back)
    warnings: list[ScanWarning]
    #: the row's JSON as a report prints it (``TokenReport.fragments``)
    fragment: bytes | None = None


class SessionRows:
    """The rows kept for the sessions of a report's providers (``tokens --by session``)."""

    def __init__(self, scanner: Scanner, identity: str) -> None:
        """``identity``: the price data and the code, as ``scan.answers.price_identity`` gives them."""
        self._scanner = scanner
        self._recalled: set[str] = set()  # providers with a row taken back
        self._gone: list[str] = []  # kept rows of sessions not among those recalled for
        self._stamp = blake2b(f"{_FORMAT}\n{identity}".encode("utf-8", "surrogateescape"),
                                      digest_size=16).hexdigest()

    @classmethod
    def for_report(cls, scanner: Scanner) -> SessionRows | None:
        """The kept rows of this price data and code (``None``: no index, or the price data
        cannot be told apart from another's)."""
        from agentscan.codeid import code_identity
        from agentscan.scan.answers import price_identity

        if scanner.cache is None:
            return None
        prices = price_identity(scanner)
        return None if prices is None else cls(scanner, f"{code_identity()}\n{prices}")

    def recall(self, refs: Sequence[SessionRef], token_row: type[TokenRow], *, whole: bool = True) -> dict[str, KeptRow]:
        """The kept rows of ``refs`` whose fingerprint is the one they were kept at (made as
        ``token_row``s: ``scan.tokens`` imports this module, not the other way round).
        ``whole``: ``refs`` are every session of their providers (else a few are looked up alone)."""
        cache = self._scanner.cache
        if cache is None:
            return {}
        fingerprint = self._scanner.fingerprint
        wanted: dict[str, dict[str, str | None]] = {}
        for ref in refs:
            wanted.setdefault(ref.provider, {})[ref.id] = fingerprint(ref)
        found: dict[str, KeptRow] = {}
        loads = orjson.loads
        few = not whole and len(refs) <= _FEW
        for provider, fingerprints in wanted.items():
            kept = (cache.get_report_rows_of(list(fingerprints), self._stamp) if few
                    else cache.get_report_rows(provider, self._stamp))
            for session_id, kept_at, data, fragment in kept:
                if fingerprints.get(session_id) != kept_at:
                    if session_id not in fingerprints:
                        self._gone.append(session_id)  # dropped when rows are kept next
                    continue
                try:
                    found[session_id] = _row_from(token_row, session_id, loads(data), fragment)
                except (TypeError, ValueError, KeyError, IndexError, ArithmeticError):
                    continue  # ill-shaped (``orjson.JSONDecodeError`` is a ``ValueError``): computed again
        self._recalled = {ref.provider for ref in refs if ref.id in found}
        return found

    def keep_report(self, refs: Sequence[SessionRef], priced_rows: list[tuple[TokenRow, Priced]],
                    usage: dict[str, ProviderUsage], kept: dict[str, KeptRow]) -> dict[str, bytes]:
        """Keep the rows of ``refs`` (every session of their providers, in the order of
        ``priced_rows``) added up now from their own sums alone; rows taken back stay as
        they are, and those of sessions gone go.  Gives the JSON made of each row kept
        (``TokenReport.fragments``: the report prints it rather than make it again)."""
        if self._scanner.cache is None:
            return {}
        # A provider none of whose rows was taken back: what it kept is of other prices (or
        # of sessions since gone), and goes; so do the rows of sessions gone (a report of
        # every session of its providers: a row of none of them is of a session gone).
        replacing = sorted({ref.provider for ref in refs if ref.id not in kept} - self._recalled)
        gone = self._gone
        progress = self._scanner.ctx.progress
        # Counted, a phase of its own: 0.8 s at scale 10 after an upgrade, the line standing
        # on the phase before.
        with progress.named(KEEPING_ROWS):
            progress.expect(len(refs) - len(kept))
            return self._keep(refs, priced_rows, usage, kept, replacing, gone, progress.advance)

    def _keep(self, refs: Sequence[SessionRef], priced_rows: list[tuple[TokenRow, Priced]],
              usage: dict[str, ProviderUsage], kept: dict[str, KeptRow], replacing: list[str], gone: list[str],
              advance: Callable[[], None]) -> dict[str, bytes]:
        """``keep_report``'s rows, ``advance`` told as each session not ``kept`` is done."""
        cache = self._scanner.cache
        assert cache is not None
        fingerprint = self._scanner.fingerprint
        made: dict[str, bytes] = {}
        rows: list[tuple[str, str, str, str, bytes, bytes]] = []
        for ref, (row, priced) in zip(refs, priced_rows):
            session_id = ref.id
            if session_id in kept:
                continue
            advance()
            sums = usage[ref.provider].sums.get(ref.native_id) if ref.provider in usage else None
            if sums is None or sums.passing or sums.counted or priced.unpriced or row.unpriced_models:
                # shared calls, a read that failed this time, warnings past those a row keeps
                # (said as a count: ``SessionSums.counted``), calls priced apart, or a model's warning
                continue
            if row.archived is None:
                # Whether it is archived was not known this run (Cursor's state DB locked: its
                # sums from the index, ``tokenrowmarks.marked_archived``): kept, the row said
                # ``"archived": null`` to every warm run after the lock was gone.
                continue
            at = fingerprint(ref)
            if at is None:
                continue
            try:
                data = orjson.dumps(_data_of(row, priced, sums.warnings_json()))
            except TypeError:
                continue
            fragment = made[session_id] = fragment_of(row)
            rows.append((session_id, ref.provider, self._stamp, at, data, fragment))
            if len(rows) == _BATCH:  # a first run keeps 15,000: not all held for one statement
                cache.put_report_rows(rows, replacing=replacing, gone=gone)
                rows, replacing, gone = [], [], []
        if made:
            cache.put_report_rows(rows, replacing=replacing, gone=gone)
            cache.commit()
        return made


def _usage(usage: TokenUsage | None) -> list[int] | None:
    return None if usage is None else [usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning]


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)  # exact: a float would round


def _data_of(row: TokenRow, priced: Priced, warnings: list[dict[str, Any]]) -> list[Any]:
    if (not row.subagents and not row.recovered and not warnings and row.own == row.tokens and not row.archived
            and row.own_cost == row.cost == row.cost_priced and row.subagents_cost is None):
        # Most rows: the session's own calls, all priced (a third of the objects to decode).
        return [_usage(row.tokens), _decimal(row.cost), priced.tokens]
    return [
        _usage(row.tokens), _usage(row.own),
        [[sub_id, _usage(tokens)] for sub_id, tokens in row.subagents],
        _decimal(row.cost), _decimal(row.own_cost), [_decimal(cost) for cost in row.subagent_costs],
        [list(pair) for pair in row.recovered], _decimal(row.cost_priced), _decimal(row.subagents_cost),
        priced.tokens, warnings, *((True,) if row.archived else ()),
    ]


def fragment_of(row: TokenRow) -> bytes:
    # A row is an item of the report's "rows": printed two levels in (``TokenReport.to_json``).
    return orjson.dumps(row.to_json(), option=orjson.OPT_INDENT_2).replace(b"\n", b"\n    ")


def _row_from(token_row: type[TokenRow], session_id: str, data: Any, fragment: bytes) -> KeptRow:
    """A kept row made again.  The seal vouches for the bytes, and only this code (its
    identity is in the stamp) wrote them: the checks are of the shape, and cheap (a heavy
    user's report takes back 15,000 rows)."""
    if len(data) == 3:  # see ``_data_of``
        tokens, cost, has_tokens = data
        usage = None if tokens is None else TokenUsage(*tokens)
        exact = None if cost is None else Decimal(cost)
        row = token_row(session_id, usage, usage, (), exact, exact, (), (), exact, (), None)
        return KeptRow(row, Priced(exact, exact, (), has_tokens is True), [], fragment)
    (tokens, own, subagents, cost, own_cost, subagent_costs, recovered, cost_priced, subagents_cost,
     has_tokens, warnings) = data[:11]
    archived = data[11:] == [True]  # (``TokenRow.archived``: only when set)
    if subagents:
        subs = tuple((sub_id, None if usage is None else TokenUsage(*usage)) for sub_id, usage in subagents)
        sub_costs = tuple(None if item is None else Decimal(item) for item in subagent_costs)
        if len(sub_costs) != len(subs):
            raise ValueError("bad row")
    else:
        subs = sub_costs = ()
    row = token_row(session_id, None if tokens is None else TokenUsage(*tokens), None if own is None else TokenUsage(*own),
                    subs, None if cost is None else Decimal(cost), None if own_cost is None else Decimal(own_cost),
                    sub_costs, tuple(map(tuple, recovered)) if recovered else (),
                    None if cost_priced is None else Decimal(cost_priced), (),
                    None if subagents_cost is None else Decimal(subagents_cost), archived=archived)
    said = [warning_from(w) for w in warnings] if warnings else []
    return KeptRow(row, Priced(row.cost, row.cost_priced, (), has_tokens is True), said, fragment)
