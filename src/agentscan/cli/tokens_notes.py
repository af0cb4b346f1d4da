"""What ``tokens``' text table says under its lines: the rows it folds, the sessions it
names, the models with no price, and the columns left out to fit.

On a terminal the lines naming folded rows follow the table on stdout; in a pipe they go
to stderr, as every other note does, so that ``sort`` and ``awk`` read the table's rows
alone (``list``'s hints are on stderr alike)."""

from __future__ import annotations

from datetime import date, tzinfo
from typing import TYPE_CHECKING, Collection, NamedTuple, Sequence

from agentscan.cli import render
from agentscan.cli import term as terminal
from agentscan.cli.term import Terminal, clean_path, wrap_columns
from agentscan.cli.tokens_columns import NUMBER_COLUMNS, columns_of, marked_zero
from agentscan.cli.tokens_empty import NAMED, dated_option, week_up_to
from agentscan.cli.tokens_folds import Folded
from agentscan.toolkit.words import listed

if TYPE_CHECKING:
    from decimal import Decimal

    from agentscan.cli.tokens_sessions import Cut
    from agentscan.model import TokenUsage
    from agentscan.scan.tokenreport import TokenReport, TokenRow
    from agentscan.scan.tokensort import SortKey


def shows_parts(term: Terminal) -> bool:
    """Whether the table by session shows its rows' parts (own, each subagent's) on lines
    under them: on a terminal.  A pipe gets a line a row, which ``awk`` sums right (the parts
    counted a row twice); ``--json`` has the parts.  (Grouped, a row is one line anywhere,
    its subagents' part a column: SUBAGENTS.)"""
    return term.tty


def no_price(report: TokenReport, *, with_parts: bool = True) -> Unpriced:
    """The models with no price behind a cost the table shows, and how those costs show:
    ``-`` (no call had a price) or ``≥`` (a lower bound: some did).  Told from the rows, not
    their cells: COST may be left out to fit, and a ``-`` of a group that spent nothing
    (Claude's zero-token notices) is no missing price.  ``with_parts``: the table shows the
    rows' parts' lines (by session, on a terminal: ``tokens_rows.row_lines``; a grouped
    table has none: its SUBAGENTS column shows tokens, no cost)."""
    models: set[str] = set()
    forms: set[str] = set()
    groups: list[tuple[TokenUsage | None, Decimal | None, Decimal | None, Sequence[str], TokenRow | None]]
    groups = [(row.tokens, row.cost, row.cost_priced, row.unpriced_models, row) for row in report.rows]
    groups.append((report.total, report.cost, report.cost_priced, report.unpriced_models, None))
    for usage, cost, priced, names, row in groups:
        if cost is not None or not names or not usage or not usage.total:
            continue  # known, or nothing spent (a row of 0 tokens is folded: ``row_lines``)
        models.update(names)
        forms.add(render.human_usd(None, priced)[:1])
        if with_parts and report.by == "session" and row is not None and row.subagents:
            # Its parts' lines (``row_lines``: its own, a line per subagent) show an unknown
            # cost as their group does: ``-`` when none of the part's calls has a price, else
            # a bound (``≥``).
            parts: list[tuple[TokenUsage | None, Decimal | None, Decimal | None]] = [
                (row.own, row.own_cost, row.own_cost_priced)]
            costs = row.subagent_costs or (None,) * len(row.subagents)
            bounds = row.subagent_costs_priced or (None,) * len(row.subagents)
            parts.extend(zip((part for _, part in row.subagents), costs, bounds))
            for part, part_cost, bound in parts:
                if part_cost is None and part and part.total:
                    forms.add(render.human_usd(None, bound)[:1])
        for model in row.models or () if row is not None else ():
            # ``--breakdown``'s lines (``tokens_breakdown``): an unpriced model's ``-`` is said too.
            if model.cost is None and model.tokens and model.tokens.total:
                forms.add(render.human_usd(None, model.cost_priced)[:1])
    return Unpriced(sorted(models), frozenset(forms))


#: the columns ``TOTAL`` is the sum of, in their order: the number columns but REASONING (a part
#: of OUTPUT) and TOTAL itself
TOTAL_PARTS = tuple(header for header, _, _ in NUMBER_COLUMNS if header not in ("REASONING", "TOTAL"))


