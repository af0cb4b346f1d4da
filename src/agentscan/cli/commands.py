"""``list``, ``show`` and ``tokens``: parse options, call the library, render."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

import typer

from agentscan.cli.options import (
    GlobalOptionsCommand,
    JsonOption,
    RedactOption,
    ProviderOption,
    SinceOption,
    end_progress,
    finish,
    handle_errors,
    state_of,
)

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.detailmodel import SessionDetail


def register(app: typer.Typer) -> None:
    app.command("list", cls=GlobalOptionsCommand)(list_command)
    app.command("show", cls=GlobalOptionsCommand)(show_command)
    app.command("tokens", cls=GlobalOptionsCommand)(tokens_command)


@handle_errors
def list_command(
    ctx: typer.Context,
    limit: Optional[int] = typer.Option(None, "--limit", "-n", min=1, help="How many sessions (default 25).", metavar="N"),
    show_all: bool = typer.Option(False, "--all", "-a", help="Every matching session."),
    provider: Optional[List[str]] = ProviderOption,
    since: Optional[str] = SinceOption,
    grep: Optional[str] = typer.Option(None, "--grep", help="Case-insensitive match on title, cwd, model or path.", metavar="TEXT"),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Only sessions whose working directory is PATH or below it (relative to here).", metavar="PATH"),
    running: bool = typer.Option(False, "--running", help="Only sessions a live process holds open (Linux)."),
    pid: Optional[int] = typer.Option(None, "--pid", help="Only sessions held open by process PID (Linux).", metavar="PID"),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """The most recently updated sessions, newest first."""
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
    state = state_of(ctx)
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
        print_list(rows, scanner.short_ids() if term.tty else {}, term)
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


@handle_errors
def show_command(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID", help="Full id, bare native id, or a unique prefix (6+ chars)."),
    full: bool = typer.Option(False, "--full", help="The whole bounded conversation in order, each item with its time."),
    no_pager: bool = typer.Option(False, "--no-pager", help="With --full on a terminal: print instead of using $PAGER / less."),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """One session in detail: prompts, responses, tools, subagents and plan (bounded)."""
    from dataclasses import replace

    from agentscan.cli import render
    from agentscan.cli.show_text import print_detail
    from agentscan.pricing import PriceBook
    from agentscan.scan import priceahead
    from agentscan.scan.costs import with_costs

    state = state_of(ctx)
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


@handle_errors
def tokens_command(
    ctx: typer.Context,
    session_ids: Optional[List[str]] = typer.Argument(None, metavar="[ID]...", help="Sessions to total (default: all)."),
    since: Optional[str] = SinceOption,
    until: Optional[str] = typer.Option(None, "--until", help="Only usage up to WHEN (a date includes that whole day).", metavar="WHEN"),
    provider: Optional[List[str]] = ProviderOption,
    by: str = typer.Option("session", "--by", help="Group by session, day, week, month, model or provider.", metavar="KEY"),
    tz: Optional[str] = typer.Option(None, "--tz", help="IANA time zone for days, weeks, months and bare dates (default: local).", metavar="ZONE"),
    as_json: bool = JsonOption,
) -> None:
    """Token totals, delegated runs included, each subagent's part shown apart."""
    from agentscan.cli.tokens_answer import print_tokens
    from agentscan.scan.groupby import parse_group
    from agentscan.timeutil import parse_when, zone

    state = state_of(ctx)
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
