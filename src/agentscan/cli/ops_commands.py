"""``export`` and ``doctor``: the commands cron jobs and bug reports use."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from agentscan.cli.options import (
    GlobalOptionsCommand,
    JsonOption,
    ProviderOption,
    end_progress,
    examples,
    finish,
    handle_errors,
    redact_option,
    since_option,
    state_of,
    until_option,
)


#: the format an ``--output`` path's extension says, in any case (``export -o usage.CSV``)
EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".sqlite": "sqlite", ".sqlite3": "sqlite",
              ".db": "sqlite"}


def format_of(output: str | None) -> str:
    """The format ``--output`` says by its extension (``out.jsonl``: ``jsonl``), for an export
    given no ``--format``; a usage error naming what to give when it says none: for stdout (no
    ``--output``, ``-``) jsonl or csv (SQLite needs a file, as ``run_export`` says of
    ``-f sqlite``); for a file (``out.txt``) a format or the extensions read."""
    from agentscan.errors import UsageProblem

    if output is None or output == "-":
        raise UsageProblem(STDOUT_NEEDS_A_FORMAT)
    said = said_format(output)
    if said is not None:
        return said
    extensions = list(EXTENSIONS)
    raise UsageProblem(f"give a --format (-f): jsonl, csv or sqlite, or an --output ending in "
                       f"{', '.join(extensions[:-1])} or {extensions[-1]}")


#: no --format, and no file whose extension could say one
STDOUT_NEEDS_A_FORMAT = ("stdout (no --output, or -) needs a --format (-f): jsonl or csv "
                         "(sqlite needs --output PATH)")


def said_format(output: str) -> str | None:
    """The format ``output``'s extension says, in any case (``None``: none it reads)."""
    import os

    return EXTENSIONS.get(os.path.splitext(output)[1].casefold())


def _first_extensions() -> list[str]:
    """Each format's first extension in ``EXTENSIONS`` (``.jsonl``, not ``.ndjson`` too), in its order."""
    first: dict[str, str] = {}
    for extension, said in EXTENSIONS.items():
        first.setdefault(said, extension)
    return list(first.values())


#: --format's help, its extensions ``EXTENSIONS``' (the rest: ``…``, as the usage error names them all)
FORMAT_HELP = ("jsonl, csv or sqlite (default: what --output's extension says: "
               f"{', '.join(_first_extensions())}, …).")


def register(app: typer.Typer) -> None:
    app.command("export", cls=GlobalOptionsCommand,
                short_help="Write every matching session to a JSONL, CSV or SQLite index.",
                epilog=examples("agentscan export -f sqlite -o ~/sessions.sqlite --quiet   # for cron",
                                "agentscan export -f csv --since 30d    # to stdout (no --output): for a pipe",
                                "agentscan export -o days.jsonl --days --tz Europe/Paris  # format: .jsonl"))(export_command)
    app.command("doctor", cls=GlobalOptionsCommand,
                short_help="Where agentscan looks, what it found, and the hooks installed.",
                epilog=examples("agentscan doctor                      # redacted: safe to paste",
                                "agentscan doctor --json",
                                "agentscan --home /mnt/old-laptop doctor"))(doctor_command)


