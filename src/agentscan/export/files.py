"""JSON Lines and CSV exports, written atomically (``toolkit.atomicfile``)."""

from __future__ import annotations

import csv
import io
import os
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO, Callable, Collection, Iterable, Sequence, TypeVar

import orjson

from agentscan.toolkit.atomicfile import TEMP_MARK
from agentscan.export.rows import CSV_COLUMNS, DAY_CSV_COLUMNS, UsageDay, flat_row
from agentscan.toolkit.atomicfile import atomic_write, own_descriptor
from agentscan.model import SessionRow


def jsonl_lines(handle: BinaryIO, rows: Iterable[SessionRow], unknown: Collection[str] = ()) -> int:
    """One ``agentscan.session/1`` line a row; ``unknown``: the rows marked ``tokens_unknown``."""
    count = 0
    for row in rows:
        line = {"schema": "agentscan.session/1", **row.to_json()}
        if row.id in unknown:
            line["tokens_unknown"] = True
        handle.write(orjson.dumps(line) + b"\n")
        count += 1
    return count


def day_jsonl_lines(handle: BinaryIO, days: Iterable[UsageDay]) -> int:
    """``export --days``: one line per session, UTC day, model and run."""
    count = 0
    for day in days:
        handle.write(orjson.dumps({"schema": "agentscan.usage_day/1", **day.to_json()}) + b"\n")
        count += 1
    return count


def _csv_cell(value: Any) -> Any:
    # Booleans as spreadsheets and DuckDB read them, not Python's True/False.
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # A cost, positional: str() writes a small one as "3.3e-05", which `sort -n` and a
        # human take for 3.3.  repr is the shortest exact form (JSON's), Decimal drops the exponent.
        return format(Decimal(repr(value)), "f")
    return value


def _csv(handle: BinaryIO, columns: Sequence[str], records: Iterable[dict[str, Any]]) -> int:
    count = 0
    text = io.TextIOWrapper(handle, encoding="utf-8", newline="", write_through=True)
    writer = csv.DictWriter(text, fieldnames=columns, extrasaction="raise")
    writer.writeheader()
    for record in records:
        writer.writerow({k: _csv_cell(v) for k, v in record.items()})
        count += 1
    text.flush()
    text.detach()
    return count


def csv_lines(handle: BinaryIO, rows: Iterable[SessionRow]) -> int:
    return _csv(handle, CSV_COLUMNS, (flat_row(row) for row in rows))


def day_csv_lines(handle: BinaryIO, days: Iterable[UsageDay]) -> int:
    """``export --days``: ``DAY_CSV_COLUMNS``, one row per session, UTC day, model and run."""
    return _csv(handle, DAY_CSV_COLUMNS, (day.flat() for day in days))


T = TypeVar("T")


def typed_path(text: str) -> Path:
    """An ``--output`` as typed, ``~`` expanded, made absolute (links not followed: the
    descriptor rules read ``/dev/stderr`` itself)."""
    return Path(os.path.abspath(os.path.expanduser(text)))


def names_stdout(text: str) -> bool:
    """``text`` (an ``--output``) names this process's stdout, as ``-`` does: ``/dev/stdout``,
    ``/dev/fd/1``, ``/proc/self/fd/1``, or another descriptor open on stdout's file
    (``-o /dev/stderr >log 2>&1``).  Any other descriptor is written into as a file is
    (``toolkit.atomicfile.own_descriptor``, the one rule); this one is stdout for the command
    too: its summary line (``wrote … to PATH``), printed on stdout, would land in the export."""
    number = own_descriptor(typed_path(text))
    if number is None:
        return False
    try:
        return number == 1 or os.path.samestat(os.fstat(number), os.fstat(1))
    except OSError:
        return False  # fd 1 closed: written into as a file


