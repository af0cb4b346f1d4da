"""A row's tokens and cost as ``tokens`` credits them, for a session whose files begin with
a copy of another session found in the home (``Provider.copied_from``: a resumed Claude
session copies its first session's records, with their ``sessionId``).

A row's pass adds up every call its files hold: the copies too.  ``tokens`` counts a copied
call once, in the session its record names; so ``list``, ``show`` and ``export`` would say
a resumed session spent what its first session spent as well, and a sum over their rows
counted it twice.  Such a row takes its figures from ``tokens ID``'s own report instead
(the same credit, ``copiedsessions``).  When the session copied from is not found, the
copies are counted in the row, as ``tokens`` counts them: nothing is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenRow


def credited_rows(scanner: Scanner, rows: Iterable[SessionRow], refs: Iterable[SessionRef]) -> dict[str, TokenRow]:
    """Each of ``rows`` whose files copy a session found here (its ``resumed_from``, which its
    row's pass found: no header is read again) -> its ``tokens`` row, the copies counted
    there; the others are not read.  ``refs`` hold each row's session."""
    resumed = {row.id for row in rows if row.resumed_from is not None and row.tokens is not None}
    if not resumed:
        return {}
    copying = [ref for ref in refs if ref.id in resumed and ref.path is not None]
    if not copying:
        return {}
    from agentscan.scan.copiedsessions import copied_from
    from agentscan.scan.tokens import credited_report

    companions = copied_from(scanner, copying)
    if not companions and len(copying) < 2:
        # The session copied from is gone: the copies count in this row, as in ``tokens``.
        # (Two rows may copy one another's calls, or calls of a first session gone: a chain.)
        return {}
    # (A row that shares nothing with them is credited as it was counted: the report's rule.)
    return {row.key: row for row in credited_report(scanner, copying, companions).rows}


def with_credit(rows: Sequence[SessionRow], credit: dict[str, TokenRow]) -> list[SessionRow]:
    """``rows`` with the credited ones' tokens and cost (``credited_rows``)."""
    if not credit:
        return list(rows)
    changed = []
    for row in rows:
        taken = credit.get(row.id)
        if taken is None or row.tokens is None:
            changed.append(row)
        else:
            changed.append(row.with_changes(tokens=taken.tokens, cost=taken.cost, cost_priced=taken.cost_priced,
                                            subagents=row.subagents - len(runs_credited_elsewhere(row, taken))))
    return changed


def runs_credited_elsewhere(row: SessionRow, taken: TokenRow) -> set[str]:
    """The runs ``row`` counted only from its copies of another session's records, whose calls
    ``taken`` (its credited row) leaves to that session: that session's runs, not this one's
    (a resumed session said ``1 subagent``, ``222 total (1100 by subagents)``)."""
    kept = {run for run, _ in taken.subagents}
    return {run for run in row.copied_runs if run not in kept}


def run_credited(scanner: Scanner, holders: Sequence[SessionRef], run: str) -> SessionRef | None:
    """The one of ``holders`` (sessions whose records name ``run``, none of them its maker's,
    which is gone) that ``list`` credits the run to: its calls count there (``tokens``' rule,
    ``credited_rows``), and every other holder's row leaves it out (``runs_credited_elsewhere``).
    ``None`` when the credit names none of them, or more than one (a run of no call)."""
    from agentscan.scan.copiedsessions import copied_from
    from agentscan.scan.tokens import credited_report

    # Only copies of one first session's records: two sessions that each made a run of the
    # same id (Claude's ``aside_question``) are no chain, and stay ambiguous.
    firsts = [set(scanner.provider(ref.provider).copied_from(ref, scanner.ctx)) for ref in holders]
    if not set.intersection(*firsts):
        return None
    report = credited_report(scanner, holders, copied_from(scanner, holders))
    crediting = {row.key for row in report.rows if any(sub == run for sub, _ in row.subagents)}
    picked = [ref for ref in holders if ref.id in crediting]
    return picked[0] if len(picked) == 1 else None
