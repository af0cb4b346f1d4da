"""No silent ceilings, self-explaining empty results, and the small things a new user trips on."""

from __future__ import annotations

import csv
import io
import os
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOKS_OPTIONAL
from builders import (
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
)

runner = CliRunner()
BASE = 1_780_000_000  # 2026-05-28T20:26:40Z
NOW = 1_790_000_000  # 2026-09-21: the time a backup was copied


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sid(index: int) -> str:
    return f"{index:08x}-0000-4000-8000-{index:012x}"


def write_session(home: Path, index: int, hour: float, *, mtime: float | None = None, cwd: str = "/work/app",
                  title: str | None = None, tokens: tuple[int, int] = (5, 1), model: str = "claude-sonnet-4-5") -> str:
    native = sid(index)
    ts = iso(BASE + hour * 3600)
    claude_session_file(home, native, [
        claude_user(native, ts, title or f"prompt {index}", cwd=cwd),
        claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}",
                         usage=claude_usage(*tokens), cwd=cwd, model=model),
    ], mtime=BASE + hour * 3600 if mtime is None else mtime)
    return native


def run(*args: str, code: int = 0):
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def doc(*args: str) -> dict:
    return orjson.loads(run(*args, "--json").stdout)


# --- list --------------------------------------------------------------------


def test_more_sessions_than_shown_is_said_on_a_terminal_only(isolated_home: Path, tty) -> None:
    for index in range(30):
        write_session(isolated_home, index + 1, index)
    assert "--limit N or --all" not in run("list").stderr  # a pipe: nothing
    tty()
    result = run("list")
    assert len(result.stdout.splitlines()) == 26
    assert "25 of 30 sessions; --limit N or --all for more" in result.stderr
    assert "more" not in run("list", "--all").stderr
    assert "25 shown, more match" in run("list", "--cwd", "/work/app").stderr


def test_updated_is_the_newest_recorded_time_not_the_copy_time(isolated_home: Path) -> None:
    # A backup copied at NOW: every mtime is NOW, and in an order unrelated to the work.
    for index, hour in enumerate((5, 1, 9, 3, 7)):
        write_session(isolated_home, index + 1, hour, mtime=NOW + index)
    rows = doc("list")["sessions"]
    assert [row["updated_at"] for row in rows] == [iso(BASE + h * 3600).replace("Z", ".000Z") for h in (9, 7, 5, 3, 1)]
    assert [row["native_id"] for row in doc("list", "-n", "2")["sessions"]] == [sid(3), sid(5)]
    since = iso(BASE + 4 * 3600)
    assert {row["native_id"] for row in doc("list", "--since", since)["sessions"]} == {sid(1), sid(3), sid(5)}


def test_the_mtime_is_only_a_fallback_for_a_session_that_recorded_no_time(isolated_home: Path) -> None:
    native = sid(1)
    record = claude_user(native, "", "no time recorded")
    del record["timestamp"]
    claude_session_file(isolated_home, native, [record], mtime=BASE)
    assert doc("list")["sessions"][0]["updated_at"] == iso(BASE).replace("Z", ".000Z")


