"""Each session's export days, as added up alone (``days._alone``), kept for the next export.

A nightly ``export --format sqlite`` of a heavy user's 15,000 sessions decoded all of their
880,000 kept calls to bucket them by day again, though all but the few sessions an agent
worked in since were as they were: half of an unchanged export's 5 CPU-s.  A session's days
added up alone, and its cost, depend on nothing but its calls (that is, its fingerprint:
the index keeps its calls under it), the price data and the code; so they are kept, in
the index's ``snapshots`` (one value a provider, under a stamp of the price data and the
code, each session with the fingerprint it was added up at), and the next export takes
back those of every session whose fingerprint is the same, reading only the others' calls.

Which sessions share calls is still worked out over every session's key hashes, and those
that do are read again and merged together (``days``), whatever was kept.  Kept only:

* for days in UTC (an SQLite index's, ``--days`` without ``--tz``);
* for sessions whose reading said nothing (no warning to say again: the pricing's, which
  names a model and no file, aside) and whose every call, and every day, has a price (a
  model without one is said, by the pricing, when it is priced: such a session is read, and
  priced, again on every run).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import orjson

from agentscan.digests import blake2b
from agentscan.export.rows import UsageDay
from agentscan.pricing.spend import Priced
from agentscan.sealing import seal, unseal_json

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.model import ScanWarning, SessionRef
    from agentscan.scan.scanner import Scanner

_FORMAT = 1
#: the snapshot's key, with the provider's name after it
KEY = "exportdays:"
#: how the pricing's no-price warning names what it is of (``pricing.book.PriceBook._report``)
PRICING_PATH = "model:"

#: a session's days and cost, as ``days._alone`` gives them
Alone = tuple[list[UsageDay], Priced]


class DayMemo:
    """The days kept for the sessions of an export's providers."""

    def __init__(self, scanner: Scanner, identity: str) -> None:
        """``identity``: the price data and the code."""
        self._scanner = scanner
        self._stamp = blake2b(f"{_FORMAT}\n{identity}".encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        #: provider -> session id -> its kept value, as decoded (written back as it is)
        self._kept: dict[str, dict[str, Any]] = {}
        #: provider -> session id -> a value made this run
        self._made: dict[str, dict[str, Any]] = {}

    @classmethod
    def for_export(cls, scanner: Scanner, zone: tzinfo | None) -> DayMemo | None:
        """The kept days of this price data and code; ``None``: days in a zone (``--tz``), no
        index, or price data that cannot be told apart from another's."""
        if zone is not None or scanner.cache is None:
            return None
        from agentscan.codeid import code_identity
        from agentscan.scan.answers import price_identity

        prices = price_identity(scanner)
        return None if prices is None else cls(scanner, f"{code_identity()}\n{prices}")

    def recall(self, refs: Sequence[SessionRef], prints: Mapping[str, str | None]) -> dict[str, Alone]:
        """The kept days and cost of each of ``refs`` whose fingerprint (in ``prints``) is the one
        they were kept at."""
        cache = self._scanner.cache
        if cache is None:
            return {}
        found: dict[str, Alone] = {}
        for ref in refs:
            value = self._loaded(ref.provider).get(ref.id)
            if value is None:
                continue
            try:
                if value[0] == prints[ref.id]:
                    found[ref.id] = _alone_from(value)
            except (TypeError, ValueError, IndexError, KeyError, ArithmeticError):
                continue  # ill-shaped: added up again
        return found

    def note(self, ref: SessionRef, alone: Alone) -> None:
        """Keep ``alone``, ``ref``'s days and cost added up now (not when a model has no price)."""
        days, priced = alone
        at = self._scanner.fingerprint(ref)  # (as its read left it)
        # A day of no price (a model whose calls have no tokens, priced alone on its day) is
        # said by the pricing as one of no tokens is: read again, it is said again.
        if at is None or priced.unpriced or priced.cost is None or any(day.cost is None for day in days):
            return
        self._made.setdefault(ref.provider, {})[ref.id] = [at, [_day_value(day) for day in days], _priced_value(priced)]

    def keep(self, refs: Iterable[SessionRef]) -> None:
        """Write what was made this run beside what was kept, for ``refs`` (every present session
        of the export's providers).  A kept value of a session not among them stays while the
        index holds that session's calls as they were kept at (another home's, ``--home``,
        sharing the index); one whose session the index forgot (gone: ``scan.prune``) or
        holds otherwise goes.  The document is read here when ``recall`` did not (an
        ``export --since`` of changed sessions only): written without it, it lost every
        other session's days."""
        cache = self._scanner.cache
        if cache is None:
            return
        present: dict[str, set[str]] = {}
        for ref in refs:
            present.setdefault(ref.provider, set()).add(ref.id)
        for provider, ids in present.items():
            made = self._made.get(provider, {})
            kept = self._loaded(provider)
            absent = [session_id for session_id in kept if session_id not in ids]
            if not made and not absent:
                continue  # as it was
            held = cache.fingerprints_in("usage", absent) if absent else {}
            document = {session_id: value for session_id, value in kept.items()
                        if session_id in ids or _kept_at(value) == held.get(session_id, False)}
            document.update(made)
            if document.keys() == kept.keys() and not made:
                continue  # as it was
            cache.put_snapshot(f"{KEY}{provider}", self._stamp, seal(orjson.dumps(document)))
        cache.commit()

    def _loaded(self, provider: str) -> dict[str, Any]:
        """The document kept for ``provider``, read once."""
        kept = self._kept.get(provider)
        if kept is None:
            cache = self._scanner.cache
            document = unseal_json(cache.get_snapshot(f"{KEY}{provider}", self._stamp)) if cache is not None else None
            kept = self._kept[provider] = document if isinstance(document, dict) else {}
        return kept


def said_nothing(batch: Sequence[SessionRef], warnings: Sequence[ScanWarning], passing: bool,
                 overflowed: bool) -> set[str]:
    """Those of ``batch`` (read together) that no warning of their reading named (nothing to say
    again when their days are taken back); none when a warning named no file of theirs."""
    if passing or overflowed:
        return set()
    from agentscan.fsview import legible

    # The pricing's no-price warning names a model (``model:claude/<model>``, ``book._report``),
    # no file: a session whose calls it is said of is never kept (``note``), and so is read,
    # and priced, on every run that says it.  Counted here, it kept nothing of its batch.
    named = {warning.path for warning in warnings if not warning.path.startswith(PRICING_PATH)}
    left = {ref.id for ref in batch}
    for ref in batch:
        if any(legible(str(path)) in named for path in ref.read_files):
            left.discard(ref.id)
            named -= {legible(str(path)) for path in ref.read_files}
    return left if not named else set()


def _kept_at(value: Any) -> object:
    """The fingerprint a kept value was made at (``None`` when it is ill-shaped)."""
    return value[0] if isinstance(value, list) and value and isinstance(value[0], str) else None


def _day_value(day: UsageDay) -> list[Any]:
    return [day.session_id, day.day, day.model, day.subagent, list(day.tokens), _decimal(day.cost)]


def _priced_value(priced: Priced) -> list[Any]:
    return [_decimal(priced.cost), _decimal(priced.priced), list(priced.unpriced), priced.tokens]


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)  # exact: a float would round


def _alone_from(value: Any) -> Alone:
    """A kept value made again.  The seal vouches for the bytes and only this code (its
    identity is in the stamp) wrote them: the checks are of the shape."""
    _, days, (cost, priced, unpriced, tokens) = value
    made = []
    for session_id, day, model, subagent, counts, day_cost in days:
        if len(counts) != 5:
            raise ValueError("bad day")
        made.append(UsageDay(session_id, day, model, subagent, tuple(counts),  # type: ignore[arg-type]
                             None if day_cost is None else Decimal(day_cost)))
    return made, Priced(None if cost is None else Decimal(cost), None if priced is None else Decimal(priced),
                        tuple(unpriced), tokens is True)
