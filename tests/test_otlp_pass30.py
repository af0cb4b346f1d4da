"""What a format never records is said once for the whole export, and ``--strict`` passes on it.

Cursor transcripts carry no time for a tool call (and for a prompt only in an optional
wrapper): an export gave every Cursor session two warnings ("14 tool calls without a
timestamp were left out", "no prompt has a timestamp…"), 200 for the bench's 100 Cursor
sessions, and ``agentscan --strict otlp`` could never pass on a home with Cursor in it.
Now one line per provider counts what was left out; a session whose own data lacks a
time (a Claude tool call with none) is still that session's warning, and fails ``--strict``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, tool, turn_ended, user, write_transcript
from otlp_builders import claude_untimed_tool, otlp
from agentscan.otlp import parallel
from agentscan.otlp.gaps import Gaps, Untimed
from agentscan.toolkit import cores

SLUG = "home-dev-shop"
CURSOR = [f"{n:08x}-aaaa-4000-8000-000000000001" for n in range(3)]
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def cursor_sessions(home: Path, ids: list[str] = CURSOR, *, with_db: bool = True) -> None:
    """Each: one prompt with no time, a response asking for two tool calls (Cursor records no time
    for either), the LLM calls timed by the state DB's bubbles."""
    for composer in ids:
        write_transcript(home, SLUG, composer, [
            user("refactor the cart"),
            assistant("Reading.", tool("Read", path="/src/cart.py"), tool("Grep", pattern="total")),
            turn_ended(),
        ])
    if with_db:
        make_state_db(
            state_db_path(home),
            composers=[composer_data(c, created=T0, updated=T0 + 60_000, model="claude-4.5-sonnet", bubbles=["b1", "b2"])
                       for c in ids],
            bubbles={c: [bubble("b1", 1, "refactor the cart"),
                         bubble("b2", 2, "Reading.", tokens=(100, 40), created="2026-07-25T17:20:05Z")] for c in ids},
        )


def export(tmp_path: Path, *args: str, name: str = "t.jsonl") -> tuple[int, dict]:
    result = otlp("--output", str(tmp_path / name), "--json", *args)
    return result.exit_code, orjson.loads(result.stdout)


def test_cursor_sessions_say_one_line_for_the_whole_export(isolated_home: Path, tmp_path: Path) -> None:
    cursor_sessions(isolated_home)
    code, doc = export(tmp_path)
    assert code == 0 and doc["sessions"] == 3 and doc["spans"] > 0
    # A note, not a warning (pass 39): the format's shape, not bad input.
    assert doc["warnings"] == []
    assert doc["notes"] == ["3 Cursor sessions have no per-call times (the format records none): "
                            "6 tool calls left out of the traces, 3 sessions exported as one turn each"]


