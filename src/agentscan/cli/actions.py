"""The bodies of ``list``, ``show`` and ``tokens``: call the library, render.

Typer-free: the Typer commands (``cli.commands``) and ``cli.fastpath`` both
call these with a ``State`` and the parsed options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

from agentscan.cli.state import State, end_progress, finish

if TYPE_CHECKING:
    from agentscan.detailmodel import SessionDetail
    from agentscan.scan.scanner import Scanner


def run_list(
    state: State,
    *,
    limit: Optional[int] = None,
    show_all: bool = False,
    provider: Optional[List[str]] = None,
    since: Optional[str] = None,
    grep: Optional[str] = None,
    cwd: Optional[str] = None,
    running: bool = False,
    pid: Optional[int] = None,
    redact: bool = False,
    as_json: bool = False,
) -> None:
    import os

    from agentscan.scan.listing import ListFilter
    from agentscan.cli import render
    from agentscan.cli.list_text import more_hint, print_list
    from agentscan.errors import UsageProblem
    from agentscan.pricing import PriceBook
    from agentscan.scan.costs import with_costs
    from agentscan.scan import priceahead
    from agentscan.scan.listing import DEFAULT_LIMIT
    from agentscan.timeutil import parse_when

    if show_all and limit is not None:
        raise UsageProblem("give --limit N or --all, not both")
    scanner = state.scanner(provider, memo=True)
    filters = ListFilter(
        providers=tuple(provider or ()),
        since=parse_when(since) if since else None,
        grep=grep,
        # --cwd . and --cwd ../api mean what they mean in a shell.
        cwd=os.path.abspath(os.path.expanduser(cwd)) if cwd else None,
        running=running,
        pid=pid,
    )
    priceahead.start(scanner)  # a first run: genai-prices imported by a helper while sessions are read
    page = scanner.list_page(limit=None if show_all else (limit or DEFAULT_LIMIT), filters=filters)
    book = PriceBook(scanner.ctx, scanner.cache)
    rows = with_costs(scanner, page.rows, scanner.refs_by_id(row.id for row in page.rows), book)
    if redact:
        from agentscan.export.redact import redact_row

        rows = [redact_row(row) for row in rows]
    end_progress()
    if as_json:
        body = {"sessions": [r.to_json() for r in rows], "prices": book.data.to_json()}
        render.emit_json(render.envelope("list", body, scanner.warnings))
    elif rows:
        term = render.terminal()
        print_list(rows, scanner.short_ids([row.id for row in rows]) if term.tty else {}, term)
        hint = more_hint(page, filters)
        if hint:
            render.note(hint, tty_only=True)
    else:
        render.note(_why_empty(state, page, filters))
    finish(state, scanner, as_json=as_json)




def _why_empty(state, page, filters) -> str:  # noqa: ANN001 - CLI-private
    from agentscan.scan import liveness as running
    from agentscan.cli.list_text import explain_empty
    from agentscan.cli.term import home_short

    others = 0
    if page.discovered == 0 and filters.providers:
        with state.scanner() as everything:  # the other providers: is anything there at all?
            others = sum(1 for ref in everything.refs() if ref.provider not in filters.providers)
    from agentscan.cli.render import short_time

    since_text = short_time(filters.since) if filters.since is not None else None
    return explain_empty(page, filters, others=others, cwd_text=home_short(filters.cwd) if filters.cwd else None,
                         since_text=since_text, running_supported=running.supported())


def run_show(
    state: State,
    *,
    session_id: str,
    full: bool = False,
    no_pager: bool = False,
    redact: bool = False,
    as_json: bool = False,
) -> None:
    from dataclasses import replace

    from agentscan.cli import render
    from agentscan.cli.show_text import print_detail
    from agentscan.pricing import PriceBook
    from agentscan.scan import priceahead
    from agentscan.scan.costs import with_costs

    scanner = state.scanner(memo=True)
    priceahead.start(scanner)
    detail = with_hook_events(scanner.show(session_id), scanner)
    book = PriceBook(scanner.ctx, scanner.cache)
    (row,) = with_costs(scanner, [detail.row], [scanner.resolve(detail.row.id)], book)
    detail = replace(detail, row=row)
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
        page(full_lines(detail, term), term, use_pager=not no_pager)
    else:
        print_detail(detail, render.terminal())
    finish(state, scanner, as_json=as_json)




def with_hook_events(detail: SessionDetail, scanner: Scanner) -> SessionDetail:
    """Cross-check with live capture: say when hook events exist for this session."""
    from dataclasses import replace

    from agentscan.hooks.crosscheck import hook_event_counts

    count = hook_event_counts([detail.row.id], env=scanner.ctx.env).get(detail.row.id, 0)
    return replace(detail, extra={**detail.extra, "hook_events": count})


def run_tokens(
    state: State,
    *,
    session_ids: Optional[List[str]] = None,
    since: Optional[str] = None,
    until: Optional[str] = None,
    provider: Optional[List[str]] = None,
    by: str = "session",
    tz: Optional[str] = None,
    as_json: bool = False,
) -> None:
    from agentscan.cli.tokens_answer import print_tokens
    from agentscan.scan.groupby import parse_group
    from agentscan.timeutil import parse_when, zone

    zone_info = zone(tz)
    scanner = state.scanner(provider if not session_ids else None, memo=True)
    since_at = parse_when(since, tz=zone_info) if since else None
    until_at = parse_when(until, tz=zone_info, end_of_day=True) if until else None
    group = parse_group(by)
    # Remembered only for every session and no window: ``--since 3d`` means another time on every run.
    print_tokens(scanner, ids=session_ids or (), providers=list(provider or ()), since=since_at, until=until_at,
                 by=group, zone=zone_info, as_json=as_json,
                 remember=not session_ids and since is None and until is None)
    finish(state, scanner, as_json=as_json)
