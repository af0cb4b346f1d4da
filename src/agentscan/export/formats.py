"""What an export is asked to write, checked before anything is read: a format it knows
(``parse_format``, in any case), one the output can take (SQLite is no stream), and
``--days``/``--tz`` only where they mean something (``check_days``).  The CLI, ``run_export``
and ``export_sessions`` ask alike; light to import (``cli.usagewords`` names the formats)."""

from __future__ import annotations

from pathlib import Path

from agentscan.errors import UsageProblem

FORMATS = ("jsonl", "csv", "sqlite")
#: ``--output -``: JSON Lines or CSV streamed to stdout
STDOUT = Path("-")


def parse_format(fmt: str, what: str = "--format") -> str:
    """``fmt`` as one of ``FORMATS``, in any case (``CSV``, as ``--provider`` takes ``Claude``),
    or a usage error naming them, and ``fmt`` by ``what`` (the library's ``format``)."""
    from agentscan.toolkit.choices import one_of

    return one_of(fmt, FORMATS, what, parameter="format")


def checked_format(fmt: str, output: Path, per_day: bool) -> str:
    """``fmt`` (``parse_format``), refused where it cannot be written."""
    fmt = parse_format(fmt)
    if fmt == "sqlite" and output == STDOUT:
        raise UsageProblem("--format sqlite needs --output PATH: SQLite cannot be written to stdout")
    check_days(fmt, per_day, zoned=False)
    return fmt


def check_days(fmt: str, days: bool, *, zoned: bool, words: tuple[str, str] = ("--days", "--tz")) -> None:
    """``days`` only for JSON Lines and CSV, and a zone (``zoned``) only for ``days``: one
    rule for the CLI and ``export_sessions``, each naming its own (``words``: ``days=True``
    and ``tz`` for the library).  An index's days are UTC, so that every run (a cron job's
    zone, a laptop's) adds to the same ones."""
    days_word, tz_word = words
    if fmt == "sqlite" and days:
        raise UsageProblem(f"{days_word} is for jsonl and csv: a SQLite export always has the token_days table",
                           parameter="days")
    if zoned and not days:
        # Said for the format asked for: a JSON Lines export was told about SQLite's tables.
        if fmt == "sqlite":
            raise UsageProblem(f"{tz_word} is for {days_word}, with jsonl or csv (each day's rows in that zone); an "
                               "SQLite index's token_days, like a session's times, are always UTC", parameter="tz")
        raise UsageProblem(f"{tz_word} is for {days_word} (each day's rows in that zone); a session's times are "
                           "always UTC", parameter="tz")
