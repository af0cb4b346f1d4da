"""A whole ``tokens --json`` answer patched by the sessions that changed since it was computed.

With an agent at work, a session or two of a heavy user's 15,000 change
between two runs: the remembered answer (``scan.answers``) is a miss, and a
report of every session takes back 15,000 kept rows, checks every session's
key hashes for calls shared between sessions, and adds them all up again.
Yet the answer differs from the last whole one only in the rows of the
sessions that changed, in their places, and in the total.

So a whole report's answer (no warning, its cost known) is kept with a
*basis*: each row's session, fingerprint, place in the answer, tokens and
exact cost, and each provider's key hashes (each session's, and all of them
sorted), laid out as ``scan.answerbasis`` reads it back.  A later run
whose answer is not remembered:

1. compares the sessions discovered now with the basis's, by id and
   fingerprint: changed, new and gone ones (at most ``MAX_CHANGED``);
2. gives up if one of those shared calls with another session, or had a
   cost that is not known (the total could not take it back out);
3. adds up the changed and new sessions alone (``tokens.session_rows``), and
   gives up on any warning, or if one of their key hashes is another
   session's (calls shared now: only the whole report merges them);
4. prints the other rows as the kept answer has them, and the total as the
   kept one, less the old rows, plus the new ones (exact decimals).

Giving up costs only the work done so far: the whole report is made, as
without a basis.  Only a whole report keeps a basis, so every patch is of
the last whole answer, and sessions changed since it accumulate until a
whole report is made again.  Tests compare patched answers with whole ones,
byte for byte.
"""

from __future__ import annotations

from array import array
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Sequence

import orjson

from agentscan.bounds import MAX_TOKEN_SUM
from agentscan.model import TokenUsage, usd
from agentscan.pricing.periods import EXACT, plain
from agentscan.scan import answers
from agentscan.scan.answerbasis import FORMAT, OPAQUE, Basis, Damaged, Details, Sections
from agentscan.scan.basiskeys import key_sections, nothing_shared
from agentscan.scan.mergedrefs import MergedRefs
from agentscan.scan.rowmemo import fragment_of
from agentscan.sealing import sealed_parts, unseal_view

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenReport, TokenRow

#: more sessions changed than this since the last whole answer: it is made whole again
MAX_CHANGED = 64
#: where the rows start in an answer, and what is between two of them (``orjson.OPT_INDENT_2``)
_ROWS_OPEN = b'\n  "rows": [\n    '
_BETWEEN = b",\n    "


def _slot(command: str) -> str:
    return f"basis:{command}:session"


def keep(scanner: Scanner, command: str, question: Mapping[str, Any], report: TokenReport, *,
         answer: bytes | None = None, extras: Sequence[bytes] | None = None,
         sections: Mapping[str, bytes] | None = None) -> None:
    """Keep a basis of ``report`` (of every session, printed with no warning): ``answer``, the
    ``--json`` printed, or ``extras``, a line of bytes for each of its rows, and ``sections``
    of the caller's (the text table's, ``cli.tablebasis``), read back by ``Basis.extras``
    and ``Basis.section``."""
    total = report.total
    if scanner.cache is None or not report.rows or report.cost is None or report.unpriced_models or total is None or total.saturated:
        return
    start = answer.find(_ROWS_OPEN) if answer is not None else 0
    if start < 0 or (extras is not None and (
            len(extras) != len(report.rows) or any(b"\n" in extra for extra in extras))):
        return
    at = start + len(_ROWS_OPEN)
    ids: list[str] = []
    fingerprints: list[str] = []
    places = array("q")
    details: list[list[Any]] = []  # per row: tokens, cost, and where its key hashes are
    fingerprint = scanner.fingerprint
    recorded = known = 0
    for row in report.rows:
        ref = report.sessions.get(row.key)
        fingerprint_now = fingerprint(ref) if ref is not None else None
        if fingerprint_now is None:
            return  # a session the index cannot vouch for
        if answer is not None:
            fragment = report.fragments.get(row.key) or fragment_of(row)
            if answer[at:at + len(fragment)] != fragment:
                return  # rows not laid out as ``patched`` lays them
            places.extend((at, len(fragment)))
            at += len(fragment) + len(_BETWEEN)
        cost = _cost_of(row)
        recorded += row.tokens is not None
        known += cost is not None and cost != OPAQUE
        ids.append(row.key)
        fingerprints.append(fingerprint_now)
        details.append([usage_fields(row.tokens), cost, 0, 0])
    stored = Sections()
    sharing_ids = key_sections(scanner, stored, ids, fingerprints, details)
    if sharing_ids is None:
        return
    stored.add("details", b"\n".join(map(orjson.dumps, details)))
    if answer is not None:
        stored.add("places", places.tobytes())
        stored.add("answer", answer)
    if extras is not None:
        stored.add("extras", b"\n".join(extras))
    for name, data in (sections or {}).items():
        stored.add(name, data)
    store(scanner, _slot(command), command, question, {
        "sharing": sharing_ids, "total": usage_fields(total), "recorded": recorded, "known": known,
        "cost": str(report.cost), "prices": report.prices}, stored)


