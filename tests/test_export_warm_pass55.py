"""Pass 55: a warm ``export --since 1d`` of the bench's scale-10 home (15,000 kept rows) took
1.5 CPU-s to write 24 sessions: it told every row's ``running`` (``/proc``) and decoded every
kept row.  Now ``running`` is told of the rows it writes alone, as ``list`` does
(``test_grep_liveness_pass54``; ``--running`` still asks of every row), and a kept row too
old for ``--since`` that would say nothing is left undecoded (``scan.keptsince``); what is
written and said is as before, and as ``--no-cache`` has it."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan import ListFilter, Scanner
from agentscan.cli import app
from agentscan.scan import rowreader
from agentscan.scan.liveness import Liveness
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, write_jsonl
from spies import record_calls

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-5555-4000-8000-000000000000"


def _home(home: Path) -> None:
    for number in range(12):
        native = _native(number)
        stamp = f"2026-11-{number + 1:02d}T09:00:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, stamp, "needle here" if number == 4 else "a task"),
            claude_assistant(native, stamp, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(100, 10)),
        ])


def _export(*args: str) -> list[dict]:
    result = runner.invoke(app, ["export", "-f", "jsonl", "-o", "-", *args])
    assert result.exit_code == 0, result.output
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def test_only_written_rows_are_asked_whether_they_run(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    every = {row["id"]: row for row in _export()}  # the rows kept
    assert len(every) == 12
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    since = _export("--since", "2026-11-10")
    assert sorted(asked) == sorted(row["id"] for row in since) and len(since) == 3
    assert all(row == every[row["id"]] for row in since)  # ``running`` as before


def test_a_library_grep_asks_of_its_rows_and_running_of_every_row(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    _export()
    asked = record_calls(monkeypatch, Liveness, "of", lambda self, ref: ref.id)
    with Scanner() as scanner:
        found = scanner.all_rows(filters=ListFilter(grep="needle"))
    assert [row.id for row in found] == [f"claude:{_native(4)}"] and asked == [found[0].id]
    del asked[:]
    with Scanner() as scanner:
        scanner.all_rows(filters=ListFilter(running=True))
    assert len(set(asked)) == 12


def _decoded(monkeypatch) -> list[str]:
    """The native ids of the kept rows decoded from now on."""
    return record_calls(monkeypatch, rowreader, "row_of_document", lambda document: document.get("native_id"))


def test_kept_rows_too_old_are_not_decoded(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    _export()
    decoded = _decoded(monkeypatch)
    since = _export("--since", "2026-11-10")
    assert [row["id"] for row in since] == [f"claude:{_native(n)}" for n in (11, 10, 9)]
    assert sorted(decoded) == sorted(_native(n) for n in (9, 10, 11))


def test_a_too_old_row_with_warnings_is_still_read_and_says_what_it_said(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    # An old session in a project of its own, one of whose lines is no JSON: its kept row holds
    # that warning, so it is read (and its warning left out, as another project's, as before).
    native = _native(99)
    stamp = "2026-10-01T09:00:00.000Z"
    write_jsonl(isolated_home / ".claude" / "projects" / "-w-old" / f"{native}.jsonl", [
        claude_user(native, stamp, "old", cwd="/w/old"), "{not json",
        claude_assistant(native, stamp, msg_id="m99", request_id="r99", usage=claude_usage(1, 1), cwd="/w/old")])
    cold = runner.invoke(app, ["export", "-f", "jsonl", "-o", "-", "--since", "2026-11-10"])
    decoded = _decoded(monkeypatch)
    warm = runner.invoke(app, ["export", "-f", "jsonl", "-o", "-", "--since", "2026-11-10"])
    uncached = runner.invoke(app, ["--no-cache", "export", "-f", "jsonl", "-o", "-", "--since", "2026-11-10"])
    assert native in decoded and _native(0) not in decoded
    assert warm.stdout == cold.stdout == uncached.stdout and len(warm.stdout.splitlines()) == 3
    assert warm.stderr == cold.stderr == uncached.stderr


def test_a_row_its_provider_would_mend_is_still_read(isolated_home: Path, monkeypatch) -> None:
    """A Codex row of partial counts, a Gemini row with no cwd (``wants_refresh``): mended on
    reading, which may warn; so it is read as before, too old or not."""
    from agentscan.providers.claude.provider import ClaudeProvider

    _home(isolated_home)
    _export()
    monkeypatch.setattr(ClaudeProvider, "wants_refresh", lambda self, row: row.cwd is not None, raising=False)
    decoded = _decoded(monkeypatch)
    assert len(_export("--since", "2026-11-10")) == 3
    assert len(decoded) == 12
