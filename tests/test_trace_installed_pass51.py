"""``trace`` with no event captured yet, after ``hooks install``: it said "see `agentscan hooks
install`", to a user who had just run it.  Installed, it says to restart the agent (a session
already running keeps the hooks it started with) and where ``hooks status`` shows the events go."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke


def said(*args: str) -> str:
    result = invoke(*args)
    return " ".join(result.output.split())


def test_no_event_yet_with_the_hooks_installed_says_to_restart_the_agent(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(isolated_home)
    assert "see `agentscan hooks install`" in said("trace", "--list")  # nothing installed: as before
    assert "see `agentscan hooks install`" in said("trace", "abcdef12")
    assert invoke("hooks", "install", "claude").exit_code == 0
    for args in (("trace", "--list"), ("trace", "abcdef12")):
        text = said(*args)
        assert "hooks install" not in text, text
        assert "agentscan's hook is installed for Claude Code: restart it" in text
        assert "`agentscan hooks status` says where the events go" in text
    assert invoke("trace", "abcdef12").exit_code == 1


def test_status_notes_events_in_the_default_store_while_agentscan_data_dir_chose_another(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``AGENTSCAN_DATA_DIR`` set in the shell, not in the agent's environment (an editor started
    from the desktop): the hook stores in the default store, and ``trace`` looks in the other."""
    import os

    import orjson

    from agentscan.hooks import capture
    from builders import cli_json

    default = tmp_path / "data" / "agentscan"  # XDG_DATA_HOME's (conftest)
    assert cli_json("hooks", "status")["store"]["default_store"] is None
    capture.capture(str(default), "cursor", orjson.dumps({"hook_event_name": "beforeSubmitPrompt",
                                                          "conversation_id": "c-1", "prompt": "hi"}), 1)
    store = cli_json("hooks", "status")["store"]
    assert store["source"] == "AGENTSCAN_DATA_DIR" and store["sessions"] == 0
    assert store["default_store"] == {"path": str(default), "sessions": 1}
    text = said("hooks", "status")
    assert f"note: the default store {default} holds 1 session too" in text and "where trace does not look" in text
    monkeypatch.delenv("AGENTSCAN_DATA_DIR")  # the default store is the one read: nothing to note
    assert cli_json("hooks", "status")["store"]["default_store"] is None
    assert os.environ.get("XDG_DATA_HOME") == str(tmp_path / "data")
