"""The bodies of ``list``, ``show`` and ``tokens``: call the library, render.

Typer-free: the Typer commands (``cli.commands``) and ``cli.fastpath`` both
call these with a ``State`` and the parsed options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from agentscan.cli.optionvalues import parse_window, provider_names, reject_blank
from agentscan.cli.state import State, end_progress, finish, start_prices_before_the_index

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.detailmodel import SessionDetail
    from agentscan.scan.groupby import GroupBy
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokensort import SortKey


def run_list(
    state: State,
    *,
    limit: int | List[int] | None = None,
    show_all: bool = False,
    provider: Optional[List[str]] = None,
    since: Optional[str] = None,
    until: Optional[str] = None,
    grep: Optional[str] = None,
    cwd: Optional[str] = None,
    running: bool = False,
    pid: Optional[int] = None,
    tz: Optional[str] = None,
    redact: bool = False,
    as_json: bool = False,
    archived: bool = False,
    no_archived: bool = False,
    reverse: bool = False,
) -> None:
    from agentscan.bounds import DEFAULT_LIMIT
    from agentscan.cli.list_answer import print_page
    from agentscan.errors import UsageProblem

    if archived and no_archived:
        raise UsageProblem("--archived and --no-archived cannot be used together")
    limit = limit_and_all(limit, show_all)
    if pid is not None and pid < 1:
        raise UsageProblem(f"--pid must be a process id of 1 or more, not {pid}")
    reject_blank(tz=tz)
    provider = provider_names(provider)
    zone_info = given_zone(tz)
    note_local_zone(zone_info is None and (not as_json or since is not None or until is not None))
    scanner = state.scanner(provider, memo=True)
    print_page(state, scanner, limit=None if show_all else (limit or DEFAULT_LIMIT), providers=list(provider or ()),
               since=since, until=until, grep=grep, cwd=cwd, running=running, pid=pid, redact=redact, as_json=as_json,
               zone=zone_info, archived=True if archived else False if no_archived else None, reverse=reverse)
    finish(state, scanner, as_json=as_json)


def run_show(
    state: State,
    *,
    session_id: str,
    full: bool = False,
    no_pager: bool = False,
    tz: Optional[str] = None,
    redact: bool = False,
    as_json: bool = False,
) -> None:
    from agentscan.cli import render
    from agentscan.cli.copyhint import short_ids_of
    from agentscan.cli.show_text import print_detail
    from agentscan.pricing import PriceBook
    from agentscan.scan import priceahead
    from agentscan.scan.sessionids import known_ids_of

    reject_blank(tz=tz)
    zone_info = given_zone(tz)
    note_local_zone(zone_info is None and not as_json)
    scanner = state.scanner(memo=True)
    priceahead.start(scanner)
    book = PriceBook(scanner.ctx, scanner.cache)  # the library's show prices with it; its version is printed
    detail = with_hook_events(scanner.show(session_id, prices=book), scanner)
    if redact:
        from agentscan.export.redact import redact_detail

        detail = redact_detail(detail)
    end_progress()
    if as_json:
        body = {"session": detail.to_json(), "prices": book.data.to_json()}
        render.emit_json(render.envelope("show", body, scanner.warnings))
    elif full:
        from agentscan.cli.show_full import full_lines, page

        term = render.terminal()
        page(full_lines(detail, term, state.home_options(), zone=zone_info, known=known_ids_of(scanner),
                        short_id=short_ids_of(scanner)), term,
             use_pager=not no_pager)
    else:
        # The hint's command must open this session again: in this home, or the demo's.
        print_detail(detail, render.terminal(), home=state.home_options(), zone=zone_info, known=known_ids_of(scanner),
                     short_id=short_ids_of(scanner))
    finish(state, scanner, as_json=as_json)


def given_zone(tz: Optional[str]) -> Optional[tzinfo]:
    """``--tz`` as ``timeutil.zone`` takes it, with a note on stderr for a fixed zone typed
    for a place whose clocks change (``EST`` for New York: ``zoneguess.fixed_zone_note``)."""
    from agentscan.timeutil import zone

    zone_info = zone(tz)
    if tz is None:
        return zone_info  # (no ``--tz``: nothing to note, and ``zoneguess`` left unimported)
    from agentscan.zoneguess import fixed_zone_note

    said = fixed_zone_note(tz)
    if said is not None:
        from agentscan.cli import render

        render.note(said)
    return zone_info


def note_local_zone(used: bool) -> None:
    """A ``TZ`` the C library cannot read (``Europe/Berln``) makes local time UTC without a
    word: said once, on stderr, by a command that prints or reads local times (``used``:
    no ``--tz``, or ``--tz local``), as a relative ``AGENTSCAN_DATA_DIR`` is
    (``localzone.problem``: nothing is looked at while ``TZ`` is unset)."""
    import os

    if not used or "TZ" not in os.environ:
        return
    from agentscan import localzone

    problem = localzone.problem()
    if problem is not None:
        from agentscan.cli import render

        render.note(f"note: {problem}")


def with_hook_events(detail: SessionDetail, scanner: Scanner) -> SessionDetail:
    """Cross-check with live capture: say when hook events exist for this session."""
    from dataclasses import replace

    from agentscan.hooks.eventcounts import hook_event_counts

    env = scanner.ctx.env
    if scanner.ctx.home_source == "--demo":  # the demo's own store, never the user's
        from agentscan.demo import with_demo_events

        env = with_demo_events(env)
    count = hook_event_counts([detail.row.id], env=env).get(detail.row.id, 0)
    return replace(detail, extra={**detail.extra, "hook_events": count})


def run_tokens(
    state: State,
    *,
    session_ids: Optional[List[str]] = None,
    since: Optional[str] = None,
    until: Optional[str] = None,
    provider: Optional[List[str]] = None,
    by: str | List[str] | None = None,
    cwd: Optional[str] = None,
    tz: Optional[str] = None,
    as_json: bool = False,
    sort: str | List[str] | None = None,
    limit: int | List[int] | None = None,
    show_all: bool = False,
    breakdown: bool = False,
    reverse: bool = False,
) -> None:
    group = one_grouping(by)
    limit = limit_and_all(limit, show_all, by=group)
    reject_blank(since=since, until=until, tz=tz, cwd=cwd)
    provider = provider_names(provider)
    # As ``list --cwd``: relative to here, ``~`` the user's home (the answer is kept under it).
    from agentscan.scan.cwdmatch import asked_directory

    cwd = asked_directory(cwd) if cwd else None
    from agentscan.cli.tokensrules import BREAKDOWN_REFUSED, refused_under

    if breakdown and refused_under("--breakdown", group):
        from agentscan.errors import UsageProblem

        raise UsageProblem(BREAKDOWN_REFUSED)  # (the library's ``tokenmodels.check`` names its own parameters)
    order = one_order(sort)
    zone_info = given_zone(tz)
    note_local_zone(zone_info is None and (not as_json or since is not None or until is not None or group != "session"))
    since_at, until_at = parse_window(since, until, zone_info, session_ids or ())
    start_prices_before_the_index(state, provider)  # (after every check: a refused run forks nothing)
    from agentscan.cli.tokens_answer import print_tokens  # (after: the helper's fork comes first)

    scanner = state.scanner(provider if not session_ids else None, memo=True)
    # Remembered only for every session and no window: ``--since 3d`` means another time on every run.
    print_tokens(scanner, ids=session_ids or (), providers=list(provider or ()), since=since_at, until=until_at,
                 by=group, cwd=cwd, zone=zone_info, as_json=as_json, sort=order, dated=bool(sort) and order == "date",
                 remember=not session_ids and since is None and until is None, limit=limit, show_all=show_all,
                 breakdown=breakdown, reverse=reverse)
    finish(state, scanner, as_json=as_json)


def limit_and_all(limit: int | List[int] | None, show_all: bool, *, by: GroupBy = "session") -> int | None:
    """``--limit N`` and ``--all`` as ``list`` and ``tokens`` both check them, by the rule the
    hint of a ``tokens`` line asks too (``tokensrules.limit_refused``): ``--limit`` given once
    (``list -n 5 $ARGS`` where ``$ARGS`` holds ``-n 7`` silently took 7, click's way), one or
    the other, N of 1 or more, and ``tokens``' by session only (``by``).  The limit given, if
    one was."""
    from agentscan.cli.tokensrules import limit_refused

    numbers = [] if limit is None else [limit] if isinstance(limit, int) else list(dict.fromkeys(limit))
    refusal = limit_refused(numbers, show_all, by=by)
    if refusal is None:
        return numbers[0] if numbers else None
    from agentscan.errors import UsageProblem
    from agentscan.scan.groupby import GROUPING

    tail = {"one number": f", not {len(numbers)} ({', '.join(map(str, numbers))}): give it once (--all for every session)",
            "range": f", not {numbers[0]}" if numbers else "",
            "grouping": f"; --by {by} shows every {GROUPING[by].noun}'s row (--since and --until narrow it)"}.get(
                refusal.rule, "")
    raise UsageProblem(refusal.words + tail)


def one_grouping(by: str | List[str] | None) -> GroupBy:
    """``tokens``' ``--by``, given once (any case: ``--by Session`` is by session); none:
    by session.  Given twice with different keys it is a usage error, not the last one
    taken in silence (click's way with a repeated option): ``tokens --by cwd --by model``
    reads as a table crossing both, which a report of one grouping is not."""
    from agentscan.errors import UsageProblem
    from agentscan.scan.groupby import parse_group

    given = [by] if isinstance(by, str) else list(by or ["session"])
    # ``--by day,model`` (ccusage's ``--breakdown`` in a list's spelling, as ``-p`` takes one)
    # asks for two groupings as ``--by day --by model`` does: said so, not ``unknown --by``,
    # and answered with ``--by day --breakdown``, which gives each model in each day.
    given = [part for value in given for part in _listed(value)]
    groups = list(dict.fromkeys(parse_group(value, "--by") for value in given))
    others = [group for group in groups if group != "model"]
    if len(groups) == 2 and len(others) == 1:
        from agentscan.invocation import running_command

        raise UsageProblem(f"--by takes one grouping, not 2 ({', '.join(groups)}): each model in each "
                           f"{_ROW_NOUN.get(others[0], others[0])} is `{running_command(f'tokens --by {others[0]} --breakdown')}`")
    if len(groups) > 1:
        raise UsageProblem(f"--by takes one grouping, not {len(groups)} ({', '.join(groups)}): tokens groups by one "
                           f"key at a time; to cross them, {crossed_by(groups)}")
    return groups[0]


def _listed(value: str) -> List[str]:
    """``day,model`` as its two names; a value with an empty name (``day,``) whole, to be
    refused as one (``unknown --by 'day,'``), never read as ``day`` alone."""
    parts = value.split(",")
    return parts if len(parts) > 1 and all(part.strip() for part in parts) else [value]


#: what one row of a grouping is, where ``--breakdown`` is offered for it crossed with models
_ROW_NOUN = {"cwd": "directory", "agent": "kind of agent"}


#: the groupings an export's usage days (``export --days``: a record per session, day and
#: model, ``tokens``' zone with ``--tz local``) give crossed, without a join
_IN_USAGE_DAYS = frozenset({"session", "day", "week", "month", "model", "provider"})


def crossed_by(groups: Sequence[str]) -> str:
    """Where groupings come crossed (models and one other are ``--breakdown``'s: ``one_grouping``):
    ``export --days`` in this zone for days, sessions and providers (SQLite's ``token_days``
    are UTC days, which are not ``tokens --by day``'s local ones), else the SQLite index and a join."""
    from agentscan.invocation import running_command

    if set(groups) <= _IN_USAGE_DAYS:
        return (f"`{running_command('export -f jsonl --days --tz local -o -')}` writes a record per session, day and "
                "model, to group by both (docs/ccusage.md)")
    return f"`{running_command('export -f sqlite')}` and GROUP BY both (docs/cron.md)"


def one_order(sort: str | List[str] | None) -> SortKey:
    """``tokens``' ``--sort``, given once (any case); none: ``date``, the report's own order.
    Given twice with different keys it is a usage error, as ``--by`` is (``one_grouping``):
    ``--sort cost --sort tokens`` reads as a sort by both, which it is not."""
    if not sort:
        return "date"  # a warm ``tokens`` imports nothing more than it did before --sort
    from agentscan.errors import UsageProblem
    from agentscan.scan.tokensort import parse_sort

    given = [sort] if isinstance(sort, str) else list(sort)
    keys = list(dict.fromkeys(parse_sort(value, "--sort") for value in given))
    if len(keys) > 1:
        raise UsageProblem(f"--sort takes one key, not {len(keys)} ({', '.join(keys)}): tokens sorts by one key "
                           "at a time (rows that tie keep the default order, --sort date's)")
    return keys[0]


def both_on_stdout(what: str, given: str | None) -> str:
    """The usage error for ``--json`` beside an output that is stdout too, one wording for
    ``export`` and ``otlp`` (``what``: ``export``, ``spans``), the output named as typed
    (``given``; ``None``: export's default, stdout): ``-o /dev/stdout`` is stdout as ``-`` is."""
    which = "no --output" if given is None else "--output -" if given == "-" else f"--output {given} is stdout"
    return f"--json and the {what} would both write to stdout ({which}); give --output PATH"
