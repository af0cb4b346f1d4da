"""``otlp``: sessions and hook trees as OpenTelemetry traces, to a file or a collector.

Only Typer and the shared options are imported here; the exporter
(``agentscan.otlp``) is imported inside the command, so ``--help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from agentscan.cli.options import (
    GlobalOptionsCommand,
    JsonOption,
    ProviderOption,
    examples,
    finish,
    handle_errors,
    redact_option,
    since_option,
    state_of,
    until_option,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agentscan.cli.state import State
    from agentscan.otlp.sources import Selection
    from agentscan.scan.scanner import Scanner


def register(app: typer.Typer) -> None:
    app.command("otlp", cls=GlobalOptionsCommand,
                short_help="Sessions as OpenTelemetry traces, to a file or a collector.",
                epilog=examples("agentscan otlp --since 1d --output traces.jsonl",
                                "agentscan otlp -p claude --endpoint http://localhost:4318",
                                "agentscan --demo otlp 7f3c9a12 --output -"))(otlp_command)


@handle_errors
def otlp_command(
    ctx: typer.Context,
    session_ids: Optional[List[str]] = typer.Argument(None, metavar="[ID]...", help="Sessions to export (default: every matching one)."),
    since: Optional[str] = since_option(),
    until: Optional[str] = until_option("Only turns that ended before WHEN (--since: those that ended since it)"),
    provider: Optional[List[str]] = ProviderOption,
    # Text, not a Path: ``Path("./-") == Path("-")``, and only a bare "-" means stdout.
    output_text: Optional[str] = typer.Option(None, "--output", "-o", help="Write OTLP/JSON Lines to FILE (replaced atomically), or - for stdout.", metavar="FILE"),
    endpoint: Optional[str] = typer.Option(None, "--endpoint", help="POST OTLP/HTTP to URL (http://host:port gets /v1/traces).", metavar="URL"),
    protocol: str = typer.Option("auto", "--protocol", help="auto (protobuf when opentelemetry-proto is installed), protobuf or json.", metavar="PROTOCOL"),
    header: Optional[List[str]] = typer.Option(None, "--header", help="An HTTP header for the collector, KEY=VALUE (repeatable).", metavar="KEY=VALUE"),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds to wait for each request.", metavar="S"),
    retries: int = typer.Option(3, "--retries", help="Retries of a request that failed in a retryable way (0 to 10).", metavar="N"),
    include_content: bool = typer.Option(False, "--include-content", help="Add prompts, responses and tool inputs as span attributes."),
    redact: bool = redact_option("With --include-content, replace that text with a length and hash; always mask secrets in paths."),
    as_json: bool = JsonOption,
) -> None:
    """Export sessions and hook trees as OpenTelemetry traces: one trace per turn."""
    import os

    from agentscan.cli import render
    from agentscan.cli.optionvalues import provider_names, reject_blank
    from agentscan.errors import StrictWarnings, UsageProblem
    from agentscan.model import ScanWarning
    from agentscan.otlp.endpoint import check_headers, shown_url
    from agentscan.otlp.export import STDOUT, run
    from agentscan.otlp.resource import env_headers
    from agentscan.otlp.semconv import Content
    from agentscan.errors import SendFailed
    from agentscan.otlp.sender import SendResult
    from agentscan.otlp.sources import Selection
    from agentscan.cli.optionvalues import parse_window

    from agentscan.errors import OutputFailed
    from agentscan.export.files import mixed_with_warnings, names_stdout, refuse_closed_descriptor, typed_path

    refuse_closed_descriptor(output_text, OutputFailed)  # (first: the next file opened would take its number)
    state = state_of(ctx)
    # -o /dev/stdout into a pipe: as -o - (written as a file, it failed: its link leads to pipe:[N])
    to_stdout = output_text == "-" or (output_text is not None and names_stdout(output_text))
    if not to_stdout and output_text is not None and not state.quiet and (mixed := mixed_with_warnings(output_text)):
        raise OutputFailed(mixed)  # (``-o /dev/stderr 2>spans.jsonl``: a warning is no span, as for export)
    reject_blank(output=output_text, since=since, until=until)
    provider = provider_names(provider)
    if to_stdout and as_json:
        from agentscan.cli.actions import both_on_stdout

        raise UsageProblem(both_on_stdout("spans", output_text))
    output: Path | None = None
    if to_stdout:
        output = STDOUT
    elif output_text is not None:
        # Reported absolute; not resolved: no symlink followed ("./-" is a file named "-").
        output = typed_path(output_text)
    # Written so that NaN fails too; inf or 1e20 would reach the socket and fail there with
    # a traceback (a deadline past what the platform's time_t holds).
    if not 0 < timeout <= MAX_TIMEOUT_S:
        raise UsageProblem(f"--timeout wants seconds above 0 and at most {MAX_TIMEOUT_S:,} (got {timeout:g})")
    if not 0 <= retries <= MAX_RETRIES:
        raise UsageProblem(f"--retries wants 0 to {MAX_RETRIES} (got {retries})")
    given: dict[str, str] = {}
    for item in header or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            # Not the text itself: a curl-style "Authorization: Bearer …" is the usual slip,
            # and it holds the secret.
            raise UsageProblem("--header wants KEY=VALUE (no '=' after a name found; the text is not shown)")
        given[key.strip()] = value.strip()
    check_headers(given)  # a bad one is refused with --output too: the command line is wrong either way
    if endpoint is None and output is not None:
        _refuse_sending_options(ctx)
    if endpoint is None and output is None:
        raise UsageProblem(_no_destination(os.environ))
    headers = env_headers(os.environ)
    headers.update(given)
    if since is not None or until is not None:  # read in the local zone: a mistyped TZ said, as list says it
        from agentscan.cli.actions import note_local_zone

        note_local_zone(True)
    # Read as tokens reads them (a date, week or month --until names counts whole), and a
    # window that holds nothing refused: turns ending in [since, until), so that windows
    # laid end to end (hourly cron runs) send each turn once (``parse_window`` refuses it).
    since_at, until_at = parse_window(since, until, None, session_ids or ())
    scanner = state.scanner(provider if not session_ids else None)
    selection = Selection(
        ids=tuple(session_ids or ()),
        providers=tuple(provider or ()),
        since=since_at,
        until=until_at,
        content=Content(include=include_content, redact=redact),
    )
    try:
        outcome = run(
            scanner, selection, output=output, endpoint=endpoint, protocol=protocol, headers=headers,
            timeout=timeout, retries=retries, events_env=_demo_events(scanner) if state.demo else None,
        )
    except BaseException:
        scanner.close()
        raise
    # The URL posted to, as the summary and an error name it (``…/v1/traces``); no secret of its
    # query string or userinfo said
    shown = outcome.sent.endpoint if outcome.sent is not None else shown_url(endpoint) if endpoint is not None else ""
    sent_notes = [ScanWarning(shown, note) for note in outcome.notes]
    # What a format never records (Cursor's call times: ``otlp.gaps``) is said once, as a note
    # (``notes`` in --json), not a warning: it is every such session's shape, not bad input,
    # and ``--strict`` does not count it.  As a warning it greeted `agentscan --demo otlp`,
    # a new user's first export, as if something were broken.
    warnings = counted = list(outcome.built.warnings) + sent_notes
    format_notes = [note.message for note in outcome.built.format_notes]
    # --quiet (a global option) prints nothing on success, as `export -q` does: cron mails any output.
    quiet = state.quiet and outcome.failure is None
    if as_json and not quiet:
        render.emit_json(render.envelope("otlp", {**outcome.body(), "notes": format_notes}, warnings))
    elif not as_json and not quiet and outcome.failure is None:
        built = outcome.built
        if built.left_out:
            _say_left_out(built.left_out, selection.providers, every=not built.matched)
        spans = render.plural(built.spans, 'span')
        kept = outcome.sent.spans if outcome.sent is not None else built.spans
        if kept < built.spans:
            # The collector took the batches but rejected some spans (a partial success:
            # its reason is among the warnings): say how many it kept.
            spans = f"{kept:,} of {spans} (the collector rejected {built.spans - kept:,})"
        what = (f"exported {spans} in {render.plural(built.traces, 'trace')} "
                f"from {render.plural(built.sessions, 'session')}")
        if not built.spans and built.matched:  # as the note on stderr says: they matched, and have no span
            what += f" of the {'one' if built.matched == 1 else f'{built.matched:,}'} matched"
        if to_stdout:  # stdout holds the JSON Lines and nothing else
            render.note(f"{what} to stdout", tty_only=True)
        elif outcome.path is not None:  # written all the same, as ``export``'s, so a reader never takes the last run's for this one's
            # (wrapped on a terminal as ``export``'s line is: 80 columns at 60)
            render.outcome(f"{what} to {outcome.path}" + (" (an empty file)" if not built.spans else ""))
        else:
            render.outcome(f"{what} to {outcome.sent.endpoint if outcome.sent else shown}")
        if not built.spans:
            _why_no_spans(state, scanner, selection, built.matched)
    if not as_json and not quiet:
        for text in format_notes:
            render.note(f"note: otlp: {text}")
    said = set(scanner.warnings)  # said by finish: made once (each is a new ScanWarning)
    own = [w for w in warnings if w not in said]  # the export's own notes
    from agentscan.cli.strictend import strict_error
    from agentscan.settling import strict_count

    failing = strict_count(counted) if state.strict else 0
    # Under --quiet too when --strict fails on them (with --json too, as ``cli.strictend.strict_end`` says
    # a scan's): they are its error's reason, said before it.
    own_failing = bool(failing and strict_count([w for w in counted if w not in said]))
    if not as_json or state.verbose or (state.quiet and own_failing):  # --verbose: with --json too (``state.finish``)
        render.warn_summary(own, verbose=state.verbose, even_quiet=own_failing)
    if outcome.failure is not None:
        scanner.close()
        sent = outcome.sent.spans if outcome.sent else 0
        raise SendFailed(f"{outcome.failure}; the collector had acknowledged {render.plural(sent, 'span')} before that",
                         outcome.sent or SendResult(shown, "auto"))
    try:
        finish(state, scanner, as_json=as_json)
    except StrictWarnings:
        raise strict_error(failing, counted) from None  # the count of every warning, the export's too
    if failing:
        raise strict_error(failing, counted)


#: the longest ``--timeout``: a day (a request is never worth waiting longer for)
MAX_TIMEOUT_S = 86_400

#: the most ``--retries``: each waits up to 10 s (a ``Retry-After``), so 10 is over a minute and a
#: half of waiting per request; more only holds a script against a collector that is down
MAX_RETRIES = 10

#: the options that only say how traces are sent to a collector
_SENDING = (("protocol", "--protocol"), ("header", "--header"), ("timeout", "--timeout"), ("retries", "--retries"))


def _refuse_sending_options(ctx: typer.Context) -> None:
    """With ``--output`` and no ``--endpoint``, an option of sending would be ignored without
    a word (``--protocol protobuf`` still writes OTLP/JSON Lines): a usage error names it."""
    from agentscan.errors import UsageProblem

    named = [flag for name, flag in _SENDING if _given(ctx, name)]
    if named:
        from agentscan.toolkit.words import listed

        which = listed(named)
        verb, them = ("needs", "it sets") if len(named) == 1 else ("need", "they set")
        raise UsageProblem(f"{which} {verb} --endpoint: {them} how traces are sent to a collector, "
                           "and --output always writes OTLP/JSON Lines")


#: the OpenTelemetry SDK's variables that name a collector, the more specific first (it wins in an SDK)
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def _no_destination(environ: Mapping[str, str]) -> str:
    """The usage error of ``otlp`` with neither ``--output`` nor ``--endpoint``.  With an
    OpenTelemetry endpoint variable set it names the variable and how to use it: agentscan
    makes no network call that the command line does not ask for, so it is never sent to
    unasked (a variable set for another program would ship the sessions there)."""
    from agentscan.otlp.export import OUTPUT_OR_ENDPOINT

    variable = next((name for name in ENDPOINT_VARIABLES if environ.get(name, "").strip()), None)
    if variable is None:
        return OUTPUT_OR_ENDPOINT
    return (f"{OUTPUT_OR_ENDPOINT} ({variable} is set, but agentscan sends only where --endpoint says: "
            f'--endpoint "${variable}" sends there; -o - writes to stdout)')


def _given(ctx: typer.Context, name: str) -> bool:
    """On the command line (``--protocol auto`` too), not a default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