def test_strict_passes_on_what_the_format_does_not_record(isolated_home: Path, tmp_path: Path) -> None:
    cursor_sessions(isolated_home)
    from otlp_builders import runner
    from agentscan.cli import app

    result = runner.invoke(app, ["--strict", "otlp", "-o", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 0, result.output
    # Still said, once, as a note (--json: ``notes``).
    assert result.stderr.splitlines() == [
        "note: otlp: 3 Cursor sessions have no per-call times (the format records none): "
        "6 tool calls left out of the traces, 3 sessions exported as one turn each"]
    quiet = runner.invoke(app, ["--strict", "--quiet", "otlp", "-o", str(tmp_path / "t.jsonl")])
    assert quiet.exit_code == 0 and quiet.output == ""
    code, _ = export(tmp_path, name="j.jsonl")
    assert code == 0
    from_json = runner.invoke(app, ["--strict", "otlp", "-o", str(tmp_path / "j.jsonl"), "--json"])
    assert from_json.exit_code == 0


def test_a_cursor_session_with_no_time_at_all_is_counted_too(isolated_home: Path, tmp_path: Path) -> None:
    cursor_sessions(isolated_home, CURSOR[:1], with_db=False)  # no state DB: nothing has a time
    code, doc = export(tmp_path, name="none.jsonl")
    assert code == 0 and doc["spans"] == 0
    assert doc["notes"] == [
        "1 Cursor session has no per-call times (the format records none): "
        "2 tool calls left out of the traces, 1 session with no spans at all"]


def test_a_session_s_own_missing_time_stays_its_warning_and_fails_strict(isolated_home: Path, tmp_path: Path) -> None:
    cursor_sessions(isolated_home)
    claude_untimed_tool(isolated_home)
    from otlp_builders import runner
    from agentscan.cli import app

    result = runner.invoke(app, ["--strict", "--verbose", "otlp", "-o", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    own = [line for line in lines if "1 tool call without a timestamp was left out" in line]
    assert len(own) == 1 and "0a0b0c0d-1111-4222-8333-444444444444.jsonl" in own[0]
    assert sum("Cursor sessions have no per-call times" in line for line in lines) == 1
    assert "1 warning" in lines[-1]  # --strict counts the Claude session's, not the summary
    code, doc = export(tmp_path, name="j.jsonl")
    assert code == 0
    said = [f"warning: {w['path']}: {w['message']}" for w in doc["warnings"]]
    assert said == [line for line in lines if line.startswith("warning: ")]  # the same, in the same order


def test_untimed_splits_by_what_the_provider_s_format_records() -> None:
    untimed = Untimed(tools=4, llm_calls=1, one_turn=True)
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.providers.cursor.provider import CursorProvider

    assert untimed.split(CursorProvider.records_call_times) == (Untimed(tools=4, one_turn=True), Untimed(llm_calls=1))
    assert untimed.split(ClaudeProvider.records_call_times) == (Untimed(), untimed)
    assert Untimed(llm_calls=1).notes() == ["1 LLM call without a timestamp was left out"]
    sums = Gaps()
    sums.add("cursor", Untimed())  # nothing missing: not a session to count
    assert sums.lines(str.title) == []
    sums.add("cursor", Untimed(tools=1, one_turn=True))
    assert sums.lines(str.title) == [
        "1 Cursor session has no per-call times (the format records none): 1 tool call left out of the traces, "
        "1 session exported as one turn"]


SESSIONS = [f"{n:08x}-1111-4222-8333-444444444444" for n in range(parallel.MIN_SESSIONS + 2)]


def test_what_workers_count_comes_back_the_same_as_in_one_process(isolated_home: Path, tmp_path: Path, pools: list[int],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Cursor sessions are made in this process; Claude's travel. Say Claude's format had no call
    # times, so the sums made in the workers must come back for the line to count them.
    from agentscan.providers.claude.provider import ClaudeProvider

    monkeypatch.setattr(ClaudeProvider, "records_call_times", False)
    for number, session in enumerate(SESSIONS):
        claude_untimed_tool(isolated_home, session, number)
    cursor_sessions(isolated_home)
    code, together = export(tmp_path, name="together.jsonl")
    assert code == 0 and pools and max(pools) == len(SESSIONS)
    assert together["notes"] == [
        f"{len(SESSIONS)} Claude Code sessions have no per-call times (the format records none): "
        f"{len(SESSIONS)} tool calls left out of the traces",
        "3 Cursor sessions have no per-call times (the format records none): "
        "6 tool calls left out of the traces, 3 sessions exported as one turn each"]
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "another-cache"))
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 0)
    del pools[:]
    code, alone = export(tmp_path, name="alone.jsonl")
    assert code == 0 and not pools
    assert (tmp_path / "together.jsonl").read_bytes() == (tmp_path / "alone.jsonl").read_bytes()
    together.pop("path"), alone.pop("path")
    assert together == alone


def test_the_demo_s_first_export_shows_a_note_not_a_warning(isolated_home: Path, tmp_path: Path) -> None:
    # pass 39: a new user's first command (`agentscan --demo otlp -o FILE`) began with "warning:".
    from otlp_builders import runner
    from agentscan.cli import app

    result = runner.invoke(app, ["--demo", "otlp", "-o", str(tmp_path / "demo.jsonl")])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("note: otlp: ")], result.stderr