#: under a table that shows a REASONING figure: the columns before TOTAL add up to more
#: than it when REASONING is added too (``show`` says ``output N (reasoning M)``)
REASONING_NOTE = "REASONING is part of OUTPUT, counted once in TOTAL"
#: under a grouped table that shows a SUBAGENTS figure: a reader new to it (a ccusage user
#: has never seen one) added it to TOTAL, or read it as spend besides
SUBAGENTS_NOTE = "SUBAGENTS is the subagents' part of TOTAL, counted once in it"
#: both at once, in one line
BOTH_PARTS_NOTE = "REASONING is part of OUTPUT and SUBAGENTS part of TOTAL, each counted once"
#: under a table a key of which says how many runs make it up: what that is (``haiku-4.5 (1 run)``
#: was read as a tag of the model)
RUNS_NOTE = "(N runs) after a key: a row of subagents' calls alone, made in N runs"
#: in ``Drawn.short`` beside its columns: a line under a row (a run's ``↳``, a ``--breakdown`` model's) has a ``≥``
UNDER = "on a line under a row"


def short_note(marked: Sequence[str]) -> str:
    """The note under a table a row of which is a lower bound, naming where its ``≥`` was drawn
    (``marked``: its columns, and ``UNDER``): "TOTAL ≥N" alone left a reader to guess at ``≥109,659``
    under SUBAGENTS (read as a typo), and a fixed list named a SUBAGENTS a table by session has not."""
    columns = [place for place in marked if place != UNDER]
    under = f" (and {UNDER})" if UNDER in marked else ""
    return (f"≥ in {listed(columns)}{under}: at least the figure: a subagent's transcript is gone and its calls "
            "were found in its parent's progress records, which hold no copy of its final response")
#: under a table whose REASONING is a lower bound somewhere (``≥``): what it leaves out
PARTIAL_REASONING_NOTE = ("REASONING ≥N: at least N, the other agents' alone: Claude Code and Cursor "
                          "record no reasoning apart (theirs is inside OUTPUT)")


def parts_note(total: TokenUsage | None, runs: TokenUsage | None, hidden: Collection[str]) -> str | None:
    """The note on the figures a table shows that are parts of others, counted once
    (``REASONING``, a grouped table's ``SUBAGENTS``), or ``None`` when it shows neither."""
    reasoning = reasoning_counted_once(total, hidden)
    subagents = runs is not None and runs.total > 0 and "SUBAGENTS" not in hidden
    if reasoning and subagents:
        return BOTH_PARTS_NOTE
    return REASONING_NOTE if reasoning else SUBAGENTS_NOTE if subagents else None


def reasoning_counted_once(total: TokenUsage | None, hidden: Collection[str]) -> bool:
    """Whether a table whose ``total`` is that says REASONING is a part of OUTPUT: it shows
    the column (not ``hidden`` to fit) and a row's reasoning is not 0.  Told from the total
    (a row's reasoning is a part of it, never below 0), which a whole table and a patched
    one (``cli.tablepatch``) know alike, so both say it or neither does."""
    return total is not None and total.reasoning > 0 and "REASONING" not in hidden


#: a table by session longer than this many sessions says how to see fewer (``print_notes``)
LONG_TABLE = 100


class Unpriced(NamedTuple):
    """The models with no price behind a cost the table shows, and the forms those costs
    show in (``-``, ``≥``): ``no_price``."""

    models: Sequence[str] = ()
    forms: Collection[str] = ()


class Drawn(NamedTuple):
    """What the table printed above the notes shows, for the notes on its lines: the columns
    it left out to fit (``hidden``), whether its numbers were rounded (``compact``), its
    ``total`` (``reasoning_counted_once``), whether by session a row shown has delegated calls
    (``parts``: their lines are a terminal's, ``shows_parts``), and, by session, how many
    ``sessions`` it shows, their ``dates`` and the dates' ``zone`` (``--tz``: ``fewer_sessions``).
    The default: no table (every row folded, or none)."""

    hidden: Sequence[str] = ()
    compact: bool = False
    total: TokenUsage | None = None
    parts: bool = False
    sessions: int = 0
    dates: Sequence[str] = ()
    zone: tzinfo | None = None
    #: the rows' order (``--sort``: ``scan.tokensort``), which the long table's hint names
    sort: SortKey = "date"
    #: the rows in ``sort``'s opposite order (``--reverse``)
    reverse: bool = False
    #: by session, the sessions left out of it, summed in its last line (``--limit``)
    cut: Cut | None = None
    #: grouped, its subagents' part of ``total`` (its SUBAGENTS column's total): ``parts_note``
    runs: TokenUsage | None = None
    #: the parts nothing in every row, which went first to fit (``tokens_columns.zero_first``)
    zero: Collection[str] = ()
    #: its REASONING is a lower bound (``≥``): its agents mix those that record it apart and
    #: those that never do (``tokens_columns.reasoning_partial``)
    partial: bool = False
    #: where it drew a lower bound's ``≥`` (a subagent recovered from progress records): the
    #: columns, and ``UNDER`` (``short_note``)
    short: Sequence[str] = ()
    #: grouped, a row's key shows how many runs make it up (``tokens_runs.counted_row``)
    counted_runs: bool = False


