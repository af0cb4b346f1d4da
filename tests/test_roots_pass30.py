"""An explicitly named root that cannot be read: one error, not a warning and an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke
from cursor_builders import user, write_transcript

S = "5b2c8e1d-0f3a-4c6b-9d7e-1a2b3c4d5e6f"


@pytest.mark.parametrize("command", [("list",), ("tokens",), ("list", "--json")])
def test_a_missing_cursor_state_db_is_said_once(isolated_home: Path, monkeypatch, command: tuple[str, ...]) -> None:
    write_transcript(isolated_home, "p", S, [user("cli only")])
    missing = isolated_home / "nowhere" / "state.vscdb"
    monkeypatch.setenv("CURSOR_STATE_DB", str(missing))
    result = invoke(*command)
    assert result.exit_code == 1
    # The sessions that could be read are still listed (tokens names one that recorded no
    # usage under its table: on stderr in a pipe).
    assert S in (result.stdout if command[0] == "list" else result.stderr)
    lines = [line for line in result.stderr.splitlines() if str(missing) in line]
    assert lines == [f"error: Cursor: no readable root among {missing} (CURSOR_STATE_DB); fix or unset CURSOR_STATE_DB"]
    assert not missing.parent.exists()


def test_a_corrupt_named_state_db_is_still_a_warning(isolated_home: Path, monkeypatch) -> None:
    """Readable but not a database: no root error, so the warning is the only word on it."""
    write_transcript(isolated_home, "p", S, [user("cli only")])
    corrupt = isolated_home / "state.vscdb"
    corrupt.write_bytes(b"this is not a database at all")
    monkeypatch.setenv("CURSOR_STATE_DB", str(corrupt))
    result = invoke("list")
    assert result.exit_code == 0
    assert f"warning: {corrupt}: Cursor state DB not used" in result.stderr
