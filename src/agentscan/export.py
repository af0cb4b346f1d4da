"""Session indexes for cron: JSON Lines, CSV and SQLite exports.

A scheduled job must be safe to overlap and must never leave a half-written
file.  JSON Lines and CSV are written to a temp file in the output's
directory, fsynced, then renamed over the output in one atomic step.  The
SQLite export is updated in place by upsert inside one transaction, so other
readers (Datasette, DuckDB) always see a consistent database; sessions whose
files disappeared get ``gone_at`` and are never deleted.  Overlapping runs
serialise on a lock file (``filelock``) kept in agentscan's cache directory,
named after the output's real path, so nothing is left beside the output.
``--output -`` streams JSON Lines or CSV to stdout instead.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterable, Mapping

import orjson

from agentscan.errors import AgentscanError, UsageProblem
from agentscan.model import SessionRef, SessionRow

if TYPE_CHECKING:
    from agentscan.api import ListFilter, Scanner

FORMATS = ("jsonl", "csv", "sqlite")
LOCK_TIMEOUT_S = 30.0
STDOUT = Path("-")

#: the CSV columns, in order (documented in docs/cron.md; a test keeps them in sync)
CSV_COLUMNS = (
    "id", "provider", "native_id", "path", "title", "cwd", "model", "git_branch", "started_at", "updated_at",
    "tokens_input", "tokens_cache_read", "tokens_cache_write", "tokens_output", "tokens_reasoning", "tokens_total",
    "prompts", "responses", "tool_calls", "subagents", "running",
)


class ExportFailed(AgentscanError):
    """The output could not be written (exit 1); the previous file is intact."""


@dataclass(frozen=True, slots=True)
class UsageDay:
    """Per session, per UTC day, per model: one ``token_days`` row."""

    session_id: str
    day: str
    model: str
    subagent: str | None
    tokens: tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class ExportResult:
    path: Path
    format: str
    sessions: int
    gone: int = 0


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


def jsonl_lines(handle: BinaryIO, rows: Iterable[SessionRow]) -> int:
    count = 0
    for row in rows:
        handle.write(orjson.dumps({"schema": "agentscan.session/1", **row.to_json()}) + b"\n")
        count += 1
    return count


def _csv_cell(value: Any) -> Any:
    # Booleans as spreadsheets and DuckDB read them, not Python's True/False.
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def csv_lines(handle: BinaryIO, rows: Iterable[SessionRow]) -> int:
    count = 0
    text = io.TextIOWrapper(handle, encoding="utf-8", newline="", write_through=True)
    writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS, extrasaction="raise")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in flat_row(row).items()})
        count += 1
    text.flush()
    text.detach()
    return count


def write_jsonl(path: Path, rows: Iterable[SessionRow], *, before_rename: Callable[[], None] | None = None) -> int:
    count = 0

    def write(handle: io.BufferedWriter) -> None:
        nonlocal count
        count = jsonl_lines(handle, rows)

    atomic_write(path, write, before_rename)
    return count


def write_csv(path: Path, rows: Iterable[SessionRow], *, before_rename: Callable[[], None] | None = None) -> int:
    count = 0

    def write(handle: io.BufferedWriter) -> None:
        nonlocal count
        count = csv_lines(handle, rows)

    atomic_write(path, write, before_rename)
    return count


def lock_path(output: Path, env: Mapping[str, str]) -> Path:
    """Where overlapping exports of ``output`` meet: in agentscan's cache dir, not beside the output."""
    import hashlib

    from agentscan.cache import cache_dir

    real = os.path.realpath(output)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir(env) / "locks" / f"export-{digest}.lock"


def _make_lock_dir(path: Path) -> None:
    """The lock dir is private like the cache (0700); it is created on first use."""
    for directory in (path.parent.parent, path.parent):
        try:
            directory.mkdir(mode=0o700, parents=True)
        except FileExistsError:
            pass


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
    env: Mapping[str, str] | None = None,
) -> ExportResult:
    """Write ``rows`` to ``output`` in ``fmt`` under the output's lock (``-``: stdout, no lock)."""
    if fmt not in FORMATS:
        raise UsageProblem(f"--format must be one of {', '.join(FORMATS)}")
    if output == STDOUT:
        return _to_stdout(fmt, rows)
    output = output.expanduser()
    if output.is_dir():
        raise ExportFailed(f"{output} is a directory; give a file path")
    if not output.parent.is_dir():
        raise ExportFailed(f"{output.parent} does not exist")
    from filelock import FileLock, Timeout

    lock_file = lock_path(output, os.environ if env is None else env)
    try:
        _make_lock_dir(lock_file)
    except OSError as exc:
        raise ExportFailed(f"cannot create the lock directory {lock_file.parent}: {exc.strerror or exc}") from None
    lock = FileLock(str(lock_file), timeout=lock_timeout)
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
            f"another agentscan export is writing {output} (lock {lock_file}); gave up after {lock_timeout:g} s"
        ) from None
    except OSError as exc:
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None


def _to_stdout(fmt: str, rows: list[SessionRow]) -> ExportResult:
    """``--output -``: stream to stdout, for a pipe (``agentscan export -f csv -o - | duckdb``)."""
    if fmt == "sqlite":
        raise UsageProblem("--format sqlite needs a file: SQLite cannot be written to stdout")
    import sys

    stream = sys.stdout.buffer
    count = jsonl_lines(stream, rows) if fmt == "jsonl" else csv_lines(stream, rows)
    stream.flush()
    return ExportResult(STDOUT, fmt, count)


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def usage_days(scanner: Scanner, refs: list[SessionRef]) -> list[UsageDay]:
    """Deduplicated usage of ``refs`` bucketed per session, UTC day, model and run."""
    from agentscan.collect import (
        CACHE_READ, CACHE_WRITE, INPUT, MODEL, OUTPUT, REASONING, SESSION, SUBAGENT, TS, collect_usage,
    )

    days: list[UsageDay] = []
    for provider, entries in collect_usage(scanner, refs).items():
        for entry in entries:
            ts = entry[TS]
            day = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d") if ts is not None else "unknown"
            days.append(UsageDay(
                f"{provider}:{entry[SESSION]}", day, entry[MODEL] or "unknown", entry[SUBAGENT],
                (entry[INPUT], entry[CACHE_READ], entry[CACHE_WRITE], entry[OUTPUT], entry[REASONING]),
            ))
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
    """Export every session matching ``filters`` (unclamped)."""
    if fmt not in FORMATS:
        raise UsageProblem(f"--format must be one of {', '.join(FORMATS)}")
    if fmt == "sqlite" and output == STDOUT:
        raise UsageProblem("--format sqlite needs a file: SQLite cannot be written to stdout")
    refs = scanner.refs(filters.providers)
    rows = scanner.all_rows(filters=filters)
    wanted = {row.id for row in rows}
    if redact:
        from agentscan.redact import redact_row

        rows = [redact_row(row) for row in rows]
    days = usage_days(scanner, [ref for ref in refs if ref.id in wanted]) if fmt == "sqlite" else []
    return export(
        fmt, output, rows, days,
        scope=filters.providers or tuple(p.name for p in scanner.providers),
        present_ids=[ref.id for ref in refs],
        lock_timeout=lock_timeout,
        before_rename=before_rename,
        env=scanner.ctx.env,
    )