def print_notes(by: str, term: Terminal, folded: Folded, unpriced: Unpriced = Unpriced(),
                drawn: Drawn = Drawn()) -> None:
    """What the lines of a table grouped ``by`` do not say: the ``folded`` rows' keys, on
    stdout on a terminal and on stderr in a pipe; on stderr what the ``unpriced`` models'
    costs' forms, ``-`` and ``≥``, mean (the warnings name the models), that REASONING is a part of OUTPUT when the
    ``drawn`` table shows some (its total's, ``reasoning_counted_once``), the columns it
    left out or numbers it rounded to fit, in a pipe that the rows' parts were left out, and,
    under a table of more than ``LONG_TABLE`` sessions on a terminal, how to see fewer (their
    dates: ``fewer_sessions``)."""
    folded_keys, empty, unrecorded, unreadable, cut = folded
    models, unknown = unpriced
    hidden, compact = drawn.hidden, drawn.compact
    if folded_keys:
        from agentscan.scan.groupby import GROUPING

        what = GROUPING[by].noun if by in GROUPING else "period"
        _print_named(f"{render.plural(len(folded_keys), what)} with 0 tokens", folded_keys, term)
    if empty:
        _print_named(f"{render.plural(len(empty), 'session')} that recorded nothing", empty, term)
    if unrecorded:
        # No row shows them (a grouping has no key for them, and by session their rows of
        # "not recorded" buried the others: current Cursor builds record no usage), and a
        # user comparing a table with ``list`` counts them missing.
        _print_named(f"{render.plural(len(unrecorded), 'session')} that recorded no usage, not counted",
                     unrecorded, term)
    if unreadable:
        # Their usage is not known (a permission, an I/O error: the warnings say which file
        # and why), which is not "recorded nothing" nor "recorded no usage".
        _print_named(f"{render.plural(len(unreadable), 'session')} that could not be read, not counted",
                     unreadable, term)
    if cut:
        # Read, but only up to the damage, which came before any usage: its usage is not known
        # (the warning names the file). "Could not be read" it was not: ``show`` opens it.
        its = "its" if len(cut) == 1 else "their"
        _print_named(f"{render.plural(len(cut), 'session')} read only up to {its} damage, before any usage, "
                     "not counted", cut, term)
    if models and unknown and "COST" not in hidden:
        # What the table's ``-`` and ``≥$…`` mean, only those it shows (a lower bound told of
        # where none is shown sent a reader looking for one).  The models are named once, in
        # the no-price warning under it, which says why and what may help (``prices --update``);
        # listed here too, a terminal said each twice, and the warning no longer says the
        # legend again.  COST left out to fit: nothing to explain (its note names it).
        render.note(cost_forms_note(unknown), tty_only=True)
    parts = parts_note(drawn.total, drawn.runs, hidden) if term.tty else None
    if parts:
        # A note on the table's columns, for the one who reads them: a pipe's reader (stdout
        # to ``awk``, stderr still a terminal) was told of a table they never saw.
        render.note(parts, tty_only=True)
    if drawn.counted_runs and term.tty:
        # Beside SUBAGENTS' note, or in its place when the column went to fit (60 columns).
        render.note(RUNS_NOTE, tty_only=True)
    if drawn.partial and term.tty and reasoning_counted_once(drawn.total, hidden):
        render.note(PARTIAL_REASONING_NOTE, tty_only=True)
    if drawn.short and term.tty:
        # The row's own note (``tokens_rows.recovered_note``) is cut with a narrow TITLE, or left out.
        render.note(short_note(drawn.short), tty_only=True)
    if hidden or compact:
        from agentscan.cli.table import left_out_text

        left_out = left_out_text(hidden, marked_zero(columns_of(by), drawn.zero), term.width) if hidden else ""
        # (a part that is nothing in every row leaves the parts shown adding up to TOTAL)
        counted = [header for header in TOTAL_PARTS if header in hidden and header not in drawn.zero]
        # The parts shown no longer add up to TOTAL (the demo at 80 columns: 9 + 0 + 220
        # beside 5,429), which a first reader took for a wrong sum.
        # With no part shown (30 columns: ID and TOTAL alone) there is no sum to take for
        # TOTAL's, and the clause was three of a narrow note's eight lines.
        shown = [header for header in TOTAL_PARTS if header not in hidden]
        still = f"; TOTAL still counts {listed(counted)}" if counted and shown and "TOTAL" not in hidden else ""
        rounded = f"numbers rounded to fit {term.width} columns" if compact else ""
        if hidden and compact:
            rounded = "numbers rounded"
        render.note(f"{'; '.join(part for part in (left_out, rounded) if part)}; widen the terminal or use --json"
                    f"{still}", tty_only=True)
    if drawn.parts and not shows_parts(term):
        # By session, a row's own and subagents' lines under it made ``awk '{s += $7}'`` count
        # them twice (a grouped pipe has its SUBAGENTS column: nothing left out to say).
        render.note(PARTS_NOTE, tty_only=True)
    if by == "session" and drawn.cut is not None and term.tty:
        # A table cut (on a terminal, unless --all) says what it shows and how to see the rest.
        render.note(cut_note(drawn.cut, drawn.sort, drawn.zone, reverse=drawn.reverse), tty_only=True)
    elif by == "session" and drawn.sessions > LONG_TABLE and term.tty:
        # A heavy user's first ``agentscan tokens --all`` scrolls thousands of lines past: the
        # newest went by first.  The options that answer "what did this week cost" are named,
        # and the order the rows are in (``--sort cost``: the dearest went by first).
        from agentscan.scan.tokensort import order_words

        render.note(f"{drawn.sessions:,} sessions above, {order_words(drawn.sort, drawn.reverse)}: "
                    f"{fewer_sessions(drawn.dates, drawn.zone)}{BY_DAY}", tty_only=True)


