"""``agentscan export``: choose the rows, take the output's lock, write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from agentscan.errors import ExportFailed, UsageProblem
from agentscan.filemodes import FILE_MODE
from agentscan.export.files import write_csv, write_jsonl
from agentscan.export.rows import UsageDay, usage_days
from agentscan.model import SessionRow

if TYPE_CHECKING:
    from agentscan.scan.scanner import ListFilter, Scanner

FORMATS = ("jsonl", "csv", "sqlite")
LOCK_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class ExportResult:
    path: Path
    format: str
    sessions: int
    gone: int = 0


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

    lock = FileLock(str(output) + ".lock", timeout=lock_timeout, mode=FILE_MODE)
    try:
        with lock:
            if fmt == "jsonl":
                return ExportResult(output, fmt, write_jsonl(output, rows, before_rename=before_rename))
            if fmt == "csv":
                return ExportResult(output, fmt, write_csv(output, rows, before_rename=before_rename))
            from agentscan.export.sqlite import write_sqlite

            sessions, gone = write_sqlite(output, rows, usage_days, scope=scope, present_ids=present_ids)
            return ExportResult(output, fmt, sessions, gone)
    except Timeout:
        raise ExportFailed(
            f"another agentscan export holds {output}.lock; gave up after {lock_timeout:.0f} s"
        ) from None
    except OSError as exc:
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None


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
    refs = scanner.refs(filters.providers)
    rows = scanner.all_rows(filters=filters)
    wanted = {row.id for row in rows}
    if redact:
        from agentscan.export.redact import redact_row

        rows = [redact_row(row) for row in rows]
    days = usage_days(scanner, [ref for ref in refs if ref.id in wanted]) if fmt == "sqlite" else []
    return export(
        fmt, output, rows, days,
        scope=filters.providers or tuple(p.name for p in scanner.providers),
        present_ids=[ref.id for ref in refs],
        lock_timeout=lock_timeout,
        before_rename=before_rename,
    )