def refuse_closed_descriptor(output: str | None, failure: Callable[[str], Exception] | None = None) -> None:
    """``failure`` (``ExportFailed``) naming an ``--output`` (``output``, as given) that is a
    descriptor of this process that is not open (``closed_descriptor``)."""
    if output is None or output.strip() in ("", "-"):
        return
    problem = closed_descriptor(typed_path(output))
    if problem is not None:
        if failure is None:
            from agentscan.errors import ExportFailed

            failure = ExportFailed
        raise failure(problem)


def closed_descriptor(path: Path) -> str | None:
    """Why ``path`` cannot be written when it names a descriptor of this process that is not
    open (``-o /dev/stdout >&-``), else ``None``.  Asked as a command begins, before agentscan
    opens a file of its own: that file would take the number, and the export would be written
    into it (its lock file, its index)."""
    from agentscan.toolkit.atomicfile import descriptor_open, named_descriptor

    number = named_descriptor(path)  # (its links followed once: ``own_descriptor`` would again)
    if number is None:
        return None
    if not descriptor_open(number):
        return (f"{path} names descriptor {number} of this process, which is not open (closed before agentscan "
                "ran?): nothing to write into; give a file's path")
    import fcntl

    try:
        reading_only = fcntl.fcntl(number, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
    except OSError:
        return None
    if reading_only:  # (``3</dev/null``, ``/dev/stdin <file``): else refused by the write, after the whole scan
        return (f"{path} names descriptor {number} of this process, which is open for reading only: "
                "nothing can be written into it; give a file's path")
    return None


def mixed_with_warnings(text: str) -> str | None:
    """Why an ``--output`` (as typed) that is stderr's file cannot be written without
    ``--quiet``: ``-o /dev/stderr 2>out.jsonl`` put the run's warnings between the export's
    lines.  Not a device (a terminal, read by a person), not a file opened for appending (``2>>log``:
    a log, where the export follows the log's lines, as docs/cli.md has it), and not stdout
    (``names_stdout``: written as ``-``)."""
    number = own_descriptor(typed_path(text))
    if number is None:
        return None
    import fcntl

    try:
        if number != 2 and not os.path.samestat(os.fstat(number), os.fstat(2)):
            return None
        # (a device, a terminal or ``/dev/null``, is read by no program as an export)
        if stat.S_ISCHR(os.fstat(number).st_mode) or fcntl.fcntl(number, fcntl.F_GETFL) & os.O_APPEND:
            return None
    except OSError:
        return None
    return (f"{text} is stderr's file, where this run's warnings and notes are written too: they would be "
            "lines among its records; add --quiet to leave them out, or give the file's path as --output")


def to_stdout(write: Callable[[BinaryIO], T], failure: Callable[[str], Exception]) -> T:
    """``write``'s result, having written to stdout's bytes (``-o -``) and flushed them: a closed
    stdout or a full disk raises ``failure(message)`` (one line, exit 1), not a traceback; so
    does a pipe closed by its reader (``| head``): the export was not written whole, which a
    report cut by its reader is not asked to be (the CLI ends that one with 0)."""
    import errno
    import sys

    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        raise failure("cannot write to stdout: it is closed")
    try:
        result = write(stream)
        stream.flush()
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise failure("stdout was closed before the export was written whole (its reader stopped reading)") from exc
        raise failure(f"cannot write to stdout: {exc.strerror or exc}") from None
    return result


def sessions_held(path: Path, fmt: str, providers: Collection[str]) -> dict[str, int]:
    """How many sessions of each of ``providers`` the JSON Lines or CSV export at ``path``
    holds (its records' ``id``, or ``session_id`` with ``--days``), before a run without their
    roots replaces it: their rows leave the file, which the run says.  Asked whenever a
    provider has no root (a Claude-only user has no Codex root): the file is parsed only
    when one of their ids' prefixes is in its bytes.  A file that is not an export (or
    cannot be read) holds none."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or own_descriptor(path) is not None:
            # A FIFO or device is written into (reading it would wait for a writer), and so is a
            # descriptor's file (``2>>log``): nothing it held leaves it.
            return {}
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    if not any(f"{name}:".encode() in data for name in providers):
        return {}
    held: dict[str, set[str]] = {}
    records: Iterable[Any]
    if fmt == "jsonl":
        records = (_record(line) for line in data.splitlines())
    else:
        records = csv.DictReader(io.StringIO(data.decode("utf-8", "replace"), newline=""))
    try:
        for record in records:
            session = record.get("id") or record.get("session_id") if isinstance(record, dict) else None
            if isinstance(session, str) and session.partition(":")[0] in providers:
                held.setdefault(session.partition(":")[0], set()).add(session)
    except csv.Error:
        return {}
    return {name: len(ids) for name, ids in held.items()}


def _record(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def write_lines(path: Path, lines: Callable[[BinaryIO], int], *, before_rename: Callable[[], None] | None = None) -> int:
    """Write what ``lines`` writes to ``path`` atomically; returns its count of records."""
    count = 0

    def write(handle: io.BufferedWriter) -> None:
        nonlocal count
        count = lines(handle)

    target = atomic_write(path, write, before_rename)
    try:
        remove_stale_temps(target)
    except Exception:  # noqa: BLE001 - the export is written: tidying up never fails it
        pass
    return count


#: how old a temp file of another run's must be to be taken for a killed run's
STALE_TEMP_S = 600

#: ``atomic_write``'s temp names: ``tempfile.mkstemp``'s 8 characters, from its alphabet
#: (``tempfile._RandomNameSequence``: lowercase letters, digits, underscore) and no other,
#: so that fewer of a user's own names (``.r.csv.Backup-1.tmp``) are taken for one
_TEMP_RANDOM = r"[a-z0-9_]{8}"


def remove_stale_temps(target: Path) -> None:
    """Remove the temp files (``.<name>.agentscan-XXXXXXXX.tmp``, ``atomic_write``'s) that runs killed
    while writing ``target`` (the file ``atomic_write`` wrote, links resolved) left in its
    folder: each such run (a cron ``timeout -s KILL``, an OOM kill, a reboot) left one, as
    big as the export, in a team's folder, for good.  Called under the output's lock, once
    this run's file is in place; only this user's regular files, and only those untouched
    for ``STALE_TEMP_S`` (a library call may write the same path unlocked)."""
    import re
    import time

    from agentscan.toolkit.fsutil import stale_own_files

    pattern = re.compile(r"\." + re.escape(target.name) + r"\." + re.escape(TEMP_MARK) + _TEMP_RANDOM + r"\.tmp")
    for stale, _ in stale_own_files(target.parent, pattern, time.time() - STALE_TEMP_S):
        try:
            stale.unlink()
        except OSError:
            continue


#: the longest name of one file or folder most file systems take (bytes)
_NAME_MAX = 255


def place_problem(path: Path) -> str | None:
    """What keeps a file from being written at ``path`` before anything is read: a folder in
    its place, no folder to hold it, or a path the system takes no file at (``export``'s and
    ``otlp``'s one wording)."""
    try:
        if path.is_dir():
            return f"{path} is a directory; give a file path"
        if not path.parent.is_dir():
            # (the file named first, as every other refusal here: ``error: /x/y does not exist``
            # alone read as the file, or a --home, missing, not the folder to write it in)
            return f"cannot write {path}: the folder {path.parent} does not exist"
    except OSError as exc:
        # ``File name too long`` (``is_dir`` says only a missing file's errors): a relative
        # ``-o x.jsonl`` is made absolute, past the system's 4,096 bytes from a deep folder.
        # A traceback, and no word of which path: one line, exit 1, as any refused output.
        import errno

        if exc.errno == errno.ENAMETOOLONG:
            longest = max(len(os.fsencode(part)) for part in path.parts)
            if longest > _NAME_MAX:
                return f"cannot write {path}: a name in it is too long ({longest:,} bytes): give a shorter one"
            return (f"cannot write {path}: the path is too long ({len(os.fsencode(path)):,} bytes; a relative "
                    "--output is taken from the current directory): give a shorter one")
        return f"cannot write {path}: {exc.strerror or exc}"
    return None
