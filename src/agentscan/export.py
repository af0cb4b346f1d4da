"""Session indexes for cron: JSON Lines, CSV and SQLite exports.

A scheduled job must be safe to overlap and must never leave a half-written
file.  JSON Lines and CSV are written to a temp file in the output's
directory, fsynced, then renamed over the output in one atomic step.  The
SQLite export is updated in place by upsert inside one transaction, so other
readers (Datasette, DuckDB) always see a consistent database; sessions whose
files disappeared get ``gone_at`` and are never deleted.  Overlapping runs
serialise on a lock file next to the output (``filelock``).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import orjson

from agentscan.errors import AgentscanError, UsageProblem
from agentscan.model import SessionRow

if TYPE_CHECKING:
    from agentscan.api import ListFilter, Scanner
    from agentscan.pricing import PriceBook

FORMATS = ("jsonl", "csv", "sqlite")
LOCK_TIMEOUT_S = 30.0

#: the CSV columns, in order (documented in docs/cron.md; a test keeps them in sync)
CSV_COLUMNS = (
    "id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch", "started_at", "updated_at",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "cost_usd", "prompts", "responses", "tool_calls", "subagents", "running",
)


class ExportFailed(AgentscanError):
    """The output could not be written (exit 1); the previous file is intact."""


@dataclass(frozen=True, slots=True)
class UsageDay:
    """Per session, per UTC day, per model and run: one ``token_days`` row."""

    session_id: str
    day: str
    model: str
    subagent: str | None
    tokens: tuple[int, int, int, int, int]
    cost: Decimal | None = None


@dataclass(frozen=True, slots=True)
class ExportResult:
    path: Path
    format: str
    sessions: int
    gone: int = 0
    prices: dict[str, Any] | None = None


def flat_row(row: SessionRow) -> dict[str, Any]:
    doc = row.to_json()
    tokens = doc.pop("tokens") or {}
    counts = doc.pop("counts")
    flat = {key: doc[key] for key in CSV_COLUMNS if key in doc}
    for field in ("input", "cache_read", "cache_write", "output", "reasoning", "total"):
        flat[f"tokens_{field}"] = tokens.get(field)
    flat.update(prompts=counts["prompts"], responses=counts["responses"], tool_calls=counts["tool_calls"])
    return {key: flat.get(key) for key in CSV_COLUMNS}


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], None], before_rename: Callable[[], None] | None = None) -> None:
    """Write via a temp file in the same dir, fsync, then rename over ``path``."""
    directory = path.parent
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename()
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def write_jsonl(path: Path, rows: Iterable[SessionRow], *, before_rename: Callable[[], None] | None = None) -> int:
    count = 0

    def write(handle: io.BufferedWriter) -> None:
        nonlocal count
        for row in rows:
            handle.write(orjson.dumps({"schema": "agentscan.session/1", **row.to_json()}) + b"\n")
            count += 1

    atomic_write(path, write, before_rename)
    return count


def write_csv(path: Path, rows: Iterable[SessionRow], *, before_rename: Callable[[], None] | None = None) -> int:
    count = 0

    def write(handle: io.BufferedWriter) -> None:
        nonlocal count
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="", write_through=True)
        writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS, extrasaction="raise")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in flat_row(row).items()})
            count += 1
        text.flush()
        text.detach()

    atomic_write(path, write, before_rename)
    return count


def export(
    fmt: str,
    output: Path,
    rows: list[SessionRow],
    usage_days: list[UsageDay],
    *,
    scope: tuple[str, ...] = (),
    present_ids: Iterable[str] | None = None,
    lock_timeout: float = LOCK_TIMEOUT_S,
    before_rename: Callable[[], None] | None = None,
) -> ExportResult:
    """Write ``rows`` to ``output`` in ``fmt`` under the output's lock."""
    if fmt not in FORMATS:
        raise UsageProblem(f"--format must be one of {', '.join(FORMATS)}")
    output = output.expanduser()
    if output.is_dir():
        raise ExportFailed(f"{output} is a directory; give a file path")
    if not output.parent.is_dir():
        raise ExportFailed(f"{output.parent} does not exist")
    from filelock import FileLock, Timeout

    lock = FileLock(str(output) + ".lock", timeout=lock_timeout)
    try:
        with lock:
            if fmt == "jsonl":
                return ExportResult(output, fmt, write_jsonl(output, rows, before_rename=before_rename))
            if fmt == "csv":
                return ExportResult(output, fmt, write_csv(output, rows, before_rename=before_rename))
            from agentscan.export_sqlite import write_sqlite

            sessions, gone = write_sqlite(output, rows, usage_days, scope=scope, present_ids=present_ids)
            return ExportResult(output, fmt, sessions, gone)
    except Timeout:
        raise ExportFailed(
            f"another agentscan export holds {output}.lock; gave up after {lock_timeout:.0f} s"
        ) from None
    except OSError as exc:
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def usage_days(collected: dict[str, list[list]], book: PriceBook) -> list[UsageDay]:
    """Deduplicated usage (``collect_usage`` output) per session, UTC day, model and run, priced."""
    from agentscan.collect import MODEL, SESSION, SUBAGENT, TS
    from agentscan.pricing import Spend

    spends: dict[tuple[str, str, str, str | None], Spend] = {}
    for provider, entries in collected.items():
        for entry in entries:
            ts = entry[TS]
            day = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d") if ts is not None else "unknown"
            key = (f"{provider}:{entry[SESSION]}", day, entry[MODEL] or "unknown", entry[SUBAGENT])
            spend = spends.get(key)
            if spend is None:
                spend = spends[key] = Spend()
            spend.add(entry, book.entry_key(provider, entry))
    days = []
    for (session_id, day, model, subagent), spend in spends.items():
        tokens = spend.tokens()
        assert tokens is not None  # a Spend here holds at least one call
        days.append(UsageDay(session_id, day, model, subagent,
                             (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning),
                             spend.cost(book)))
    return days


def run_export(
    scanner: Scanner,
    fmt: str,
    output: Path,
    *,
    filters: ListFilter,
    lock_timeout: float = LOCK_TIMEOUT_S,
    before_rename: Callable[[], None] | None = None,
    redact: bool = False,
) -> ExportResult:
    """Export every session matching ``filters`` (unclamped), each with its cost."""
    from agentscan.collect import merge_by_provider, usage_by_session
    from agentscan.costs import costs_of, priced
    from agentscan.pricing import PriceBook

    if fmt not in FORMATS:
        raise UsageProblem(f"--format must be one of {', '.join(FORMATS)}")
    refs = scanner.refs(filters.providers)
    rows = scanner.all_rows(filters=filters)
    wanted = {row.id for row in rows}
    chosen = [ref for ref in refs if ref.id in wanted]
    book = PriceBook(scanner.ctx, scanner.cache)
    per_session = usage_by_session(scanner, chosen)  # parsed once: rows' costs and token_days share it
    rows = priced(rows, costs_of(per_session, chosen, book))
    if redact:
        from agentscan.redact import redact_row

        rows = [redact_row(row) for row in rows]
    days = usage_days(merge_by_provider(chosen, per_session), book) if fmt == "sqlite" else []
    result = export(
        fmt, output, rows, days,
        scope=filters.providers or tuple(p.name for p in scanner.providers),
        present_ids=[ref.id for ref in refs],
        lock_timeout=lock_timeout,
        before_rename=before_rename,
    )
    return replace(result, prices=book.data.to_json())