def test_relative_cwd_is_resolved_against_the_current_directory(isolated_home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "work" / "api"
    (project / "sub").mkdir(parents=True)
    write_session(isolated_home, 1, 1, cwd=str(project))
    write_session(isolated_home, 2, 2, cwd=str(project / "sub"))
    write_session(isolated_home, 3, 3, cwd=str(tmp_path / "work" / "web"))
    monkeypatch.chdir(project)
    assert {row["native_id"] for row in doc("list", "--cwd", ".")["sessions"]} == {sid(1), sid(2)}
    assert {row["native_id"] for row in doc("list", "--cwd", "sub")["sessions"]} == {sid(2)}
    assert len(doc("list", "--cwd", "..")["sessions"]) == 3


def test_an_empty_result_names_the_filter_that_emptied_it(isolated_home: Path) -> None:
    write_session(isolated_home, 1, 1, cwd="/work/app")
    write_session(isolated_home, 2, 2, cwd="/work/web")
    cwd = run("list", "--cwd", "/elsewhere")
    assert cwd.stdout == "" and "no sessions under /elsewhere (it does not exist; 2 elsewhere)" in cwd.stderr
    assert "doctor" not in cwd.stderr
    since = run("list", "--since", "2027-01-01").stderr
    assert "no sessions updated since 2027-01-01" in since and "2 older" in since
    assert "the newest was updated" in since
    grep = run("list", "--grep", "zebra").stderr
    assert "contains 'zebra' (2 searched)" in grep
    provider = run("list", "-p", "codex").stderr
    assert "no Codex CLI sessions found (2 sessions from other providers" in provider
    running = run("list", "--running").stderr
    assert running.startswith("no running sessions") or "need Linux" in running


def test_doctor_is_suggested_only_when_nothing_at_all_was_found(isolated_home: Path) -> None:
    result = run("list")
    assert result.stdout == "" and "no sessions found; `agentscan doctor`" in result.stderr


# --- show --------------------------------------------------------------------


def test_show_card_counts_agree_and_use_the_singular(isolated_home: Path) -> None:
    native = sid(7)
    ts = iso(BASE)
    claude_session_file(isolated_home, native, [
        claude_user(native, ts, "only prompt"),
        claude_assistant(native, ts, msg_id="m1", request_id="r1", usage=claude_usage(1, 1), blocks=[
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "t1", "name": "Task", "input": {"description": "look", "subagent_type": "Explore"}},
        ]),
    ])
    claude_subagent_file(isolated_home, native, "sub1", [
        claude_assistant(native, iso(BASE + 5), msg_id="m2", request_id="r2", usage=claude_usage(1, 1), sidechain=True,
                         blocks=[{"type": "tool_use", "id": "t2", "name": "Grep", "input": {"pattern": "needle"}}]),
    ])
    out = run("show", native).stdout
    assert "1 prompt, 1 response, 1 tool call (+1 by subagents)" in out
    assert "prompts (1)" in out and "tool calls (1 own, 1 by subagents)" in out
    assert "1 prompts" not in out
    full = run("show", native, "--full").stdout
    lines = full.splitlines()
    task = next(i for i, line in enumerate(lines) if line.endswith("Task  ?") or "  Task  " in line)
    assert lines[task + 2].startswith("    ↳ subagent sub1")
    assert "Grep" in lines[task + 3] and lines[task + 3].startswith("    ")
    order = [next(i for i, line in enumerate(lines) if marker in line) for marker in ("prompt", "response", "Task")]
    assert order == sorted(order)


def test_a_slash_command_is_the_first_prompt_and_the_title(isolated_home: Path) -> None:
    native = sid(8)
    wrapped = ("<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n"
               "<command-args>PR 12</command-args>")
    claude_session_file(isolated_home, native, [claude_user(native, iso(BASE), wrapped)])
    session = doc("show", native)["session"]
    assert session["title"] == "/review PR 12"
    assert [p["text"] for p in session["prompts"]] == ["/review PR 12"]
    assert session["counts"]["prompts"] == 1
    assert "1 prompt," in run("show", native).stdout


def test_show_full_goes_through_the_pager_on_a_terminal(isolated_home: Path, tty, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    native = write_session(isolated_home, 1, 1, title="page me")
    captured = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"cat > {captured}")
    tty(80)
    result = run("show", native, "--full")
    assert "page me" in captured.read_text() and "page me" not in result.stdout
    captured.unlink()
    assert "page me" in run("show", native, "--full", "--no-pager").stdout and not captured.exists()


def test_id_errors_are_specific(isolated_home: Path) -> None:
    write_session(isolated_home, 1, 1)
    assert "'abc' is too short: give at least 6 characters" in run("show", "abc", code=1).stderr
    assert "no session matches 'ffffffff'" in run("show", "ffffffff", code=1).stderr


# --- tokens ------------------------------------------------------------------


def test_until_a_date_includes_that_day_and_an_inverted_range_is_a_usage_error(isolated_home: Path) -> None:
    native = sid(1)
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-30T10:00:00Z", "hi"),
        claude_assistant(native, "2026-11-30T23:30:00Z", msg_id="a", request_id="a", usage=claude_usage(100, 0)),
        claude_assistant(native, "2026-12-01T00:30:00Z", msg_id="b", request_id="b", usage=claude_usage(10, 0)),
    ])
    assert doc("tokens", "--until", "2026-11-30", "--tz", "UTC")["total"]["total"] == 100
    assert doc("tokens", "--since", "2026-12-01", "--tz", "UTC")["total"]["total"] == 10
    # A date is a day in --tz: the 30th in Tokyo ended before either call was made (0 spent).
    assert doc("tokens", "--until", "2026-11-30", "--tz", "Asia/Tokyo")["total"]["total"] == 0
    result = run("tokens", "--since", "2026-12-02", "--until", "2026-11-01", code=2)
    assert "--since must be before --until" in result.stderr


