"""A token report and its rows, as values: what ``token_report`` returns and the library exports.

A row keeps the session's own part and each subagent's part apart, each with
its exact cost, so a user can see what the subagents cost; usage that was not
recorded prints as ``null``, never zeros.  Apart from the adding up
(``scan.tokens``): what prints or keeps a report (the CLI's table,
``scan.rowmemo``, ``scan.answerpatch``) needs only these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, NamedTuple, Sequence

from agentscan.model import SessionRef, TokenUsage, usage_json, usd
from agentscan.scan.groupby import GroupBy


@dataclass(frozen=True, slots=True)
class TokenRow:
    """One group: its tokens and exact cost, the own part and each subagent's part apart.

    A cost is ``None`` when nothing was recorded or when some of the
    group's calls have no price (``agentscan.pricing.spend.Priced``); then
    ``cost_priced`` sums the calls that have one and ``unpriced_models``
    names the models that have none.
    """

    key: str
    tokens: TokenUsage | None
    own: TokenUsage | None
    subagents: tuple[tuple[str, TokenUsage | None], ...] = ()
    cost: Decimal | None = None
    own_cost: Decimal | None = None
    #: aligned with ``subagents``
    subagent_costs: tuple[Decimal | None, ...] = ()
    #: subagent id -> where its part was recovered from (its transcript is gone)
    recovered: tuple[tuple[str, str], ...] = ()
    #: the exact cost of the calls that have a price (``cost`` when that is known)
    cost_priced: Decimal | None = None
    #: the models whose calls make ``cost`` ``None``
    unpriced_models: tuple[str, ...] = ()
    #: all subagent parts together (``None`` like any cost); the table's one line for them
    subagents_cost: Decimal | None = None
    #: what the own part's calls that have a price cost, as ``cost_priced`` is the group's:
    #: ``own_cost`` when that is known (filled in so, when not given), a lower bound when not
    own_cost_priced: Decimal | None = None
    #: the same for each subagent's part (aligned with ``subagents``; ``()``: their costs)
    subagent_costs_priced: tuple[Decimal | None, ...] = ()
    #: the same for all subagent parts together (``subagents_cost``'s lower bound)
    subagents_cost_priced: Decimal | None = None
    #: a group's (not a session's) agents, by name: whether its reasoning is known whole, as
    #: Claude Code and Cursor record none apart (``providers.REASONING_NOT_REPORTED``); not in
    #: its JSON, where a row is not a session's (``()``: not known, as a session's row)
    providers: tuple[str, ...] = field(default=(), compare=False)
    #: a session's row: the user archived it (``SessionRow.archived``: a Codex thread, a Cursor
    #: chat; ``Provider.archived_unread`` where the row is not read), in its
    #: JSON only when set, as ``list``'s is (a script leaves archived sessions out so);
    #: ``None``: not known (Cursor's state DB locked or corrupt, no row kept to say it), in its
    #: JSON as ``null``, not left out: a script would take the chat for one not archived
    archived: bool | None = False
    #: ``--breakdown``: the row's calls by model, each a row keyed by the model as ``--by model``
    #: keys it (``scan.tokenmodels``), the dearest first; they add up to the row exactly.
    #: ``None``: not asked for, and not in its JSON (``()``: a row that recorded no usage)
    models: tuple[TokenRow, ...] | None = None

    def __post_init__(self) -> None:
        # A row made with known costs only (``scan.rowmemo`` keeps no row with an unpriced
        # model) need not repeat them: the priced part of a known cost is that cost.
        if self.own_cost_priced is None and self.own_cost is not None:
            object.__setattr__(self, "own_cost_priced", self.own_cost)
        if not self.subagent_costs_priced and self.subagent_costs:
            object.__setattr__(self, "subagent_costs_priced", self.subagent_costs)
        if self.subagents_cost_priced is None and self.subagents_cost is not None:
            object.__setattr__(self, "subagents_cost_priced", self.subagents_cost)

    def to_json(self) -> dict[str, Any]:
        costs = self.subagent_costs or (None,) * len(self.subagents)
        priced = self.subagent_costs_priced or (None,) * len(self.subagents)
        recovered = dict(self.recovered)
        # Most rows are the session's own calls, all priced: the same sums and the same cost
        # (one object) four times; each made into JSON once (a cold ``tokens`` makes 15,000
        # rows' fragments at scale 10, one core idle).
        sums = usage_json(self.tokens)
        cost_usd = usd(self.cost)
        return {
            "key": self.key,
            "tokens": sums,
            "cost_usd": cost_usd,
            "cost_usd_priced": cost_usd if self.cost_priced is self.cost else usd(self.cost_priced),
            "unpriced_models": list(self.unpriced_models),
            # (a copy: a library caller may change one of the two; still far cheaper than another ``usage_json``)
            "own": (None if sums is None else dict(sums)) if self.own == self.tokens else usage_json(self.own),
            "own_cost_usd": cost_usd if self.own_cost is self.cost else usd(self.own_cost),
            "own_cost_usd_priced": cost_usd if self.own_cost_priced is self.cost else usd(self.own_cost_priced),
            "subagents": [
                {"id": sub_id, "tokens": usage_json(tokens), "cost_usd": usd(cost), "cost_usd_priced": usd(part),
                 "recovered_from": recovered.get(sub_id)}
                for (sub_id, tokens), cost, part in zip(self.subagents, costs, priced)
            ],
            **({"archived": self.archived} if self.archived is not False else {}),
            **({"models": [part.model_json() for part in self.models]} if self.models is not None else {}),
        }

    def model_json(self) -> dict[str, Any]:
        """The row as one of another row's ``models`` (``--breakdown``): its model (its key),
        tokens and cost, in the fields and shapes a row gives them."""
        return {"model": self.key, "tokens": usage_json(self.tokens), "cost_usd": usd(self.cost),
                "cost_usd_priced": usd(self.cost_priced), "unpriced_models": list(self.unpriced_models)}


class ReportCoverage(NamedTuple):
    """The sessions a report covers and those its options left out, as ``token_report`` found
    them, so that what a person is told of them (``cli.tokens_answer``) needs no lookup again.
    (A named tuple: a frozen dataclass costs a warm ``tokens`` a millisecond to create.)"""

    #: each id asked for, as given, with the session it names and the run in it it names
    #: (a subagent's own id: its session is totalled; ``None``: the session's id)
    asked: tuple[tuple[str, SessionRef, str | None], ...] = ()
    #: the sessions asked for by id that ``providers`` leaves out (one a time it was asked for)
    by_provider: tuple[SessionRef, ...] = ()
    #: the sessions ``cwd`` leaves out, each with its working directory (``None``: it recorded none)
    by_cwd: tuple[tuple[SessionRef, str | None], ...] = ()
    #: how many sessions the report covers, once every option chose
    counted: int = 0
    #: those sessions (an empty window's hint reads when they were last active; a patched
    #: grouped report's, ``scan.grouppatch``, and a window's, ``scan.windowrefs``, as discovery
    #: gives them: 15,000 are not made for ``--json``)
    covered: Sequence[SessionRef] = ()

    def providers(self) -> set[str]:
        """The providers of the sessions covered (a table's REASONING column asks), no ref made
        for a provider's stored ones."""
        from agentscan.scan.mergedrefs import MergedRefs

        covered = self.covered
        return covered.providers() if isinstance(covered, MergedRefs) else {ref.provider for ref in covered}

    def by_id(self, ids: Iterable[str]) -> dict[str, SessionRef]:
        """The sessions covered among ``ids``, by id (the table's few that recorded nothing), no
        ref made of the others' stored rows."""
        from agentscan.scan.mergedrefs import MergedRefs

        wanted = set(ids)
        covered = self.covered
        found = covered.find(wanted) if isinstance(covered, MergedRefs) else None
        return found if found is not None else {ref.id: ref for ref in covered if ref.id in wanted}


@dataclass(frozen=True, slots=True)
class TokenReport:
    """What ``token_report`` answers, ``agentscan tokens`` as values: ``rows`` (each a
    ``TokenRow``, one group ``by`` chose), their ``total`` and ``cost`` (an exact ``Decimal``,
    ``None`` when a model has no price: ``cost_priced`` then), and ``to_json()``."""

    by: GroupBy
    rows: tuple[TokenRow, ...]
    total: TokenUsage | None
    #: ``--by session``: the session behind each row (its title, cwd and date are one ``Scanner.row`` away)
    sessions: dict[str, SessionRef] = field(default_factory=dict, compare=False)
    cost: Decimal | None = None
    #: the price data the costs came from (``PriceData.to_json``)
    prices: dict[str, Any] | None = None
    #: the grand total of the calls that have a price: a lower bound when ``cost`` is ``None``
    cost_priced: Decimal | None = None
    unpriced_models: tuple[str, ...] = ()
    #: row key -> the row's JSON as ``to_json(fragments=True)`` prints it, for rows taken
    #: back whole (``scan.rowmemo``): 15,000 rows need not be made into JSON again
    fragments: dict[str, bytes] = field(default_factory=dict, compare=False)
    #: the sessions no row counts because they recorded no usage at all (a grouping has no
    #: key for them; a window none of their calls): the text table says so.  ``--by session``
    #: without a window shows each of them as a row ("not recorded"), so none here then.
    unrecorded: tuple[str, ...] = ()
    #: which sessions the report covers and which its options left out (not in its JSON)
    selection: ReportCoverage = field(default_factory=ReportCoverage, compare=False)
    #: the sessions no row counts because their transcript could not be read at all (a
    #: ``cannot read: …`` warning names it; ``scan.unreadrows``): their usage is not known
    unreadable: tuple[str, ...] = ()
    #: for each of ``unreadable``, in its order: ``(id, path, why)``, the file that could not be
    #: read (its transcript, or the database its usage is kept in) and why, for ``--json``,
    #: where a script cannot read the table's note (``scan.unreadrows.unread_cause``)
    unread_causes: tuple[tuple[str, str, str], ...] = ()
    #: in a window (``--since``, ``--until``), by session: when each session's last call in it
    #: was (epoch seconds), the table's DATE (its last update may lie past the window)
    last_calls: dict[str, float] = field(default_factory=dict, compare=False)
    #: under ``--cwd``: a multi-root Cursor chat's cwd, the folder ``--cwd`` matched rather
    #: than its workspace's first (``scan.tokencwd.within``), as the table's CWD shows it
    matched_cwds: dict[str, str] = field(default_factory=dict, compare=False)

    def to_json(self, *, fragments: bool = False) -> dict[str, Any]:
        """The report's JSON; ``fragments``: rows taken back whole are ``orjson.Fragment``s,
        which ``orjson.dumps(…, option=OPT_INDENT_2)`` prints as ``to_json()`` would be."""
        if fragments and self.fragments:
            import orjson

            known = self.fragments
            rows: list[Any] = [orjson.Fragment(known[row.key]) if row.key in known else row.to_json() for row in self.rows]
        else:
            rows = [row.to_json() for row in self.rows]
        return {
            "by": self.by,
            "rows": rows,
            "total": usage_json(self.total),
            "cost_usd": usd(self.cost),
            "cost_usd_priced": usd(self.cost_priced),
            "unpriced_models": list(self.unpriced_models),
            # Sessions in no row because they could not be read: not "recorded no usage" (a
            # null row) nor nothing spent, which the table says in a note a script never saw.
            "unreadable": [{"id": session_id, "path": path, "reason": why}
                           for session_id, path, why in self.unread_causes],
            "prices": self.prices,
        }


#: the key of ``first_rows``' line of the others' sums: one word, as ``awk`` reads a line's
#: fields (a pipe's ``tokens`` table keys its line so: ``cli.tokens_sessions``)
OTHERS = "others"

#: the fewest rows ``first_rows`` sums in one: one row alone is its own sum, and its line
#: takes the room a line of the others' sums would
FEWEST_SUMMED = 2


class FirstRows(NamedTuple):
    """A report's rows cut to their first ones (``first_rows``): ``rows``, those kept, in their
    order; ``rest``, one row summing the others (``None``: none are summed); ``summed``, the
    rows it sums, in their order."""

    rows: tuple[TokenRow, ...]
    rest: TokenRow | None
    summed: tuple[TokenRow, ...]


def spent(row: TokenRow) -> bool:
    """Whether ``row`` spent tokens: it recorded usage, and not of 0 tokens (a row that did not
    adds nothing to a sum, and ``first_rows`` neither counts it nor sums it)."""
    return row.tokens is not None and row.tokens.total != 0


def first_rows(rows: Sequence[TokenRow], shown: int, key: str = OTHERS) -> FirstRows:
    """``rows`` (a report's, in the order they are to be read) cut to the first ``shown`` that
    spent tokens (``spent``), the others summed in one row keyed ``key`` (``summed_row``), as
    ``agentscan tokens`` shows the newest 25 sessions and one line for the rest.  Rows that
    spent nothing are kept where they are, counted in no ``shown``.  Nothing is summed unless
    ``FEWEST_SUMMED`` rows or more would be: one left over is kept as it is.  The kept rows and
    the sum add up to what ``rows`` add up to (a report's total is still every row's)."""
    lined = [row for row in rows if spent(row)]
    if len(lined) < shown + FEWEST_SUMMED:
        return FirstRows(tuple(rows), None, ())
    rest = tuple(lined[shown:])
    gone = {row.key for row in rest}
    return FirstRows(tuple(row for row in rows if row.key not in gone), summed_row(rest, key), rest)


def summed_row(rows: Iterable[TokenRow], key: str) -> TokenRow:
    """One row of ``rows``' sums, keyed ``key``: their tokens, and their cost as a group of all
    their calls has one (``pricing.spend.combined``: unknown when one of theirs is, then its
    lower bound, the sum of what is priced, and the models without a price); their parts
    (own, subagents') are not kept apart; the runs recovered from progress records are kept (the
    sum of a lower bound is one: its line's and TOTAL's ``≥``)."""
    from agentscan.model import sum_usage
    from agentscan.pricing.spend import Priced, combined

    rows = list(rows)
    whole = combined(Priced(row.cost, row.cost if row.cost is not None else row.cost_priced, row.unpriced_models,
                            True) for row in rows)
    return TokenRow(key, sum_usage(row.tokens for row in rows), None, cost=whole.cost, cost_priced=whole.priced,
                    unpriced_models=whole.unpriced, recovered=tuple(pair for row in rows for pair in row.recovered),
                    providers=tuple(sorted({name for row in rows for name in row.providers})))
