"""``list``, ``show`` and ``tokens``: parse options, call the library, render."""

from __future__ import annotations

from typing import List, Optional

import typer

from agentscan.cli.options import (
    JsonOption,
    RedactOption,
    ProviderOption,
    SinceOption,
    finish,
    handle_errors,
    state_of,
)


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
    app.command("show")(show_command)
    app.command("tokens")(tokens_command)


@handle_errors
def list_command(
    ctx: typer.Context,
    limit: int = typer.Option(25, "--limit", "-n", help="How many sessions (clamped to 1..25)."),
    provider: Optional[List[str]] = ProviderOption,
    since: Optional[str] = SinceOption,
    grep: Optional[str] = typer.Option(None, "--grep", help="Case-insensitive match on title, cwd, model or path.", metavar="TEXT"),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Only sessions whose working directory is PATH or below it.", metavar="PATH"),
    running: bool = typer.Option(False, "--running", help="Only sessions a live process holds open (Linux)."),
    pid: Optional[int] = typer.Option(None, "--pid", help="Only sessions held open by process PID (Linux).", metavar="PID"),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """The most recently updated sessions, newest first."""
    from agentscan.api import ListFilter
    from agentscan.cli import render
    from agentscan.costs import with_costs
    from agentscan.pricing import PriceBook
    from agentscan.timeutil import parse_when

    state = state_of(ctx)
    scanner = state.scanner(provider)
    filters = ListFilter(
        providers=tuple(provider or ()),
        since=parse_when(since) if since else None,
        grep=grep,
        cwd=cwd,
        running=running,
        pid=pid,
    )
    rows = scanner.list_sessions(limit=limit, filters=filters)
    book = PriceBook(scanner.ctx, scanner.cache)
    rows = with_costs(scanner, rows, scanner.refs(filters.providers), book)
    if redact:
        from agentscan.redact import redact_row

        rows = [redact_row(row) for row in rows]
    if as_json:
        body = {"sessions": [r.to_json() for r in rows], "prices": book.data.to_json()}
        render.emit_json(render.envelope("list", body, scanner.warnings))
    else:
        render.table(
            ["ID", "UPDATED", "TOKENS", "COST", "MODEL", "CWD", "TITLE"],
            [
                [
                    _short_id(row.id) + ("*" if row.running else ""),
                    render.short_time(row.updated_at),
                    render.human_tokens(row.tokens),
                    render.human_usd(row.cost),
                    render.ellipsize(row.model, 24),
                    render.ellipsize(render.home_short(row.cwd), 40),
                    render.ellipsize(row.title, 60),
                ]
                for row in rows
            ],
            right=(2, 3),
        )
        if not rows:
            print("no sessions found (try `agentscan doctor` or `agentscan --demo list`)")
    finish(state, scanner, as_json=as_json)


def _short_id(session_id: str) -> str:
    provider, _, native = session_id.partition(":")
    return f"{provider}:{native[:8]}" if len(native) > 8 else session_id


@handle_errors
def show_command(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID", help="Full id, bare native id, or a unique prefix (6+ chars)."),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """One session in detail: prompts, responses, tools, subagents and plan (bounded)."""
    from dataclasses import replace

    from agentscan.cli import render
    from agentscan.cli.show_text import print_detail
    from agentscan.costs import with_costs
    from agentscan.pricing import PriceBook

    state = state_of(ctx)
    scanner = state.scanner()
    detail = scanner.show(session_id)
    book = PriceBook(scanner.ctx, scanner.cache)
    (row,) = with_costs(scanner, [detail.row], [scanner.resolve(detail.row.id)], book)
    detail = replace(detail, row=row)
    if redact:
        from agentscan.redact import redact_detail

        detail = redact_detail(detail)
    if as_json:
        body = {"session": detail.to_json(), "prices": book.data.to_json()}
        render.emit_json(render.envelope("show", body, scanner.warnings))
    else:
        print_detail(detail)
    finish(state, scanner, as_json=as_json)


@handle_errors
def tokens_command(
    ctx: typer.Context,
    session_ids: Optional[List[str]] = typer.Argument(None, metavar="[ID]...", help="Sessions to total (default: all)."),
    since: Optional[str] = SinceOption,
    until: Optional[str] = typer.Option(None, "--until", help="Only usage before WHEN.", metavar="WHEN"),
    provider: Optional[List[str]] = ProviderOption,
    by: str = typer.Option("session", "--by", help="Group by session, day, model or provider."),
    tz: Optional[str] = typer.Option(None, "--tz", help="IANA time zone for --by day (default: local).", metavar="ZONE"),
    as_json: bool = JsonOption,
) -> None:
    """Token totals, delegated runs included, each subagent's part shown apart."""
    from agentscan.cli import render
    from agentscan.cli.tokens_text import print_report, zone
    from agentscan.timeutil import parse_when
    from agentscan.tokens import token_report

    state = state_of(ctx)
    scanner = state.scanner(provider if not session_ids else None)
    report = token_report(
        scanner,
        ids=session_ids or (),
        providers=provider or (),
        since=parse_when(since) if since else None,
        until=parse_when(until) if until else None,
        by=by,
        tz=zone(tz),
    )
    if as_json:
        render.emit_json(render.envelope("tokens", report.to_json(), scanner.warnings))
    else:
        print_report(report)
    finish(state, scanner, as_json=as_json)