class Patch(NamedTuple):
    """What changed since a kept basis, and the report's rows and total now."""

    basis: Basis
    #: as ``Changes``'
    now: list[tuple[str, str | None]]
    refs: Sequence[SessionRef]
    changed: list[int]
    #: their rows (made anew), by session id
    new_rows: dict[str, TokenRow]
    #: the JSON fragments their rows were printed as (those not made by ``fragment_of``)
    fragments: dict[str, bytes]
    total: TokenUsage
    cost: Decimal


def patched(scanner: Scanner, command: str, question: Mapping[str, Any], providers: list[str]) -> bytes | None:
    """The answer of every session of ``providers``, patched from the basis; ``None``: it
    must be made whole.  Call it inside a warnings capture: a warning makes it ``None``."""
    patch = patch_of(scanner, command, question, providers)
    if patch is None:
        return None
    try:
        return _answer(patch)
    except Damaged:
        return None  # the kept answer's place in the basis is only read here


def patch_of(scanner: Scanner, command: str, question: Mapping[str, Any], providers: list[str]) -> Patch | None:
    """The changes since the basis kept for ``command`` and ``question`` (``None``: the
    report must be made whole); inside a warnings capture, as ``patched``."""
    basis = basis_of(scanner, _slot(command), command, question)
    try:
        return _patch(scanner, basis, providers) if basis is not None else None
    except Damaged:
        return None  # a basis of another shape: made whole (a bug elsewhere is not hidden)


def basis_of(scanner: Scanner, slot: str, command: str, question: Mapping[str, Any]) -> Basis | None:
    """The basis kept in ``slot`` for ``command`` and ``question`` (``None``: none, or damaged)."""
    cache = scanner.cache
    identity = answers.question_identity(scanner, command, question) if cache is not None else None
    if cache is None or identity is None:
        return None
    value = unseal_view(cache.get_snapshot(slot, identity))
    try:
        return Basis(value) if value is not None else None
    except Damaged:
        return None


def store(scanner: Scanner, slot: str, command: str, question: Mapping[str, Any], header: dict[str, Any],
          stored: Sections, *, commit: bool = True) -> None:
    """Keep a basis (``header``, then ``stored``'s sections) in ``slot`` for ``command`` and ``question``;
    ``commit``: False for a caller that writes more in the same transaction (``groupbasis.keep``)."""
    cache = scanner.cache
    identity = answers.question_identity(scanner, command, question)
    if cache is None or identity is None:
        return
    try:
        head = orjson.dumps({"format": FORMAT, "sections": stored.places, **header})
    except TypeError:
        return
    cache.put_snapshot_parts(slot, identity, sealed_parts([head, b"\n", *stored.parts]))
    if commit:
        cache.commit()


class Changes(NamedTuple):
    """The sessions that changed since a basis was kept (``changes``): every session ``now``
    with its fingerprint and its ``refs``, in the report's order; the changed and new ones'
    places in ``now``, and the changed and gone ones' in the basis (``taken_out``)."""

    now: list[tuple[str, str | None]]
    refs: Sequence[SessionRef]
    changed: list[int]
    taken_out: list[int]
    #: the taken-out sessions' details in the basis (none ``OPAQUE``), by id
    old: dict[str, Details]


def changes(scanner: Scanner, basis: Basis, providers: list[str]) -> Changes | None:
    """The sessions of ``providers`` that changed, came or went since ``basis`` was kept;
    ``None``: too many, or one of those taken out shared calls with another or has a part
    that is not its row's alone (``OPAQUE``): made whole."""
    refs = scanner.refs(providers)
    now = refs.sessions(scanner.fingerprint) if isinstance(refs, MergedRefs) else [
        (ref.id, scanner.fingerprint(ref)) for ref in refs]
    if not now:
        return None  # no session, or an order that a whole report tells better (``MergedRefs.reordered``)
    index_of, fingerprints = basis.index, basis.fingerprints
    changed: list[int] = []
    for position, (session_id, fingerprint) in enumerate(now):
        index = index_of.get(session_id)
        if fingerprint is None:
            return None
        if index is None or fingerprints[index] != fingerprint:
            changed.append(position)
    present = {session_id for session_id, _ in now}
    if len(present) < len(now):
        return None
    gone = [index for session_id, index in index_of.items() if session_id not in present]
    if len(changed) + len(gone) > MAX_CHANGED:
        return None
    taken_out = [index_of[now[position][0]] for position in changed if now[position][0] in index_of] + gone
    if any(basis.ids[index] in basis.sharers for index in taken_out):
        return None
    if any(refs[position].id != now[position][0] for position in changed):
        return None  # the sequence moved under us (a newer discovery stored meanwhile)
    old = {basis.ids[index]: basis.details(index) for index in taken_out}
    if any(cost == OPAQUE for _, cost, _ in old.values()):
        return None  # read call by call, or a price missing: its part is not the basis's to take out
    return Changes(now, refs, changed, taken_out, old)