def test_by_week_and_month(isolated_home: Path) -> None:
    native = sid(1)
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-29T10:00:00Z", "hi"),
        claude_assistant(native, "2026-11-29T10:00:00Z", msg_id="a", request_id="a", usage=claude_usage(1, 0)),  # Sunday
        claude_assistant(native, "2026-11-30T10:00:00Z", msg_id="b", request_id="b", usage=claude_usage(2, 0)),  # Monday
        claude_assistant(native, "2026-12-01T10:00:00Z", msg_id="c", request_id="c", usage=claude_usage(4, 0)),
    ])
    weeks = doc("tokens", "--by", "week", "--tz", "UTC")["rows"]
    assert [(row["key"], row["tokens"]["total"]) for row in weeks] == [("2026-W48", 1), ("2026-W49", 6)]
    months = doc("tokens", "--by", "month", "--tz", "UTC")["rows"]
    assert [(row["key"], row["tokens"]["total"]) for row in months] == [("2026-11", 3), ("2026-12", 4)]
    assert run("tokens", "--by", "fortnight", code=2)


def test_zero_rows_are_folded_and_unrecorded_usage_says_so(isolated_home: Path, tty) -> None:
    write_session(isolated_home, 1, 1, tokens=(5, 1), title="spent")
    write_session(isolated_home, 2, 2, tokens=(0, 0), model="<synthetic>", title="zero")
    native = sid(3)
    claude_session_file(isolated_home, native, [claude_user(native, iso(BASE + 3 * 3600), "nothing recorded")],
                        mtime=BASE + 3 * 3600)
    tty(200)
    out = run("tokens").stdout
    lines = out.splitlines()
    assert not any(line.startswith("claude:00000002") for line in lines)
    assert "(+ 1 session with 0 tokens: claude:00000002)" in out
    # A session that recorded no usage is named under the table, as a grouping names it (pass 40).
    assert not any(line.startswith("claude:00000003") for line in lines)
    assert any(line.startswith("(+ 1 session that recorded no usage, not counted: claude:00000003") for line in lines)
    models = run("tokens", "--by", "model").stdout
    # <synthetic> names no model: of 0 tokens, it is not even named (pass 40).
    assert "<synthetic>" not in models
    # --json keeps every row.
    assert {row["key"] for row in doc("tokens")["rows"]} == {f"claude:{sid(i)}" for i in (1, 2, 3)}


# --- everywhere --------------------------------------------------------------


def test_global_options_work_after_the_command_name(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "backup"
    write_session(other, 1, 1)
    assert doc("list", "--home", str(other))["sessions"][0]["native_id"] == sid(1)
    assert doc("--home", str(other), "list", "--no-cache")["sessions"][0]["native_id"] == sid(1)
    assert any(row["provider"] == "claude" for row in doc("list", "--demo")["sessions"])
    help_text = run("list", "--help").stdout
    for option in ("--home", "--demo", "--no-cache", "--strict", "--verbose"):
        assert option in help_text


def test_version_and_completion(isolated_home: Path) -> None:
    from agentscan import __version__

    assert run("--version").stdout == f"agentscan {__version__}\n"
    help_text = run("--help").stdout
    assert "--install-completion" in help_text and "--show-completion" in help_text


def test_progress_is_drawn_after_a_second_and_erased(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import progress as progress_module

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    progress.expect(2000)
    progress.advance(10)
    assert stream.getvalue() == ""  # a fast run prints nothing
    clock[0] += 2.0
    progress.advance(990)
    assert "reading sessions 1,000/2,000 (500/s)" in stream.getvalue()
    progress.finish()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_no_progress_without_a_terminal_or_with_quiet(isolated_home: Path, tty) -> None:
    from agentscan.cli.options import State
    from agentscan.cli.progress import StderrProgress

    assert not isinstance(State().scanner().ctx.progress, StderrProgress)
    tty(stderr=True)
    assert isinstance(State().scanner().ctx.progress, StderrProgress)
    assert not isinstance(State(quiet=True).scanner().ctx.progress, StderrProgress)


def test_export_to_stdout_with_csv_booleans_and_no_stray_lock(isolated_home: Path, tmp_path: Path) -> None:
    write_session(isolated_home, 1, 1)
    lines = run("export", "-f", "jsonl", "-o", "-").stdout.splitlines()
    assert [orjson.loads(line)["native_id"] for line in lines] == [sid(1)]
    rows = list(csv.DictReader(io.StringIO(run("export", "-f", "csv", "-o", "-").stdout)))
    assert rows[0]["running"] in ("true", "false", "")  # never Python's True/False
    assert "SQLite cannot be written to stdout" in run("export", "-f", "sqlite", "-o", "-", code=2).stderr
    assert run("export", "-f", "jsonl", "-o", "-", "--json", code=2)
    for fmt in ("jsonl", "csv", "sqlite"):
        run("export", "-f", fmt, "-o", str(tmp_path / f"out.{fmt}"))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out.")) == ["out.csv", "out.jsonl", "out.sqlite"]
    assert not list(tmp_path.glob("*.lock"))


def test_csv_writes_true_and_false() -> None:
    from agentscan.export.files import csv_lines
    from agentscan.model import SessionRow

    buffer = io.BytesIO()
    csv_lines(buffer, [SessionRow("claude", "a", None, running=True), SessionRow("claude", "b", None, running=False),
                       SessionRow("claude", "c", None)])
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))
    assert [row["running"] for row in rows] == ["true", "false", ""]


