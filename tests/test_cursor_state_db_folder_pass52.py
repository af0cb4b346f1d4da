"""``CURSOR_STATE_DB`` set to a folder that holds the state DB (pass 52).

It names the file (``…/globalStorage/state.vscdb``); set to ``globalStorage``, the ``User``
folder or Cursor's config folder, the run failed with ``a directory, not a file; fix or unset
CURSOR_STATE_DB``, not how.  The error, and plain ``doctor`` (which goes on), say the setting
meant when the DB is there below it; a folder that holds none gets no guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

pytestmark = pytest.mark.usefixtures("only_cursor")

A = "a5200000-0000-4000-8000-0000000000a1"


@pytest.mark.parametrize("up", [1, 2, 3])
def test_a_folder_above_the_db_says_the_file_meant(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   up: int) -> None:
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="a chat", bubbles=["u"])],
                       bubbles={A: [bubble("u", 1, "hello")]})
    monkeypatch.setenv("CURSOR_STATE_DB", str(db.parents[up - 1]))
    meant = f"CURSOR_STATE_DB names the database file, not its folder: did you mean CURSOR_STATE_DB={db}?"
    result = invoke("list")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith(f"fix or unset CURSOR_STATE_DB; {meant}"), result.stderr
    doctor = invoke("doctor")
    assert doctor.exit_code == 0, doctor.stderr
    assert f"finding: {meant}" in doctor.stdout
    monkeypatch.setenv("CURSOR_STATE_DB", str(db))
    assert invoke("list").exit_code == 0
    assert "did you mean" not in invoke("doctor").stdout


def test_a_folder_that_holds_no_db_gets_no_guess(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_STATE_DB", str(isolated_home))
    result = invoke("list")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith("fix or unset CURSOR_STATE_DB")
    assert "did you mean" not in invoke("doctor").stdout
