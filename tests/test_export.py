"""export: atomic files, an upserted SQLite index that never forgets, locks."""

from __future__ import annotations

import csv
import re
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.export.rows import CSV_COLUMNS, DAY_CSV_COLUMNS
from agentscan.errors import ExportFailed
from agentscan.export.run import run_export
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

runner = CliRunner()
S1 = "f1f1f1f1-1111-4222-8333-444444444444"
S2 = "f2f2f2f2-1111-4222-8333-444444444444"
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S1, [
        claude_user(S1, "2026-11-01T23:30:00Z", "first, with a comma"),
        claude_assistant(S1, "2026-11-01T23:30:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10)),
        claude_assistant(S1, "2026-11-02T00:30:01Z", msg_id="m2", request_id="r2", usage=claude_usage(2, 20)),
    ])
    claude_session_file(isolated_home, S2, [
        claude_user(S2, "2026-11-03T10:00:00Z", 'second "quoted"\nline'),
        claude_assistant(S2, "2026-11-03T10:00:01Z", msg_id="m3", request_id="r3", usage=claude_usage(3, 30)),
    ])
    claude_subagent_file(isolated_home, S2, "helper", [
        claude_assistant(S2, "2026-11-03T10:00:05Z", msg_id="m4", request_id="r4", usage=claude_usage(4, 40), sidechain=True),
    ])
    return isolated_home


def export(tmp_path: Path, fmt: str, *extra: str) -> Path:
    out = tmp_path / f"index.{fmt}"
    result = runner.invoke(app, ["export", "--format", fmt, "--output", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


def test_jsonl_round_trips(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path, "jsonl")
    lines = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    listed = orjson.loads(runner.invoke(app, ["list", "--json"]).stdout)["sessions"]
    assert [{k: v for k, v in line.items() if k != "schema"} for line in lines] == listed
    assert {line["schema"] for line in lines} == {"agentscan.session/1"}


def test_csv_round_trips_with_fixed_columns(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path, "csv")
    with out.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == CSV_COLUMNS
        rows = {row["id"]: row for row in reader}
    second = rows[f"claude:{S2}"]
    assert second["title"] == 'second "quoted" line'
    assert (second["tokens_input"], second["tokens_output"], second["tokens_total"]) == ("7", "70", "77")
    assert rows[f"claude:{S1}"]["git_branch"] == "main"


def test_sqlite_index_tables_and_gone_sessions(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path, "sqlite")
    conn = sqlite3.connect(out)
    try:
        first = dict(conn.execute("SELECT id, first_seen_at FROM sessions").fetchall())
        assert set(first) == {f"claude:{S1}", f"claude:{S2}"}
        assert conn.execute("SELECT subagent_id, tokens_total FROM subagents").fetchall() == [("helper", 44)]
        days = conn.execute("SELECT session_id, day, subagent_id, tokens_total FROM token_days ORDER BY 1, 2, 3").fetchall()
        assert days == [(f"claude:{S1}", "2026-11-01", "", 11), (f"claude:{S1}", "2026-11-02", "", 22),
                        (f"claude:{S2}", "2026-11-03", "", 33), (f"claude:{S2}", "2026-11-03", "helper", 44)]
        fts = conn.execute("SELECT s.id FROM sessions s JOIN sessions_fts f ON s.rowid = f.rowid "
                           "WHERE sessions_fts MATCH 'comma'").fetchall()
        assert fts == [(f"claude:{S1}",)]
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(sessions)")}
        assert {"idx_sessions_updated_at", "idx_sessions_provider", "idx_sessions_cwd"} <= indexes
    finally:
        conn.close()
    # The transcript is deleted: its row stays, with gone_at.
    (home / ".claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl").unlink()
    export(tmp_path, "sqlite")
    conn = sqlite3.connect(out)
    try:
        rows = {r[0]: r[1:] for r in conn.execute("SELECT id, gone_at, first_seen_at FROM sessions")}
        assert rows[f"claude:{S1}"][0] is not None
        assert rows[f"claude:{S1}"][1] == first[f"claude:{S1}"]
        assert rows[f"claude:{S2}"][0] is None
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_provider_scoped_export_does_not_mark_others_gone(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path, "sqlite")
    export(tmp_path, "sqlite", "--provider", "gemini")
    conn = sqlite3.connect(out)
    try:
        assert conn.execute("SELECT count(*) FROM sessions WHERE gone_at IS NOT NULL").fetchone() == (0,)
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_failure_before_rename_leaves_previous_file(home: Path, tmp_path: Path, fmt: str) -> None:
    out = export(tmp_path, fmt)
    before = out.read_bytes()

    def crash() -> None:
        raise OSError(28, "No space left on device")

    with Scanner(use_cache=False) as scanner, pytest.raises(ExportFailed, match="No space left"):
        run_export(scanner, fmt, out, filters=ListFilter(), before_rename=crash)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".index")) == []


