"""A heavy user's mends (pass 45h): a note wrapped between an option and its value (``--since`` /
``2026-11-01``) was copied half; the cut table's note said "keeps the newest week's"; ``export
-o out.jsonl`` asked for a ``--format`` its extension says; ``show`` of an id that matches
nothing sent a user of 1,500 sessions to ``list --all``.  And ``--json`` says nothing on stderr
of what its document carries (the sessions that recorded no usage: ``"tokens": null``)."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, tokens_notes
from agentscan.cli.term import VALUED, wrap
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()

#: the note under a cut table as it was said (pass 45), which a terminal of 100 columns wrapped
#: between ``--since`` and its date
OLD_CUT_NOTE = ("25 of 1,500 sessions, newest first; the other 1,475 summed in one line: --all lists each, --since "
                "2026-11-01 keeps the newest week's, --by day gives a line a day")
#: an option at a line's end whose value went to the next line
SPLIT = re.compile(rf"(?<![\w-])(?:{'|'.join(VALUED)})$")


# --- 1. a note never wraps between an option and its value -----------------------------------------


@pytest.mark.parametrize("width", range(30, 161))
def test_a_note_keeps_each_option_with_its_value(width: int) -> None:
    text = OLD_CUT_NOTE + "; or --since 2026-10-10 --tz Pacific/Kiritimati, -p claude --sort cost, export -o - -f csv"
    lines = wrap(text, width)
    assert not [line for line in lines if SPLIT.search(line)], lines
    assert " ".join(line.strip() for line in lines) == text  # nothing lost, nothing added
    run = "--since 2026-10-10 --tz Pacific/Kiritimati"
    if width - 2 >= len(run) + 1:  # a run of them too, where it fits on a line (with its comma)
        assert any(run in line for line in lines), lines
    else:  # else each option with its value, never a word cut
        assert any(line.strip().startswith("--tz Pacific/Kiritimati") for line in lines), lines


def test_the_persona_s_note_at_100_columns() -> None:
    assert wrap(OLD_CUT_NOTE, 100) == [
        "25 of 1,500 sessions, newest first; the other 1,475 summed in one line: --all lists each,",
        "  --since 2026-11-01 keeps the newest week's, --by day gives a line a day"]


def test_a_flag_and_the_word_after_it_may_part() -> None:
    # ``--all`` takes no value: "lists" is prose, and the line may end after the flag.
    assert wrap("aaaa bbbb --all lists each", 15) == ["aaaa bbbb --all", "  lists each"]
    # Nor is an option glued across a comma to the next one.
    assert wrap("xxxxxxxxxx --by day, --tz utc", 22) == ["xxxxxxxxxx --by day,", "  --tz utc"]


def _native(index: int) -> str:
    return f"{index:08x}-4545-4000-8000-000000000000"


def _home(home: Path, sessions: int = 30) -> None:
    for index in range(sessions):
        native = _native(index)
        ts = f"2026-11-{1 + index:02d}T10:00:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, ts, f"task {index}"),
            claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}",
                             usage=claude_usage(1000 + index, 10))], mtime=1_790_000_000 + index * 86_400)


def test_the_cut_table_s_note_in_plain_words_wrapped_whole(isolated_home: Path, tty: Callable[..., None],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    tty(100)
    result = runner.invoke(app, ["tokens", "--tz", "utc"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-2:] == [
        "25 of 30 sessions, newest first; the other 5 summed in one line: --all lists each,",
        "  --since 2026-11-24 --tz UTC shows the last week's, --by day sums each day"]
    # Under a long table that nothing cut (``--all``), the same words.
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 5)
    every = runner.invoke(app, ["tokens", "--tz", "utc", "--all"])
    assert every.stderr.splitlines()[-2:] == [
        "30 sessions above, newest first: --since 2026-11-24 --tz UTC shows the last week's, --by day sums",
        "  each day"]


# --- 2. --json says on stderr none of what its document carries -----------------------------------


@pytest.mark.parametrize("args", [
    ["tokens", "--json"], ["tokens", "--json", "--by", "model"], ["tokens", "--json", "-p", "cursor"],
    ["list", "--json"], ["list", "--json", "--all"], ["list", "--json", "-p", "cursor"],
    ["show", "cursor:a4b8c2d6", "--json"],
])
def test_json_prints_no_hint_on_a_terminal_s_stderr(isolated_home: Path, tty: Callable[..., None],
                                                    args: list[str]) -> None:
    # The demo's two Cursor sessions recorded no usage: the table names them under it; the
    # document has them, ``"tokens": null``, and stderr (a terminal, stdout piped to jq) is quiet.
    tty(100)
    result = runner.invoke(app, ["--demo", *args])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    document = orjson.loads(result.stdout)
    assert document["warnings"] == []
    if args[:2] == ["tokens", "--json"] and len(args) == 2:
        assert sum(row["tokens"] is None for row in document["rows"]) == 2
        table = runner.invoke(app, ["--demo", "tokens"])
        assert "(+ 2 sessions that recorded no usage, not counted: " in table.stdout


# --- 3. export's format from --output's extension ----------------------------------------------------


@pytest.mark.parametrize(("name", "fmt"), [
    ("out.jsonl", "jsonl"), ("out.ndjson", "jsonl"), ("out.csv", "csv"), ("OUT.CSV", "csv"), ("out.JsonL", "jsonl"),
    ("out.sqlite", "sqlite"), ("out.sqlite3", "sqlite"), ("out.db", "sqlite"), ("out.DB", "sqlite"),
])
def test_export_reads_the_format_from_the_output_s_extension(isolated_home: Path, tmp_path: Path, name: str,
                                                               fmt: str) -> None:
    target = tmp_path / name
    result = runner.invoke(app, ["--demo", "export", "-o", str(target), "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["format"] == fmt
    data = target.read_bytes()
    if fmt == "sqlite":
        assert data.startswith(b"SQLite format 3\x00")
        with closing(sqlite3.connect(target)) as db:
            assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 11
    elif fmt == "csv":
        assert data.startswith(b"id,provider,")
    else:
        assert all(orjson.loads(line)["id"] for line in data.splitlines())


def test_a_format_given_wins_over_the_extension(isolated_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["--demo", "export", "-f", "csv", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_bytes().startswith(b"id,provider,")
    assert result.stdout.endswith(f"to {target} (csv)\n")


NO_FORMAT = ("error: give a --format (-f): jsonl, csv or sqlite, or an --output ending in .jsonl, .ndjson, .csv, "
             ".sqlite, .sqlite3 or .db")


#: stdout: no extension says a format there, and SQLite cannot go there (pass 45x)
NO_FORMAT_FOR_STDOUT = ("error: stdout (no --output, or -) needs a --format (-f): jsonl or csv (sqlite needs "
                        "--output PATH)")


@pytest.mark.parametrize(("args", "error"), [([], NO_FORMAT_FOR_STDOUT), (["-o", "-"], NO_FORMAT_FOR_STDOUT),
                                             (["-o", "out.txt"], NO_FORMAT), (["-o", "out"], NO_FORMAT),
                                             (["-o", "jsonl"], NO_FORMAT), (["-o", "out.jsonl.gz"], NO_FORMAT)])
def test_an_output_that_says_no_format_still_asks_for_one(isolated_home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                          error: str) -> None:
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    result = runner.invoke(app, ["--demo", "export", *args])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [error, "Try 'agentscan export --help' for help."]
    assert result.stdout == "" and list(here.iterdir()) == []


# --- 4. show of an id that matches nothing --------------------------------------------------------


@pytest.mark.parametrize(("args", "hint"), [
    # (in a home of no session, where to look instead: tests/test_not_found_empty_pass46.py)
    (["show", "deadbeef"], "no sessions were found in this home: `agentscan doctor` shows where agentscan looked"),
    (["--demo", "show", "deadbeef"], "hint: `agentscan --demo list --grep TEXT` finds it by title, cwd, model or path "
                                     "(`--all` lists every id)"),
])
def test_show_of_no_session_points_at_list_grep(isolated_home: Path, args: list[str], hint: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches 'deadbeef'", hint]
