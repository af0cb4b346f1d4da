"""``list --since A --until B`` that leaves nothing says how many sessions lie on each side
of the window, not that all of them were "updated later" than ``B``: the sessions
``--since`` left out are before it.  ``--since`` or ``--until`` alone keep their wording.

Each run cold (rows parsed), warm (rows from the index) and with ``--no-cache``: the
counts come from the list's own filters whichever way the rows were read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()

#: the days of November 2026 the sessions were last updated on: five before the window
#: asked for (12–13 November), three after it
DAYS = (1, 2, 3, 5, 8, 20, 21, 25)
BEFORE, AFTER = 5, 3


def _home(home: Path) -> None:
    for number, day in enumerate(DAYS):
        native = f"{number:08x}-4444-4000-8000-000000000000"
        when = f"2026-11-{day:02d}T12:00:00.000Z"
        claude_session_file(home, native, [
            claude_user(native, when, f"task {number}", cwd="/src/app"),
            claude_assistant(native, when, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(100, 7),
                             cwd="/src/app"),
        ])


def _said(*args: str) -> list[tuple[int, str, str]]:
    """``list``'s exit code, stdout and stderr: cold, warm, then without the index."""
    runs = []
    for extra in ((), (), ("--no-cache",)):
        result = runner.invoke(app, ["list", *args, "--tz", "utc", *extra])
        runs.append((result.exit_code, result.stdout, result.stderr))
    return runs


def test_an_empty_window_counts_the_sessions_on_each_side(isolated_home: Path) -> None:
    _home(isolated_home)
    for code, out, err in _said("--since", "2026-11-12", "--until", "2026-11-13"):
        assert (code, out) == (0, "")
        assert err.strip() == (f"no sessions updated between 2026-11-12 00:00 and 2026-11-14 00:00 "
                               f"({BEFORE} before, {AFTER} after)"), err
        assert "updated later" not in err


@pytest.mark.parametrize("args", [("--since", "2026-11-01", "--until", "2026-11-13"),
                                  ("--since", "2026-11-12", "--until", "2026-11-30")])
def test_a_window_with_sessions_on_one_side_only_lists_them(isolated_home: Path, args: tuple[str, ...]) -> None:
    _home(isolated_home)
    for code, out, err in _said(*args, "--json"):
        assert code == 0 and '"sessions": [' in out and "no sessions" not in err, (out, err)


def test_a_window_after_every_session_says_the_range_and_the_newest(isolated_home: Path) -> None:
    """Every session is before ``--since``: said as the range was asked (``tokens`` says it so),
    with the newest named, as ``--since`` alone does."""
    _home(isolated_home)
    for code, out, err in _said("--since", "2026-12-01", "--until", "2026-12-02"):
        assert (code, out) == (0, "")
        assert err.strip() == (f"no sessions updated between 2026-12-01 00:00 and 2026-12-03 00:00 ({len(DAYS)} "
                               "before; the newest was updated 2026-11-25 12:00)"), err


def test_until_alone_keeps_its_wording(isolated_home: Path) -> None:
    _home(isolated_home)
    for code, out, err in _said("--until", "2026-10-30"):
        assert (code, out) == (0, "")
        assert err.strip() == f"no sessions last updated before 2026-10-31 00:00 ({len(DAYS)} updated later)", err


def test_since_alone_keeps_its_wording(isolated_home: Path) -> None:
    _home(isolated_home)
    for code, out, err in _said("--since", "2026-11-26"):
        assert (code, out) == (0, "")
        assert err.strip() == (f"no sessions updated since 2026-11-26 00:00 ({len(DAYS)} older; "
                               "the newest was updated 2026-11-25 12:00)"), err