def _patch(scanner: Scanner, basis: Basis, providers: list[str]) -> Patch | None:
    from agentscan.scan.tokens import session_rows

    found = changes(scanner, basis, providers)
    if found is None:
        return None
    now, refs, changed, _, old_rows = found
    changed_refs = [refs[position] for position in changed]
    made = session_rows(scanner, changed_refs) if changed else None
    if len(scanner.ctx.warnings):
        return None  # any of the run, discovery's too: a whole report says them (and its answer keeps them)
    new_rows = {row.key: row for row in made.rows} if made is not None else {}
    if len(new_rows) != len(changed) or not nothing_shared(scanner, basis, old_rows, now, changed):
        return None
    total, cost = _total(basis, old_rows.values(), new_rows.values())
    if total is None:
        return None
    return Patch(basis, now, refs, changed, new_rows, made.fragments if made is not None else {}, total, cost)


def _answer(patch: Patch) -> bytes:
    """The ``--json`` answer: the kept rows as printed, the changed ones anew, the total."""
    basis, index_of = patch.basis, patch.basis.index
    pieces: list[bytes] = []
    run: list[int] = []  # the first and last basis row of adjacent unchanged rows

    def flush() -> None:
        if run:
            pieces.append(basis.answer_of(run[0], run[1]))
            run.clear()

    for session_id, _ in patch.now:
        row = patch.new_rows.get(session_id)
        if row is not None:
            flush()
            pieces.append(patch.fragments.get(session_id) or fragment_of(row))
            continue
        index = index_of[session_id]
        if run and index == run[1] + 1:
            run[1] = index
        else:
            flush()
            run[:] = [index, index]
    flush()
    document = {"by": "session", "rows": [orjson.Fragment(b"0")], "total": patch.total.to_json(),
                "cost_usd": usd(patch.cost), "cost_usd_priced": usd(patch.cost), "unpriced_models": [],
                "unreadable": [], "prices": basis.header["prices"]}  # (patched only when nothing warned)
    head, _, tail = orjson.dumps(document, option=orjson.OPT_INDENT_2).partition(_ROWS_OPEN + b"0")
    return b"".join((head, _ROWS_OPEN, _BETWEEN.join(pieces), tail))


def _total(basis: Basis, taken_out: Iterable[Details], added: Iterable[TokenRow]
           ) -> tuple[TokenUsage | None, Decimal]:
    """The kept total less the rows ``taken_out``, plus the rows ``added``; ``None`` when it
    cannot be told so (a new row's cost is not known, nothing is left recorded or priced)."""
    fields = list(basis.total)
    recorded, known, cost = basis.recorded, basis.known, basis.cost
    for tokens, row_cost, _ in taken_out:
        if tokens is not None:
            recorded -= 1
            fields = [a - b for a, b in zip(fields, tokens)]
        if row_cost is not None:
            known -= 1
            cost = EXACT.subtract(cost, Decimal(row_cost))
    for row in added:
        new_cost = _cost_of(row)
        if new_cost == OPAQUE:
            return None, cost
        if row.tokens is not None:
            recorded += 1
            fields = [a + b for a, b in zip(fields, usage_fields(row.tokens))]  # type: ignore[arg-type]
        if new_cost is not None:
            known += 1
            cost = EXACT.add(cost, Decimal(new_cost))
    if recorded <= 0 or known <= 0 or len(fields) != 5 or any(not 0 <= field < MAX_TOKEN_SUM for field in fields):
        return None, cost
    return TokenUsage(*fields), plain(cost)


def _cost_of(row: TokenRow) -> str | None:
    """A row's exact cost (``None``: a row of nothing, which adds nothing to a total), or
    ``OPAQUE``: a row whose part in the total is not its cost alone (a price missing)."""
    if row.cost is not None and row.cost_priced == row.cost and not row.unpriced_models:
        return str(row.cost)
    if row.tokens is None and row.cost is None and row.cost_priced is None and not row.unpriced_models:
        return None
    return OPAQUE


def usage_fields(usage: TokenUsage | None) -> list[int] | None:
    """``usage``'s five sums as a basis keeps them (``scan.groupbasis`` too)."""
    return None if usage is None else [usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning]


__all__ = ["MAX_CHANGED", "Changes", "Patch", "basis_of", "changes", "keep", "patch_of", "patched", "store",
           "usage_fields"]