def cut_note(cut: Cut, sort: SortKey, zone: tzinfo | None = None, *, reverse: bool = False) -> str:
    """Under a table by session ``cut`` (``tokens_sessions.Cut``): how many sessions it shows,
    in which order (``sort``, ``reverse``), that the others are summed in one line, and the options that
    show them: every one, the last week's (``fewer_sessions``), a line a day (``BY_DAY``)."""
    from agentscan.scan.tokensort import order_words

    return (f"{cut.shown:,} of {cut.shown + cut.summed:,} sessions, {order_words(sort, reverse)}; "
            f"the other {cut.summed:,} "
            f"summed in one line: --all lists each, {fewer_sessions(cut.dates, zone)}{BY_DAY}")


#: how the notes under a long table by session name ``--by day`` (``cut_note``, ``print_notes``)
BY_DAY = "--by day sums each day"


def cost_forms_note(unknown: Collection[str]) -> str:
    """What the COST forms a table shows (``unknown``: ``-``, ``≥``) mean: the legend alone
    (the no-price warning under it names the model and what may help).  The symbols are
    quoted, each with its meaning after a colon: "COST - is unknown" read as "COST minus",
    and "≥$… what the other calls cost" left "other" to guess."""
    unknown_cost, lower_bound = "'-': unknown", "'≥$N': at least what the priced calls cost"
    said = (unknown_cost if "≥" not in unknown else lower_bound if "-" not in unknown
            else f"{unknown_cost}; {lower_bound}")
    return f"COST {said}"


#: on stderr under a piped table by session whose rows have delegated calls (``tokens_rows.row_lines``)
PARTS_NOTE = "own and subagent lines are left out in a pipe; --json has them"


def fewer_sessions(dates: Sequence[str], zone: tzinfo | None = None) -> str:
    """``--since 2026-11-23 shows the last week's, `` when that keeps fewer of the sessions
    dated ``dates`` (their DATE column: ``2026-11-29``, ``-``) but some: the week up to the
    newest.  A date, not ``7d``: a home idle for a month had no session in the last week,
    and a table printed again from the index (``scan.answers``) says what it said then.
    ``zone``: ``--tz`` (``None``: the local zone), the dates' zone, which the bare date is
    read in too: named, or the command read it in the local zone and kept another day."""
    known = [day for day in dates if day != "-"]
    if not known:
        return ""
    start = week_up_to(date.fromisoformat(max(known)))
    if all(day >= start for day in dates):
        return ""  # the week holds every one: nothing to narrow
    # Plain words: "keeps the newest week's" read as jargon to a user who had not asked to keep any.
    return f"{dated_option('--since', start, zone)} shows the last week's, "


def _print_named(what: str, keys: Sequence[str], term: Terminal) -> None:
    """``(+ what: the first ``NAMED`` keys and N more)`` under the table, wrapped to a terminal's width, a
    key never cut (one cut in the middle opens nothing): the line is where a session that
    recorded no usage is named at all, and a narrower terminal showing more of them than a
    wider one read as a glitch.  In a pipe it is said on stderr (``render.note``, as the
    other notes): ``sort`` and ``awk`` get the table's rows alone."""
    # A key is a model or a session id from the provider's files: an escape sequence in one
    # shown as U+FFFD (a patched table's, ``cli.tablepatch``, come here as they were read).
    from agentscan.toolkit.andmore import first_of

    line = f"(+ {what}: {first_of(keys, NAMED, say=clean_path)})"
    if term.tty or terminal.stderr_is_tty():
        line = "\n".join(wrap_columns(line, term.width, subsequent="  ", break_long_words=False))
    if term.tty:
        print(line)
    else:
        render.note(line, wrap=False)