# --- hooks -------------------------------------------------------------------


def test_hook_with_an_unknown_agent_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from agentscan.hooks.capture import run as hook_run

    data = tmp_path / "data"
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(data))
    monkeypatch.setattr("sys.stdin", io.StringIO('{"hook_event_name": "stop", "session_id": "s1"}'))
    hook_run("curser")
    # No event stored; only the one line that says why (test_hook_unknown_agent.py)
    assert not (data / "events").exists() and capsys.readouterr().out == ""
    assert [p.name for p in data.iterdir()] == ["hook-errors.log"]


def test_doctor_reports_hooks_store_and_errors(isolated_home: Path, tmp_path: Path) -> None:
    from agentscan.hooks import store

    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    store.append_event(str(data), "cursor", "conv-1", b'{"v":1}\n')
    store.append_event(str(data), "cursor", "conv-2", b'{"v":1}\n')
    (data / store.DIAGNOSTICS_LOG).write_text("".join(f"2026-11-30T10:00:0{i}Z agent=cursor problem {i}\n" for i in range(8)))
    before = run("doctor").stdout
    assert (f"hooks:\n  {HOOKS_OPTIONAL}\n  to install, for each agent you use, run:\n    agentscan hooks install claude\n"
            "    agentscan hooks install cursor\n") in before
    assert "2 sessions (cursor 2)" in before
    assert "problem 7" in before and "problem 2" not in before  # the last five lines
    run("hooks", "install", "--agent", "claude")
    report = doc("doctor")["hooks"]
    assert [(c["agent"], c["scope"], c["events"] == c["of"]) for c in report["installed"]] == [("claude", "user", True)]
    assert report["store"]["sessions"] == 2 and len(report["errors"]["last"]) == 5
    assert "claude  user" in run("doctor").stdout


def test_trace_list_and_a_session_without_events(isolated_home: Path, tty) -> None:
    from agentscan.hooks import store

    data = Path(os.environ["AGENTSCAN_DATA_DIR"])
    assert "no hook events captured yet" in run("trace", "--list").stderr
    assert "no hook events have been captured yet; see `agentscan hooks install`" in run("trace", "abcdef12", code=1).stderr
    envelope = b'{"v":1,"received_at_ns":1790000000000000000,"payload":{}}\n'  # --list counts envelopes
    store.append_event(str(data), "claude", "abcdef12-0000-4000-8000-000000000001", envelope * 2)
    store.append_event(str(data), "claude", "abcdef12-0000-4000-8000-000000000002", envelope)
    listed = doc("trace", "--list")
    assert listed["schema"] == "agentscan.trace-list/1"
    assert {(s["id"], s["events"]) for s in listed["sessions"]} == {
        ("claude:abcdef12-0000-4000-8000-000000000001", 2), ("claude:abcdef12-0000-4000-8000-000000000002", 1)}
    tty(80)
    shown = [line.split()[0] for line in run("trace", "--list").stdout.splitlines()[1:]]
    assert sorted(shown) == ["claude:abcdef12-0000-4000-8000-000000000001", "claude:abcdef12-0000-4000-8000-000000000002"]
    assert "no hook events for 'claude:ffffff00'" in run("trace", "claude:ffffff00", code=1).stderr
