"""export, as a spreadsheet, DuckDB or Datasette user meets it: cells a sheet reads as numbers,
one-line errors for a file that is not what the format needs, and what the docs promise."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
S1 = "e1e1e1e1-1111-4222-8333-444444444444"
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture
def tiny(isolated_home: Path) -> Path:
    """One call of 1 input and 2 output tokens: $0.000033 at Sonnet 4.5's prices."""
    claude_session_file(isolated_home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "=HYPERLINK(\"http://example.com\",\"x\")"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 2)),
    ])
    return isolated_home


def csv_rows(*args: str) -> list[dict[str, str]]:
    result = runner.invoke(app, ["export", "-f", "csv", "-o", "-", *args])
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout, newline="")))


@pytest.mark.parametrize("days", [(), ("--days",)])
def test_csv_costs_are_plain_decimals_not_exponents(tiny: Path, days: tuple[str, ...]) -> None:
    # str(3.3e-05) is "3.3e-05": `sort -n`, a sheet's text import in many locales and a human
    # reading the column take it for 3.3.  The value is the exact one JSON carries.
    [row] = csv_rows(*days)
    assert row["cost_usd"] == "0.000033"
    assert Decimal(row["cost_usd"]) == Decimal("0.000033")


def test_csv_cells_are_the_data_as_it_is(tiny: Path) -> None:
    # Nothing is escaped or prefixed: a formula-looking title stays the title (docs/security.md
    # says how to open such a file safely), and RFC 4180 quoting keeps it one cell.
    [row] = csv_rows()
    assert row["title"] == '=HYPERLINK("http://example.com","x")'


def test_sqlite_export_onto_a_file_that_is_no_database_is_a_one_line_error(tiny: Path, tmp_path: Path) -> None:
    # -f sqlite -o sessions.csv (the CSV the nightly job writes): sqlite3.DatabaseError is no
    # OSError, and it escaped as a traceback.
    target = tmp_path / "sessions.csv"
    target.write_bytes(b"id,title\nx,y\n")
    result = runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert str(target) in line and "not a database" in line
    assert target.read_bytes() == b"id,title\nx,y\n"


def test_a_file_that_is_no_database_keeps_its_mode(tiny: Path, tmp_path: Path) -> None:
    # The database's file is made private (0600) before SQLite opens it: a CSV that turned out
    # to be no database was left 0600.
    import os

    target = tmp_path / "shared.csv"
    target.write_bytes(b"id\na\n")
    os.chmod(target, 0o644)
    result = runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)])
    assert result.exit_code == 1
    assert target.stat().st_mode & 0o777 == 0o644 and target.read_bytes() == b"id\na\n"


def test_days_rows_add_up_to_the_tokens_report_on_the_demo() -> None:
    report = orjson.loads(runner.invoke(app, ["--demo", "tokens", "--json"]).stdout)
    result = runner.invoke(app, ["--demo", "export", "-f", "jsonl", "--days", "-o", "-"])
    assert result.exit_code == 0, result.output
    days = [orjson.loads(line) for line in result.stdout.splitlines()]
    for field in ("input", "cache_read", "cache_write", "output", "reasoning", "total"):
        assert sum(day["tokens"][field] for day in days) == report["total"][field], field
    assert sum(day["cost_usd"] or 0 for day in days) == pytest.approx(report["cost_usd"] or report["cost_usd_priced"])


def test_the_docs_say_how_to_open_a_csv_in_a_spreadsheet_safely() -> None:
    security = (DOCS / "security.md").read_text()
    cron = (DOCS / "cron.md").read_text()
    for text in (security, cron):
        assert "formula" in text.lower() and "--redact" in text
    assert "BOM" in cron


@pytest.mark.parametrize("args", [["export", "-f", "csv"], ["export", "-f", "jsonl"], ["otlp"]])
def test_a_symlinked_output_is_written_through(tiny: Path, tmp_path: Path, args: list[str]) -> None:
    # The export kept in a synced folder, linked from where the cron job writes: the rename
    # replaced the link with a file, and the synced copy went stale.
    where = tmp_path / "exports"
    synced = where / "Dropbox" / "sessions.out"
    synced.parent.mkdir(parents=True)
    synced.write_bytes(b"old\n")
    link = where / "sessions.out"
    link.symlink_to(synced)
    result = runner.invoke(app, [*args, "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == synced.resolve()
    assert synced.read_bytes() not in (b"", b"old\n")
    assert sorted(path.name for path in where.iterdir()) == ["Dropbox", "sessions.out"]