def _why_no_spans(state: State, scanner: Scanner, selection: Selection, matched: int) -> None:
    """Why an export holds nothing, on stderr, as ``list`` says why it is empty: no session
    matched (which filter left none), or those that did have no turn to export."""
    from agentscan.cli import render

    if matched:
        since = f" since {render.short_time(selection.since)}" if selection.since is not None else ""
        until = f" before {render.short_time(selection.until)}" if selection.until is not None else ""
        turn = f"a turn with a timestamp{since}{until}"  # a span needs one
        if matched == 1:
            render.note(f"no spans: the one session matched has no {turn.removeprefix('a ')}")
        else:
            render.note(f"no spans: none of the {matched:,} sessions that matched has {turn}")
        return
    if selection.ids:
        return  # an id that matches nothing is an error, said already
    from agentscan.cli.list_answer import unread_said, why_empty
    from agentscan.scan.listfilter import ListFilter

    filters = ListFilter(providers=selection.providers, since=selection.since)
    page = scanner.list_page(limit=1, filters=filters)
    if not page.rows:
        render.note(unread_said(scanner, page, filters) or why_empty(state, page, filters))
    elif selection.until is not None:  # (``sources._select``: a session begun at --until or after is not read)
        which = "session updated since " + render.short_time(selection.since) if selection.since is not None else "session"
        render.note(f"no spans: no {which} began before {render.short_time(selection.until)}")


def _say_left_out(left_out: list[tuple[str, str]], providers: tuple[str, ...], *, every: bool) -> None:
    """The sessions asked for by id that ``--provider`` leaves out, said as ``tokens`` says them."""
    from agentscan.cli import render
    from agentscan.cli.tokens_empty import provider_drops

    render.note(provider_drops(left_out, providers, every=False) + ("; nothing is left to export" if every else ""))


def _demo_events(scanner: Scanner) -> dict[str, str]:
    """The environment that names the demo's own events store: ``--demo`` exports the hook
    events the demo ships with its Claude session, never the user's."""
    from agentscan.demo import with_demo_events

    return with_demo_events(scanner.ctx.env)