@handle_errors
def export_command(
    ctx: typer.Context,
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help=FORMAT_HELP, metavar="FORMAT"),
    # Text, not a Path: ``Path("./-") == Path("-")``, and only a bare "-" means stdout.
    output_text: Optional[str] = typer.Option(None, "--output", "-o", help="The file to write (replaced atomically; sqlite is upserted; its extension names the format), or - for stdout (the default: jsonl or csv, given --format).", metavar="PATH"),
    since: Optional[str] = since_option(),
    until: Optional[str] = until_option("Only sessions last updated before WHEN"),
    provider: Optional[List[str]] = ProviderOption,
    lock_timeout: float = typer.Option(30.0, "--lock-timeout", help="Seconds to wait for an overlapping export (and for another program writing an SQLite output).", metavar="S"),
    redact: bool = redact_option("Export titles as a length and hash; mask secrets in paths."),
    days: bool = typer.Option(False, "--days", help="JSONL or CSV: one record per session, UTC day, model and run, with its cost (SQLite's token_days)."),
    tz: Optional[str] = typer.Option(None, "--tz", help="With --days: days in this time zone (IANA, utc or local), not UTC (as tokens --by day --tz); also bare --since/--until dates.", metavar="ZONE"),
    as_json: bool = JsonOption,
) -> None:
    """Write every matching session to a JSONL, CSV or SQLite index (or, without --output,
    JSONL or CSV to stdout: give --format).

    With the global --quiet it prints nothing on success (for cron); errors still go to stderr.
    """
    from agentscan.scan.listfilter import ListFilter
    from agentscan.cli import render
    from agentscan.cli.optionvalues import parse_window, provider_names, reject_blank
    from agentscan.errors import UsageProblem
    from agentscan.export.files import mixed_with_warnings, names_stdout, refuse_closed_descriptor, typed_path
    from agentscan.export.formats import STDOUT, parse_format
    from agentscan.export.run import run_export
    from agentscan.cli.actions import given_zone
    from agentscan.timeutil import zone

    state = state_of(ctx)
    reject_blank(output=output_text, since=since, until=until)
    refuse_closed_descriptor(output_text)  # (first: the next file opened would take its number)
    given = output_text  # as typed, for an error that names it
    if output_text is not None and names_stdout(output_text):  # -o /dev/stdout | duckdb: as -o -
        output_text = "-"
    elif output_text is not None and not state.quiet and (mixed := mixed_with_warnings(output_text)):
        from agentscan.errors import ExportFailed

        raise ExportFailed(mixed)  # (``-o /dev/stderr 2>out.jsonl``: a warning is no record)
    # Any case (-f CSV), as --provider takes it; none given, --output's extension says it
    # (``-o usage.sqlite``), and a --format given always wins, with a warning when the
    # extension says another (``-f jsonl -o s.sqlite3``: JSONL in a file named for SQLite).
    said = said_format(output_text) if fmt is not None and output_text not in (None, "-") else None
    if fmt is None and as_json and output_text in (None, "-"):
        # ``export --json``, as ``gh`` takes ``--json``: the sessions as JSON on stdout were
        # asked for, and "needs a --format" named neither that nor what ``--json`` is here.
        from agentscan.cli.actions import both_on_stdout

        raise UsageProblem(f"{both_on_stdout('export', given)}; for the sessions as JSON on stdout: -f jsonl, "
                           "without --json")
    fmt = parse_format(fmt) if fmt is not None else format_of(output_text)
    # No --output is stdout, for a pipe, as ``gh`` and ``sqlite-utils`` have it (SQLite needs a
    # file: ``run_export`` says so).
    to_stdout = output_text in (None, "-")
    provider = provider_names(provider)
    # (--tz without --days is refused below: no note first)
    shown_zone = day_zone = given_zone(tz) if days else zone(tz)  # (``None``: local, as ``list`` says times)
    if tz is not None and day_zone is None:  # --tz local: days in this machine's zone (the default is UTC's)
        from agentscan.localzone import LocalDays

        day_zone = LocalDays()
    # Written so that NaN fails too (every comparison with it is false: ``< 0`` let it through
    # to the lock's own ValueError, a traceback), and infinity: a wait that never gives up.
    if not 0 <= lock_timeout < float("inf"):
        raise UsageProblem(f"--lock-timeout must be 0 or more seconds (a finite number), not {lock_timeout:g}")
    if to_stdout and as_json:
        from agentscan.cli.actions import both_on_stdout

        raise UsageProblem(both_on_stdout("export", given))
    if to_stdout:
        output = STDOUT
    else:
        import os

        # Reported absolute; not resolved: no symlink followed ("./-" is a file named "-").
        assert output_text is not None  # (``to_stdout`` otherwise)
        output = typed_path(output_text)
        if output_text.endswith(("/", os.sep)) and not output.is_dir():
            from agentscan.errors import ExportFailed

            raise ExportFailed(f"{output_text} names a directory, and there is none; give a file path")
    # --quiet (a global option) also drops the one-line summary: cron mails any output.
    quiet = state.quiet
    from agentscan.cli.actions import note_local_zone

    # A mistyped TZ makes local time UTC without a word: said, as list and tokens say it, when
    # local time is read (``--days --tz local``'s days, a bare ``--since`` date, ``today``).
    note_local_zone((day_zone is None or getattr(day_zone, "is_local", False))
                    and (since is not None or until is not None or (days and tz is not None)))
    scanner = state.scanner(provider)
    # Read as list and tokens read them: a date, week or month --until names counts whole.
    since_at, until_at = parse_window(since, until, day_zone)
    filters = ListFilter(providers=tuple(provider or ()), since=since_at, until=until_at)
    result = run_export(scanner, fmt, output, filters=filters, lock_timeout=lock_timeout, redact=redact, days=days,
                        zone=day_zone)
    if said is not None and said != result.format:
        # A warning as the scan's are (its summary, --json's ``warnings``, --strict fails on it,
        # --quiet hides it): a cron job run with --strict hears of a setting to fix.
        scanner.ctx.warn(result.path, f"written as {result.format} (--format), though its extension says {said}")
    _warn_shared_cache(scanner)
    end_progress()
    if to_stdout and not result.sessions:
        # Nothing on stdout, and a pipe's reader would get an empty file without a word: why,
        # on stderr, as ``list`` says it (--quiet: nothing).
        _say_why_none(state, scanner, filters, shown_zone)
    elif to_stdout:
        if not quiet:
            render.note(f"wrote {_what(result, days)} to stdout ({result.format}{_no_usage(result, days)})",
                        tty_only=True)
    elif as_json and not quiet:
        from agentscan.export.unread import shrank_json

        body: dict[str, Any] = {"path": str(result.path), "format": result.format, "sessions": result.sessions,
                                "gone": result.gone, "usage_days": result.usage_days}
        if days or result.format == "sqlite":
            # The zone the records' ``day`` is in, which neither file says (a CSV's ``day`` is a
            # bare date): a cron job's log of ``--json`` keeps it.  As ``tokens``' ``window.tz``:
            # a zone's name, the local one's when known for sure (``--tz local``), else ``null``.
            from agentscan.localzone import zone_name

            body["days_tz"] = "UTC" if not days or day_zone is None else zone_name(day_zone)
        # The sessions this run did not write because they could not be read, and of those the
        # ones held for a database found locked alone (Cursor writing its state DB), which a
        # later run writes by itself: a cron job told them only by the warnings' words.
        body.update(prices=result.prices, shrank=shrank_json(result.shrank),
                    unread={"sessions": result.unread, "locked": result.unread_locked})
        render.emit_json(render.envelope("export", body, scanner.warnings))
    elif not quiet:
        gone = (f", {result.gone} marked gone" if result.gone else "") + _no_usage(result, days)
        if result.merged:  # once: rows an earlier agentscan wrote for what is now part of another session
            gone += f", {result.merged} merged into another session"
        said = f"wrote {_what(result, days)} to {result.path} ({result.format}{gone}){_why_none(result, filters, scanner)}"
        render.outcome(said)
    # What the run did to the output (rows left as they were, spend lost, …) said first.
    finish(state, scanner, as_json=as_json, first=() if to_stdout else (str(result.path),))


