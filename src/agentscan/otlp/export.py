"""``agentscan otlp``: build the traces, then write them to a file or send them to a collector.

The file is OTLP/JSON Lines (the OpenTelemetry file exporter format): one
``TracesData`` per line, one trace (turn) per line, so any line can be
replayed on its own with ``curl --data-binary @line.json
-H 'Content-Type: application/json' http://collector:4318/v1/traces``.  It
is written to a temp file and renamed over the output, so a reader never
sees half a file.  ``--output -`` streams the same lines to stdout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Mapping

from agentscan.errors import OutputFailed
from agentscan.otlp.spans import ExportTrace
from agentscan.otlp.sources import Built, Selection, traces

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.otlp.sender import SendResult

#: ``--output -``: the JSON Lines go to stdout (as ``export -o -``)
STDOUT = Path("-")
#: the usage error of neither or both destinations (the CLI adds its aside to it)
OUTPUT_OR_ENDPOINT = "give exactly one of --output FILE or --endpoint URL"


@dataclass
class Outcome:
    built: Built
    path: Path | None = None
    sent: SendResult | None = None
    notes: list[str] = field(default_factory=list)
    #: why the send failed (``sent`` then counts only what the collector acknowledged)
    failure: str | None = None

    def body(self) -> dict[str, Any]:
        """The ``agentscan.otlp/1`` document, less ``schema`` and ``warnings``."""
        document: dict[str, Any] = {"sessions": self.built.sessions, "traces": self.built.traces, "spans": self.built.spans,
                                    # A failed send stops the export where it failed: the counts
                                    # above are then only what was built by then, not the selection's.
                                    "complete": self.failure is None}
        if self.path is not None:
            document["path"] = str(self.path)
        if self.sent is not None:
            document["sent"] = self.sent.to_json()
        document["prices"] = self.built.prices
        return document


def write_file(path: Path, found: Iterable[ExportTrace]) -> Path:
    from agentscan.toolkit.atomicfile import atomic_write
    from agentscan.otlp.encode_json import encode_line

    if path == STDOUT:  # for a pipe: agentscan otlp -o - | otelcol …
        from agentscan.export.files import to_stdout

        def lines(stream: BinaryIO) -> None:
            for trace in found:
                stream.write(encode_line([trace]))

        to_stdout(lines, OutputFailed)
        return STDOUT
    from agentscan.export.files import place_problem

    path = path.expanduser()
    problem = place_problem(path)
    if problem is not None:
        raise OutputFailed(problem)

    def write(handle: Any) -> None:
        for trace in found:
            handle.write(encode_line([trace]))

    try:
        atomic_write(path, write)
    except OSError as exc:
        raise OutputFailed(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def run(
    scanner: Scanner,
    selection: Selection,
    *,
    output: Path | None = None,
    endpoint: str | None = None,
    protocol: str = "auto",
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
    retries: int = 3,
    use_hooks: bool = True,
    events_env: Mapping[str, str] | None = None,
) -> Outcome:
    """Build and deliver.  A failed send is ``outcome.failure``, with ``sent`` counting only the
    batches the collector acknowledged: a partial batch is never claimed as sent."""
    from agentscan.errors import UsageProblem

    if (output is None) == (endpoint is None):
        raise UsageProblem(OUTPUT_OR_ENDPOINT)
    if endpoint is not None:
        from agentscan.otlp.endpoint import check_headers, traces_url
        from agentscan.otlp.sender import choose_protocol

        traces_url(endpoint)  # a bad URL, protocol or header is a usage error before any work is done
        choose_protocol(protocol)
        check_headers(headers or {})
    problems = scanner.unreadable_explicit_roots()
    if problems:  # before a byte is written or sent: a failed run leaves the last good file as it was (as `export`)
        from agentscan.errors import NoReadableRoot

        raise NoReadableRoot("; ".join(problems))
    if output is not None and output != STDOUT:  # as `export -o`: never inside an agent's own folder
        from agentscan.errors import OutputFailed
        from agentscan.export.ownfolders import refuse_own_folders

        refuse_own_folders(output, scanner.ctx, OutputFailed)
    built = Built()
    found = traces(scanner, selection, built, use_hooks=use_hooks, events_env=events_env)
    outcome = Outcome(built)
    if output is not None:
        outcome.path = write_file(output, found)
        _settle(built, scanner)
        return outcome
    from agentscan.errors import SendFailed
    from agentscan.otlp.sender import send

    try:
        outcome.sent = send(found, endpoint or "", protocol=protocol, headers=headers, timeout=timeout, retries=retries)
    except SendFailed as failed:
        outcome.sent, outcome.failure = failed.sent, str(failed)
    _settle(built, scanner)
    outcome.notes.extend(outcome.sent.warnings)
    return outcome


def _settle(built: Built, scanner: Scanner) -> None:
    """The scan's warnings before the export's own; what the formats do not record, one line
    per provider, said after them (counted so far: a failed send stops midway)."""
    from agentscan.model import ScanWarning

    built.warnings[:0] = scanner.warnings
    # Said as ``tokens`` says a capped sum: the command, not a file, is what the line is about.
    built.format_notes = [ScanWarning("otlp", line) for line in built.gaps.lines(lambda name: scanner.provider(name).label)]
    if built.unread_transcripts:
        from agentscan.toolkit.andmore import first_of
        from agentscan.toolkit.words import agreeing, plural

        # Their turns carry no LLM call and no usage, which would otherwise pass for a turn
        # that spent nothing: said, with where the transcript is.
        count = len(built.unread_transcripts)
        built.format_notes.append(ScanWarning("otlp", (
            f"{plural(count, 'hook session')} name{'s' if count == 1 else ''} a transcript under no root read "
            f"({first_of(built.unread_transcripts, 1)}): "
            f"{agreeing(count).its} turns have no LLM calls or token usage; read its folder too "
            "(CLAUDE_CONFIG_DIR as the agent has it, or --home)")))
