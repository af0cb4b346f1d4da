"""``export`` and ``doctor``: the commands cron jobs and bug reports use."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from agentscan.cli.options import JsonOption, ProviderOption, RedactOption, SinceOption, finish, handle_errors, state_of


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
    app.command("doctor")(doctor_command)


@handle_errors
def export_command(
    ctx: typer.Context,
    fmt: str = typer.Option(..., "--format", "-f", help="jsonl, csv or sqlite.", metavar="FORMAT"),
    output: Path = typer.Option(..., "--output", "-o", help="The file to write (replaced atomically; sqlite is upserted).", metavar="PATH"),
    since: Optional[str] = SinceOption,
    provider: Optional[List[str]] = ProviderOption,
    lock_timeout: float = typer.Option(30.0, "--lock-timeout", help="Seconds to wait for an overlapping export.", metavar="S"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing on success (for cron); errors still go to stderr."),
    redact: bool = RedactOption,
    as_json: bool = JsonOption,
) -> None:
    """Write every matching session (not clamped) to a JSONL, CSV or SQLite index."""
    from agentscan.api import ListFilter
    from agentscan.cli import render
    from agentscan.export import run_export
    from agentscan.timeutil import parse_when

    state = state_of(ctx)
    scanner = state.scanner(provider)
    filters = ListFilter(providers=tuple(provider or ()), since=parse_when(since) if since else None)
    result = run_export(scanner, fmt, output, filters=filters, lock_timeout=lock_timeout, redact=redact)
    if as_json and not quiet:
        body = {"path": str(result.path), "format": result.format, "sessions": result.sessions, "gone": result.gone,
                "prices": result.prices}
        render.emit_json(render.envelope("export", body, scanner.warnings))
    elif not quiet:
        gone = f", {result.gone} marked gone" if result.gone else ""
        print(f"wrote {result.sessions} sessions to {result.path} ({result.format}{gone})")
    if quiet:
        state.verbose = False
    finish(state, scanner, as_json=as_json or quiet)


@handle_errors
def doctor_command(ctx: typer.Context, as_json: bool = JsonOption) -> None:
    """Each provider's roots and databases: found, readable, chosen by what, and what was found there."""
    from agentscan.cli import render
    from agentscan.doctor import diagnose

    state = state_of(ctx)
    scanner = state.scanner()
    report = diagnose(scanner)
    scanner.close()
    if as_json:
        render.emit_json(render.envelope("doctor", report, scanner.warnings))
        return
    print(f"home: {report['home']} (from {report['home_source']})")
    for provider in report["providers"]:
        print(f"\n{provider['label']} [{provider['provider']}]")
        for root in provider["roots"]:
            status = "ok" if root["readable"] else (root["problem"] or "unreadable")
            print(f"  {root['kind']:<9} {root['path']}")
            print(f"            from {root['source']}: {status}" + (f" — {root['note']}" if root["note"] else ""))
        newest = provider["newest"]
        newest_text = f"; newest {newest['id']} at {newest['updated_at']}" if newest else ""
        print(f"  sessions  {provider['sessions']}{newest_text}")
        for finding in provider["findings"]:
            print(f"  finding   {finding}")
        for kind, count in provider["warnings"].items():
            print(f"  warning   {count} × {kind}")
    cache = report["cache"]
    state_text = "disabled (--no-cache)" if not cache["enabled"] else ("present" if cache["exists"] else "not created yet")
    print(f"\ncache: {cache['path']} ({state_text}, {cache['bytes'] / 1e6:.1f} MB, from {cache['source']})")