def _warn_shared_cache(scanner) -> None:  # noqa: ANN001 - a Scanner, imported lazily
    """A warning (``--strict`` fails on it) when the index's folder can be written by other users:
    they could swap in an index whose answers the export writes.  ``doctor`` reported it, but a
    cron job reads only the export's own lines."""
    if not scanner.use_cache:
        return
    from agentscan.scan import cachecheck
    from agentscan.scan.cache import FILE_NAME, cache_dir

    folder = cache_dir(scanner.ctx.env)
    if shared := cachecheck.shared(folder):
        scanner.ctx.warn(str(folder / FILE_NAME), f"{shared[0]} (this export read its answers from it): {shared[1]}")


def _why_none(result, filters, scanner) -> str:  # noqa: ANN001 - an ExportResult, ListFilter, Scanner: lazily
    """For an empty export, which option left nothing (as ``list`` says it), or, with none,
    that no session was found at all: a cron job's log then tells a quiet week from a wrong
    ``--since``, ``--provider`` or ``HOME``.  Sessions that could not be read this run are
    there (a warning counts them): not "no session"."""
    if result.sessions or result.unread or result.held:
        return ""
    # None found at all, whatever the filter (asked first when there is none: no scan then): a
    # cron job's HOME is another's, or the agents keep their files elsewhere; no quiet day.
    if (filters.since is None and filters.until is None and not filters.providers) or not any(True for _ in scanner.refs()):
        from agentscan.invocation import doctor_command
        from agentscan.scan.notfound import unread_stores_note

        unread = unread_stores_note(scanner, filters.providers)  # (Cursor's state DB, corrupt)
        return f": {unread}" if unread else f": no sessions found (`{doctor_command()}` shows where agentscan looked)"
    from agentscan.cli.render import short_time

    which = f"{'/'.join(filters.providers)} " if filters.providers else ""
    since = f" since {short_time(filters.since)}" if filters.since is not None else ""
    until = f" before {short_time(filters.until)}" if filters.until is not None else ""
    return f": no {which}session{' updated' if since or until else ''}{since}{until}"