def test_quiet_prints_nothing(home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "-f", "jsonl", "-o", str(tmp_path / "x.jsonl"), "--quiet"])
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""


def test_unwritable_output_exits_one(home: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "-f", "jsonl", "-o", str(tmp_path / "missing" / "x.jsonl")])
    assert result.exit_code == 1 and "does not exist" in result.stderr


def test_held_lock_makes_a_second_run_exit_one(home: Path, tmp_path: Path) -> None:
    from filelock import FileLock

    import os

    from agentscan.export.locks import lock_path

    out = tmp_path / "index.sqlite"
    lock = lock_path(out, os.environ)
    lock.parent.mkdir(parents=True)
    with FileLock(str(lock)):
        result = runner.invoke(app, ["export", "-f", "sqlite", "-o", str(out), "--lock-timeout", "0.2"])
    assert result.exit_code == 1 and "another agentscan export" in result.stderr
    # what to do about it: wait longer
    assert "gave up after 0.2 s (--lock-timeout S waits longer)" in " ".join(result.stderr.split())


def test_two_concurrent_sqlite_exports(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "index.sqlite"
    command = [sys.executable, "-m", "agentscan", "export", "-f", "sqlite", "-o", str(out), "--quiet"]
    procs = [subprocess.Popen(command, stderr=subprocess.PIPE) for _ in range(2)]
    codes = []
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        codes.append(proc.returncode)
        assert b"Traceback" not in err
    assert all(code in (0, 1) for code in codes) and 0 in codes
    conn = sqlite3.connect(out)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (2,)
    finally:
        conn.close()


def test_cron_doc_lists_the_csv_columns_and_tables() -> None:
    text = (DOCS / "cron.md").read_text()
    block = text.split("<!-- csv-columns -->")[1].split("<!-- /csv-columns -->")[0]
    assert tuple(re.findall(r"^\| `([a-z_]+)` \|", block, flags=re.MULTILINE)) == CSV_COLUMNS
    tables = text.split("<!-- sqlite-tables -->")[1].split("<!-- /sqlite-tables -->")[0]
    for table in ("sessions", "subagents", "token_days", "sessions_fts"):
        assert f"`{table}`" in tables


# --- --days: usage per session, UTC day, model and run ---------------------------------


def _sonnet(inp: int, out: int) -> float:
    return float((Decimal(inp) * 3 + Decimal(out) * 15) / 1_000_000)  # Sonnet 4.5: $3 in, $15 out per million


def test_days_csv_and_jsonl_hold_what_sqlite_token_days_holds(home: Path, tmp_path: Path) -> None:
    expected = [  # (session, UTC day, subagent, input, output): S1 crosses midnight UTC
        (f"claude:{S1}", "2026-11-01", "", 1, 10), (f"claude:{S1}", "2026-11-02", "", 2, 20),
        (f"claude:{S2}", "2026-11-03", "", 3, 30), (f"claude:{S2}", "2026-11-03", "helper", 4, 40),
    ]
    out = tmp_path / "days.csv"
    result = runner.invoke(app, ["export", "-f", "csv", "--days", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert (doc["sessions"], doc["usage_days"]) == (2, 4)
    with out.open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == DAY_CSV_COLUMNS
        rows = list(reader)
    assert [(r["session_id"], r["day"], r["subagent_id"], int(r["tokens_input"]), int(r["tokens_output"])) for r in rows] == expected
    assert {r["model"] for r in rows} == {"claude-sonnet-4-5-20250929"}
    assert [float(r["cost_usd"]) for r in rows] == [_sonnet(i, o) for *_, i, o in expected]
    assert all(int(r["tokens_total"]) == int(r["tokens_input"]) + int(r["tokens_output"]) for r in rows)

    lines = [orjson.loads(line) for line in export(tmp_path, "jsonl", "--days").read_bytes().splitlines()]
    assert {line["schema"] for line in lines} == {"agentscan.usage_day/1"}
    assert [(d["session_id"], d["day"], d["subagent_id"] or "", d["tokens"]["input"], d["tokens"]["output"]) for d in lines] == expected
    assert lines[3]["subagent_id"] == "helper" and lines[0]["subagent_id"] is None
    assert [d["cost_usd"] for d in lines] == [_sonnet(i, o) for *_, i, o in expected]

    conn = sqlite3.connect(export(tmp_path, "sqlite"))
    try:
        table = conn.execute("SELECT session_id, day, model, subagent_id, tokens_input, tokens_cache_read, tokens_cache_write,"
                             " tokens_output, tokens_reasoning, tokens_total, cost_usd FROM token_days"
                             " ORDER BY day, session_id, model, subagent_id").fetchall()
    finally:
        conn.close()
    as_csv = [tuple(int(v) if k.startswith("tokens_") else (float(v) if k == "cost_usd" else v) for k, v in r.items()) for r in rows]
    assert table == as_csv


def test_days_to_stdout_and_not_for_sqlite(home: Path, tmp_path: Path) -> None:
    streamed = runner.invoke(app, ["export", "-f", "jsonl", "--days", "-o", "-"])
    assert streamed.exit_code == 0
    assert len(streamed.stdout.splitlines()) == 4
    refused = runner.invoke(app, ["export", "-f", "sqlite", "--days", "-o", str(tmp_path / "x.sqlite")])
    assert refused.exit_code == 2 and "token_days" in refused.stderr
    assert not (tmp_path / "x.sqlite").exists()
    said = runner.invoke(app, ["export", "-f", "csv", "--days", "-o", str(tmp_path / "d.csv")])
    assert said.stdout.strip() == f"wrote 4 usage-day rows of 2 sessions to {tmp_path / 'd.csv'} (csv)"


@pytest.mark.parametrize("zone,days", [
    ("Asia/Kolkata", [("2026-11-02", 33), ("2026-11-03", 77)]),  # +05:30: S1's two calls on one day
    ("America/Los_Angeles", [("2026-11-01", 33), ("2026-11-03", 77)]),
    ("UTC", [("2026-11-01", 11), ("2026-11-02", 22), ("2026-11-03", 77)]),
])
def test_days_in_a_zone_are_the_days_tokens_gives_in_it(home: Path, zone: str, days: list[tuple[str, int]]) -> None:
    streamed = runner.invoke(app, ["export", "-f", "jsonl", "--days", "--tz", zone, "-o", "-"])
    assert streamed.exit_code == 0, streamed.output
    totals: dict[str, int] = {}
    for line in streamed.stdout.splitlines():
        record = orjson.loads(line)
        totals[record["day"]] = totals.get(record["day"], 0) + record["tokens"]["total"]
    assert sorted(totals.items()) == days
    by_day = orjson.loads(runner.invoke(app, ["tokens", "--by", "day", "--tz", zone, "--json"]).stdout)
    assert {row["key"]: row["tokens"]["total"] for row in by_day["rows"]} == totals


def test_a_zone_is_for_days_alone(home: Path, tmp_path: Path) -> None:
    for fmt in ("sqlite", "csv"):  # SQLite's token_days, and a session's times, are UTC
        refused = runner.invoke(app, ["export", "-f", fmt, "--tz", "Asia/Kolkata", "-o", str(tmp_path / f"x.{fmt}")])
        assert refused.exit_code == 2 and "--tz is for --days" in refused.stderr
        assert not (tmp_path / f"x.{fmt}").exists()
    unknown = runner.invoke(app, ["export", "-f", "csv", "--days", "--tz", "Mars/Base", "-o", "-"])
    assert unknown.exit_code == 2 and "unknown time zone" in unknown.stderr


def test_a_bare_since_date_is_read_in_the_zone(home: Path) -> None:
    # S1's last call, 2026-11-02T00:30Z, is still 2026-11-01 in Los Angeles: a session
    # updated since the 2nd there is S2 alone; in Kolkata, S1 too.
    for zone, expected in (("America/Los_Angeles", 1), ("Asia/Kolkata", 2)):
        result = runner.invoke(app, ["export", "-f", "jsonl", "--since", "2026-11-02", "--days", "--tz", zone, "-o", "-"])
        assert result.exit_code == 0, result.output
        assert len({orjson.loads(line)["session_id"] for line in result.stdout.splitlines()}) == expected


def test_cron_doc_lists_the_days_csv_columns() -> None:
    text = (DOCS / "cron.md").read_text()
    block = text.split("<!-- day-csv-columns -->")[1].split("<!-- /day-csv-columns -->")[0]
    assert tuple(re.findall(r"^\| `([a-z_]+)` \|", block, flags=re.MULTILINE)) == DAY_CSV_COLUMNS
