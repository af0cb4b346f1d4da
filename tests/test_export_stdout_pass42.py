"""``export`` without ``--output`` writes JSON Lines or CSV to stdout, as ``gh`` and
``sqlite-utils`` do; SQLite needs a file, a usage error (exit 2) without one (pass 42)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def test_jsonl_without_output_goes_to_stdout_as_with_dash(isolated_home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    plain = runner.invoke(app, ["--demo", "--no-cache", "export", "-f", "jsonl"])
    dashed = runner.invoke(app, ["--demo", "--no-cache", "export", "-f", "jsonl", "-o", "-"])
    assert plain.exit_code == 0, plain.output
    records = [orjson.loads(line) for line in plain.stdout.splitlines()]
    assert len(records) == 11 and all(record["id"].count(":") == 1 for record in records)
    assert plain.stdout == dashed.stdout
    assert list(here.iterdir()) == []  # no file written where it ran


def test_csv_days_without_output_goes_to_stdout(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "--no-cache", "export", "-f", "csv", "--days"])
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.startswith("session_id,") and rows


def test_an_output_path_is_still_written(isolated_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["--demo", "--no-cache", "export", "--format", "jsonl", "--output", str(target)])
    assert result.exit_code == 0, result.output
    assert len(target.read_bytes().splitlines()) == 11 and result.stdout.startswith("wrote 11 sessions to ")


@pytest.mark.parametrize("args, message", [
    (["-f", "sqlite"], "error: --format sqlite needs --output PATH: SQLite cannot be written to stdout"),
    (["-f", "csv", "--json"], "error: --json and the export would both write to stdout (no --output); give --output PATH"),
    (["-f", "csv", "-o", "-", "--json"], "error: --json and the export would both write to stdout (--output -); give --output PATH"),
])
def test_what_stdout_cannot_take_is_a_usage_error(isolated_home: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["--demo", "--no-cache", "export", *args])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(message), result.stderr