def _say_why_none(state, scanner, filters, shown_zone) -> None:  # noqa: ANN001 - imported lazily
    """Why no session matched ``filters`` (``no sessions updated since … (11 older; …)``), in
    ``list``'s words, its times in ``shown_zone`` (``--tz``; ``None``: local)."""
    from agentscan.cli import render
    from agentscan.cli.list_answer import unread_said, why_empty

    page = scanner.list_page(limit=1, filters=filters)
    if not page.rows:
        # (a locked or corrupt Cursor DB: that, as ``_why_none`` says it, not "doctor shows where")
        render.note(unread_said(scanner, page, filters) or why_empty(state, page, filters, shown_zone))


def _what(result, days: bool) -> str:  # noqa: ANN001 - an ExportResult, imported lazily
    from agentscan.cli.render import plural

    if days:
        # The sessions the rows are of: "26 rows of 26 sessions" read as a row each, when 7 of
        # them recorded no tokens and have none (``_no_usage`` says so).
        return f"{plural(result.usage_days, 'usage-day row')} of {plural(result.usage_day_sessions, 'session')}"
    return plural(result.sessions, "session")


def _no_usage(result, days: bool) -> str:  # noqa: ANN001 - an ExportResult, imported lazily
    """``, 7 more sessions recorded no tokens``: the matching sessions a ``--days`` export has no row of."""
    from agentscan.cli.render import plural

    left = result.sessions - result.usage_day_sessions if days else 0
    return f", {plural(left, 'more session')} recorded no tokens" if left > 0 else ""


