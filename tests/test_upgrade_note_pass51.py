"""After an upgrade that changed a provider's parser version, the first run reads every
session of it again (as long as a cold run): a terminal is told why, once, in a note before
the progress line (``scan.upgraded``); a pipe, a warm run, a run too short to draw the
progress line and sessions merely changed on disk are not."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_assistant, claude_session_file, claude_sessions, claude_usage, claude_user, invoke

NOTE = "agentscan was upgraded"


@pytest.fixture(autouse=True)
def drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The progress line (and the note with it) drawn from the first session read."""
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 0.0)


def _upgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))


def _change(home: Path, number: int) -> None:
    """Session ``number`` of ``claude_sessions``, one call longer (changed on disk)."""
    native = f"{number:08x}-2222-4000-8000-000000000000"
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number}"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"msg-{number}", request_id=f"req-{number}",
                         usage=claude_usage(100 + number, 10)),
        claude_assistant(native, "2026-11-02T09:02:00.000Z", msg_id=f"msg-{number}b", request_id=f"req-{number}b",
                         usage=claude_usage(7, 1)),
    ])


def _tokens(*args: str) -> tuple[str, str]:
    result = invoke("tokens", "--all", *args)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_the_first_tokens_after_an_upgrade_says_why_it_reads_every_session_again(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 5)
    _tokens()
    tty(100)
    assert NOTE not in _tokens()[1]  # nothing read again: nothing said
    _upgrade(monkeypatch)
    stdout, stderr = _tokens("--strict")  # a note, not a warning: --strict does not fail on it
    assert stderr.count(NOTE) == 1, stderr
    assert "note: agentscan was upgraded: reading 5 sessions again for their tokens" in stderr
    assert NOTE not in stdout
    assert NOTE not in _tokens()[1]  # read once: the next run is warm


def test_sessions_changed_on_disk_are_not_said_to_be_read_for_an_upgrade(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 5)
    _tokens()
    tty(100)
    _change(isolated_home, 0)
    _change(isolated_home, 1)
    assert NOTE not in _tokens()[1]  # an agent at work: read again, as always
    _change(isolated_home, 2)
    _upgrade(monkeypatch)
    stderr = _tokens()[1]
    assert "reading 4 sessions again" in stderr, stderr  # the changed one is read for its change


def test_a_pipe_and_json_stdout_get_no_note(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 3)
    _tokens()
    _upgrade(monkeypatch)
    tty(100, stderr=False)
    assert NOTE not in _tokens()[1]
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    tty(100)
    stdout, stderr = _tokens("--json")
    assert "reading 3 sessions again" in stderr
    orjson.loads(stdout)  # the note is stderr's alone


def test_list_after_an_upgrade_says_it_too(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 4)
    assert invoke("list", "--all").exit_code == 0
    _upgrade(monkeypatch)
    tty(100)
    result = invoke("list", "--all")
    assert result.exit_code == 0, result.output
    assert result.stderr.count(NOTE) == 1 and "reading 4 sessions again" in result.stderr, result.stderr
    assert NOTE not in invoke("list", "--all").stderr


def test_a_run_too_short_for_the_progress_line_says_nothing(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                             tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 3)
    _tokens()
    _upgrade(monkeypatch)
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 60.0)
    tty(100)
    assert NOTE not in _tokens()[1]  # read again in a blink: nothing to explain
