"""Pass 45 (x): the reviewer's last read of export's format and the tokens table's cut.

* ``export`` to stdout (no ``--output``, ``-o -``) with no ``--format`` was told to give an
  ``--output`` ending in ``.sqlite`` too: stdout has no extension, and SQLite cannot go there.
* ``export -f jsonl -o s.sqlite3`` wrote JSON Lines into a file named for SQLite without a
  word: ``--format`` still wins, with a warning (``--strict`` fails on it, as on any).
* ``export --help`` named the extensions by hand, the usage error from ``EXTENSIONS``.
* "others", the key of the tokens table's line of the others' sums, was written twice.
* docs/cli.md's exit code 2 named ``list --limit`` given twice, not ``tokens --limit``.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()
ROOT = Path(__file__).parents[1]
TRY = "Try 'agentscan export --help' for help."
STDOUT_ERROR = "error: stdout (no --output, or -) needs a --format (-f): jsonl or csv (sqlite needs --output PATH)"


# --- C. stdout needs jsonl or csv ----------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["-o", "-"], ["--since", "30d"], ["-o", "-", "--days"]])
def test_stdout_without_a_format_asks_for_jsonl_or_csv(isolated_home: Path, args: list[str]) -> None:
    result = runner.invoke(app, ["--demo", "export", *args])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [STDOUT_ERROR, TRY]
    assert ".sqlite" not in result.stderr and result.stdout == ""


def test_a_file_without_a_format_still_names_the_extensions(isolated_home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["--demo", "export", "-o", str(tmp_path / "out.txt")])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == ("error: give a --format (-f): jsonl, csv or sqlite, or an --output ending "
                                             "in .jsonl, .ndjson, .csv, .sqlite, .sqlite3 or .db")
    assert not (tmp_path / "out.txt").exists()


def test_sqlite_to_stdout_is_still_said_as_before(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "export", "-f", "sqlite"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: --format sqlite needs --output PATH: SQLite cannot be written to "
                                          "stdout", TRY]


# --- D. a --format the extension contradicts: written, with a warning -----------------------------


def _warning(target: Path, fmt: str, said: str) -> str:
    return f"warning: {target}: written as {fmt} (--format), though its extension says {said}"


@pytest.mark.parametrize(("fmt", "name", "said"), [("jsonl", "s.sqlite3", "sqlite"), ("csv", "x.JSONL", "jsonl"),
                                                   ("sqlite", "x.csv", "csv"), ("JSONL", "x.db", "sqlite")])
def test_a_format_the_extension_contradicts_wins_with_a_warning(isolated_home: Path, tmp_path: Path, fmt: str,
                                                                 name: str, said: str) -> None:
    target = tmp_path / name
    result = runner.invoke(app, ["--demo", "export", "-f", fmt, "-o", str(target)])
    assert result.exit_code == 0, result.output
    fmt = fmt.casefold()
    assert result.stdout == f"wrote 11 sessions to {target} ({fmt})\n"
    assert result.stderr.splitlines() == [_warning(target, fmt, said)]
    head = target.read_bytes()[:16]
    assert head.startswith({"jsonl": b'{"', "csv": b"id,provider,", "sqlite": b"SQLite format 3"}[fmt])


def test_the_warning_fails_strict_is_quiet_with_quiet_and_is_in_json(isolated_home: Path, tmp_path: Path) -> None:
    # A new file each time: one the extension says is another format is never written over.
    target = tmp_path / "strict.sqlite3"
    strict = runner.invoke(app, ["--demo", "--strict", "export", "-f", "jsonl", "-o", str(target)])
    assert strict.exit_code == 1
    assert strict.stderr.splitlines() == [_warning(target, "jsonl", "sqlite"), "error: 1 warning (--strict)"]
    assert target.read_bytes().startswith(b'{"')  # written all the same
    target = tmp_path / "quiet.sqlite3"
    quiet = runner.invoke(app, ["--demo", "-q", "export", "-f", "jsonl", "-o", str(target)])
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    target = tmp_path / "quiet-strict.sqlite3"
    quiet_strict = runner.invoke(app, ["--demo", "-q", "--strict", "export", "-f", "jsonl", "-o", str(target)])
    assert quiet_strict.exit_code == 1 and quiet_strict.stderr.splitlines()[0] == _warning(target, "jsonl", "sqlite")
    target = tmp_path / "s.sqlite3"
    document = runner.invoke(app, ["--demo", "export", "-f", "jsonl", "-o", str(target), "--json"])
    assert document.exit_code == 0 and document.stderr == ""
    assert orjson.loads(document.stdout)["warnings"] == [
        {"path": str(target), "message": "written as jsonl (--format), though its extension says sqlite"}]


@pytest.mark.parametrize(("fmt", "name"), [("jsonl", "x.NDJSON"), ("SQLITE", "x.db"), ("csv", "x.txt"),
                                           ("csv", "noext"), ("jsonl", "-")])
def test_no_warning_when_the_extension_agrees_or_says_nothing(isolated_home: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                              name: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["--demo", "--strict", "export", "-f", fmt, "-o", name])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr


# --- W4. --format's help is built from EXTENSIONS -------------------------------------------------


def test_the_format_help_is_built_from_the_extensions() -> None:
    from agentscan.cli import ops_commands

    assert ops_commands.FORMAT_HELP == ("jsonl, csv or sqlite (default: what --output's extension says: .jsonl, "
                                        ".csv, .sqlite, …).")
    named = re.findall(r"\.\w+", ops_commands.FORMAT_HELP)
    assert all(name in ops_commands.EXTENSIONS for name in named)
    assert {ops_commands.EXTENSIONS[name] for name in named} == set(ops_commands.EXTENSIONS.values())
    source = Path(ops_commands.__file__).read_text()
    assert ".jsonl, .csv, .sqlite" not in source and "help=FORMAT_HELP" in source
    shown = " ".join(runner.invoke(app, ["export", "--help"]).stdout.split())
    assert f"-f, --format FORMAT {ops_commands.FORMAT_HELP} -o, --output PATH" in shown


# --- W2. "others" once ---------------------------------------------------------------------------


def test_the_others_key_is_written_once() -> None:
    from agentscan.cli import tokens_sessions
    from agentscan.scan import tokenreport

    assert tokenreport.OTHERS == "others"
    assert not hasattr(tokens_sessions, "PIPED_KEY")
    written = [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "src" / "agentscan").rglob("*.py"))
               for _ in range(path.read_text().count('"others"'))]
    assert written == ["src/agentscan/scan/tokenreport.py"]


# --- G. exit code 2: tokens --limit given twice too -------------------------------------------------


def test_the_exit_codes_name_tokens_limit_given_twice(isolated_home: Path) -> None:
    text = (ROOT / "docs" / "cli.md").read_text()
    row = next(line for line in text.split("## Exit codes", 1)[1].splitlines() if line.startswith("| 2 |"))
    assert row.endswith("`--by`, `--sort`, `list --limit` or `tokens --limit` given twice with different values |")
    for command in ("list", "tokens"):
        result = runner.invoke(app, ["--demo", command, "-n", "5", "-n", "7"])
        assert result.exit_code == 2
        assert result.stderr.startswith("error: --limit takes one number, not 2 (5, 7)")