@handle_errors
def doctor_command(
    ctx: typer.Context,
    redact: bool = typer.Option(
        True, "--redact/--no-redact",
        help="Hash the newest sessions' titles and mask secrets in paths (the default: this report is for sharing).",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Each provider's roots and databases, the hooks and the cache: found, readable, chosen by what."""
    from pathlib import Path

    from agentscan.cli import render
    from agentscan.cli.doctor_text import print_doctor
    from agentscan.cli.state import home_option
    from agentscan.hooks.status import hook_status
    from agentscan.scan.doctor import diagnose

    state = state_of(ctx)
    scanner = state.scanner(home_must_exist=False)  # the report says what is missing
    report = diagnose(scanner)
    # As ``hooks status`` reports them (with --demo, the demo's own events store, never the user's).
    report["hooks"] = hook_status(home=scanner.ctx.home, cwd=Path.cwd(), env=scanner.ctx.env, demo=state.demo,
                                  home_flag=home_option(state.home))
    term = render.terminal()
    short_ids = scanner.short_ids() if term.tty and not as_json else {}
    scanner.close()
    end_progress()
    warnings = read = scanner.warnings
    if redact:  # bug reports ask for this report: titles are prompts, paths can hold secrets
        from agentscan.export.redact import redact_doctor, redact_warnings

        report, warnings = redact_doctor(report), redact_warnings(warnings)
    if as_json:
        render.emit_json(render.envelope("doctor", report, warnings))
    else:
        print_doctor(report, term, short_ids)
    if state.strict:  # a named home or root that cannot be read fails as in every other command
        _fail_unreadable_named(state, scanner)
        _fail_unsafe_cache(report)
    from agentscan.cli.strictend import strict_end

    # The report all the same, then --strict's exit 1 (docs/cli.md); the report counts them.
    strict_end(state, warnings, verbose=state.verbose, on_stderr=False, counted=read)


def _fail_unsafe_cache(report: dict) -> None:
    """``doctor --strict``: exit 1 (after the report) for what its report finds wrong with
    agentscan's own files: an index SQLite's quick check finds damaged (every command reads
    around it, slower, and says nothing), or a lock folder another user made (exports warn of
    it, so ``export --strict`` fails on it too), or an index's folder others can write (they
    could replace the answers an export writes: ``export`` warns of it too), or, with hooks
    installed, an events store the hook cannot write (every event it runs for is lost), or a
    folder of the events store that cannot be listed (``trace --list --strict`` fails on it)."""
    from agentscan.errors import AgentscanError
    from agentscan.scan import cachecheck

    problems = []
    cache = report["cache"]
    if cache["enabled"] and str(cache.get("problem") or "").startswith("damaged"):
        problems.append(f"the index {cache['path']} is {cache['problem']}: remove it (see `next:` in the report)")
    elif cache["enabled"] and (shared := cachecheck.shared(Path(cache["path"]).parent)):
        problems.append(f"the index {cache['path']}: {shared[0]}: {shared[1]}")
    if (locks := report.get("locks") or {}).get("problem"):
        problems.append(f"export locks: {locks['problem']}")
    hooks = report.get("hooks") or {}
    if hooks.get("installed") and (hooks.get("store") or {}).get("problem"):  # the hooks run, and store nothing
        problems.append(hooks["store"]["problem"])
    for folder in (hooks.get("store") or {}).get("unlisted") or ():  # as `trace --list --strict` fails on it
        problems.append(f"{folder['path']}: {folder['message']}")
    if problems:
        raise AgentscanError("; ".join(problems))


def _fail_unreadable_named(state, scanner) -> None:  # noqa: ANN001 - a State and a Scanner, imported lazily
    """``doctor --strict`` as a health check: ``NoReadableRoot`` (exit 1, after the report) for a
    ``--home`` or a provider variable (``CODEX_HOME=/missing``) naming what cannot be read,
    which fails ``export`` (exit 1) while the report alone exits 0."""
    from agentscan.errors import NoReadableRoot

    problems = []
    if state.home is not None and not state.demo:
        from agentscan.cli.state import check_home

        try:
            check_home(state.home)
        except NoReadableRoot as exc:
            problems.append(str(exc))
    problems += scanner.unreadable_explicit_roots()
    if problems:
        raise NoReadableRoot("; ".join(problems))
