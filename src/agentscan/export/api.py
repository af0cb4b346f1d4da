"""``export_sessions``: what ``agentscan export -o PATH`` writes, for a library caller.

``run_export`` is the CLI's: its errors name options (``--days``, ``--tz``) and ``Path("-")``
is stdout.  This is the library's door to it: a file only (the library prints nothing),
the format named, and the caller's values checked and refused in the library's words
(``days``, ``tz``) before anything is read or written.
"""

from __future__ import annotations

import os
from datetime import tzinfo
from typing import TYPE_CHECKING, Literal

from agentscan.errors import UsageProblem

if TYPE_CHECKING:
    from agentscan.export.run import ExportResult
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner

ExportFormat = Literal["sqlite", "jsonl", "csv"]


def export_sessions(
    scanner: Scanner,
    output: str | os.PathLike[str],
    format: ExportFormat,
    *,
    filters: ListFilter | None = None,
    days: bool = False,
    tz: tzinfo | str | None = None,
    redact: bool = False,
    lock_timeout: float = 30.0,
) -> ExportResult:
    """Write every session matching ``filters`` (unclamped), with its cost, to the file
    ``output`` as ``agentscan export -f FORMAT -o PATH`` writes it: an SQLite index kept up to
    date run after run (a session gone from disk is marked gone, not deleted), or JSON Lines
    or CSV replacing the file whole.  ``days``: a JSON Lines or CSV record per session, day,
    model and run instead (UTC days; in ``tz`` when given: a zone or an IANA name, ``"local"``
    this machine's).  ``redact``: titles, prompts and paths masked, as ``--redact`` does.
    ``lock_timeout``: seconds to wait for an overlapping export of the same file (a cron
    job's), as ``--lock-timeout`` (then ``ExportFailed``; 0: do not wait).
    Returns an ``ExportResult`` (``path``, ``format``, ``sessions``, ``gone``, …).  Raises
    ``UsageProblem`` for a value that cannot be used, ``ExportFailed`` when the file cannot be
    written (the previous one is left as it was)."""
    from agentscan.export.formats import check_days, parse_format
    from agentscan.export.run import run_export
    from agentscan.scan.arguments import time_zone
    from agentscan.scan.listfilter import ListFilter, check_filters

    if isinstance(output, os.PathLike):
        output = os.fspath(output)
    if not isinstance(output, str) or output.strip() in ("", "-"):
        shown = repr(output) if isinstance(output, str) else type(output).__name__
        raise UsageProblem(f"output must be a file's path, a str or a Path, not {shown}: the library writes "
                           "no stdout", parameter="output")
    fmt = parse_format(format, "format")
    for name, value in (("redact", redact), ("days", days)):
        if not isinstance(value, bool):  # ``redact="no"`` would redact: a str is true
            raise UsageProblem(f"{name} must be True or False, not {type(value).__name__}", parameter=name)
    # A request handler must not wait 30 s on a cron job's export: its own bound, checked as
    # ``--lock-timeout`` is (NaN passes no comparison; infinity would never give up).
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, (int, float)) \
            or not 0 <= lock_timeout < float("inf"):
        shown = f"{lock_timeout!r}" if isinstance(lock_timeout, (int, float)) else type(lock_timeout).__name__
        raise UsageProblem(f"lock_timeout must be 0 or more seconds (a finite number), not {shown}",
                           parameter="lock_timeout")
    check_days(fmt, days, zoned=tz is not None, words=("days=True", "tz"))
    zone = named_zone = time_zone(tz)
    if tz is not None and zone is None:  # "local": days in this machine's zone, as ``--tz local``
        from agentscan.localzone import LocalDays

        zone = LocalDays()
    check_filters(filters)
    if filters is not None and tz is not None:  # its dates in ``tz``, as ``export --tz`` reads --since
        from agentscan.scan.arguments import read_in

        filters = read_in(filters, named_zone)
    from agentscan.export.files import refuse_closed_descriptor, typed_path

    path = typed_path(output)  # (absolute, not resolved: no symlink followed, as ``-o`` is)

    refuse_closed_descriptor(str(path))  # before the export opens its lock, which would take the number
    return run_export(scanner, fmt, path, filters=filters if filters is not None else ListFilter(), redact=redact,
                      days=days, zone=zone, lock_timeout=float(lock_timeout))
