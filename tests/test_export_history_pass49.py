"""Pass 49: part of a session deleted (Claude Code's cleanup goes by each file's age) kept
that part's spend out of the index at the next export, silently: its ``token_days`` were
rewritten from what was left on disk and its ``subagents`` row deleted.  The index is where
history is kept: a run whose transcript left the disk keeps its rows, marked ``gone_at``;
any other loss is said."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from builders import (
    claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke,
)

S = "11111111-0000-4000-8000-000000000049"
SID = f"claude:{S}"


def lay_out(home: Path, *, sub_calls: int = 1) -> tuple[Path, Path]:
    main = claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00.000Z", "main task"),
        claude_assistant(S, "2026-11-01T10:01:00.000Z", msg_id="m1", request_id="r1", usage=claude_usage(1000, 100)),
    ])
    sub = claude_subagent_file(home, S, "sub1", [
        claude_user(S, "2026-11-01T10:00:30.000Z", "sub task", sidechain=True),
        *(claude_assistant(S, f"2026-11-01T10:00:4{n}.000Z", msg_id=f"s{n}", request_id=f"sr{n}",
                           usage=claude_usage(50, 5), sidechain=True) for n in range(sub_calls)),
    ])
    return main, sub


def export(out: Path) -> dict:
    result = invoke("export", "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def days(out: Path) -> list[tuple]:
    with sqlite3.connect(out) as conn:
        return conn.execute("SELECT subagent_id, tokens_total, gone_at IS NOT NULL FROM token_days "
                            "ORDER BY subagent_id").fetchall()


def subagents(out: Path) -> list[tuple]:
    with sqlite3.connect(out) as conn:
        return conn.execute("SELECT subagent_id, tokens_total, gone_at IS NOT NULL FROM subagents").fetchall()


def test_a_deleted_subagent_transcript_keeps_its_spend(isolated_home: Path, tmp_path: Path) -> None:
    main, sub = lay_out(isolated_home)
    out = tmp_path / "idx.sqlite"
    export(out)
    assert days(out) == [("", 1100, 0), ("sub1", 55, 0)] and subagents(out) == [("sub1", 55, 0)]
    sub.unlink()
    doc = export(out)
    assert doc["warnings"] == [] and doc["gone"] == 0
    assert days(out) == [("", 1100, 0), ("sub1", 55, 1)] and subagents(out) == [("sub1", 55, 1)]
    export(out)  # and on every later run
    assert days(out) == [("", 1100, 0), ("sub1", 55, 1)] and subagents(out) == [("sub1", 55, 1)]
    with sqlite3.connect(out) as conn:  # the session is on disk, its row written from it
        assert conn.execute("SELECT tokens_total, subagents, gone_at FROM sessions").fetchone() == (1100, 0, None)


def test_a_restored_transcript_is_written_anew_not_counted_twice(isolated_home: Path, tmp_path: Path) -> None:
    main, sub = lay_out(isolated_home)
    out = tmp_path / "idx.sqlite"
    export(out)
    kept = sub.read_bytes()
    sub.unlink()
    export(out)
    sub.write_bytes(kept)
    export(out)
    assert days(out) == [("", 1100, 0), ("sub1", 55, 0)] and subagents(out) == [("sub1", 55, 0)]


def test_a_deleted_main_transcript_keeps_the_sessions_own_spend(isolated_home: Path, tmp_path: Path) -> None:
    main, sub = lay_out(isolated_home)
    out = tmp_path / "idx.sqlite"
    export(out)
    main.unlink()
    doc = export(out)
    assert doc["warnings"] == [] and doc["gone"] == 0
    assert days(out) == [("", 1100, 1), ("sub1", 55, 0)]
    export(out)
    assert days(out) == [("", 1100, 1), ("sub1", 55, 0)]


def test_a_loss_that_is_not_a_deleted_transcript_is_said(isolated_home: Path, tmp_path: Path) -> None:
    """A subagent's transcript cut short (two calls, then one): the calls are gone from disk,
    but its run is not, so its rows hold what is on disk, and the run says what was lost."""
    lay_out(isolated_home, sub_calls=2)
    out = tmp_path / "idx.sqlite"
    export(out)
    assert days(out) == [("", 1100, 0), ("sub1", 110, 0)]
    lay_out(isolated_home, sub_calls=1)
    doc = export(out)
    assert days(out) == [("", 1100, 0), ("sub1", 55, 0)]
    assert [w["message"] for w in doc["warnings"]] == [
        f"{SID}: its token_days lost 55 tokens, $0.0002 this run: its files now hold fewer of its calls than the "
        "index did (part of a transcript deleted, or calls now counted in another session); they hold what is on "
        "disk now"]


def test_a_run_whose_file_is_there_is_not_kept_as_gone(isolated_home: Path, tmp_path: Path) -> None:
    """Its calls gone, its file not: nothing says its transcript went (a newer agentscan may
    count the calls under another run's name, or in another session), so keeping its rows
    could count them twice.  Replaced, and said."""
    main, sub = lay_out(isolated_home)
    out = tmp_path / "idx.sqlite"
    export(out)
    lay_out(isolated_home, sub_calls=0)
    doc = export(out)
    assert ("sub1", 55, 1) not in days(out)
    assert [w["message"].split(":")[0:2] for w in doc["warnings"]] == [["claude", S]]


def test_which_vanished_runs_are_kept() -> None:
    from agentscan.export.children import OWN, Before, _to_keep

    gone = "/nonexistent/49/main.jsonl"
    here = str(Path(__file__))
    assert _to_keep([OWN], Before(gone, 0), 0, set()) == [OWN]
    assert _to_keep([OWN], Before(here, 0), 0, set()) == []  # its transcript is there: moved, not deleted
    assert _to_keep(["a", "b"], Before(here, 3), 1, set()) == ["a", "b"]
    assert _to_keep(["a", "b"], Before(here, 3), 2, set()) == []  # one fewer subagent, two runs vanished
    assert _to_keep(["a"], Before(here, 1), 0, {"a"}) == []  # another session counts it now
    assert _to_keep(["a"], Before(here, 1), None, set()) == []  # a session whose days alone were written
