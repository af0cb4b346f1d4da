"""``GEMINI_CLI_HOME`` set to the ``.gemini`` folder itself (pass 51): Gemini CLI reads
``$GEMINI_CLI_HOME/.gemini``, so the error named ``…/.gemini/.gemini/tmp`` and said to fix or
unset it, not how.  It says the setting it meant when that folder holds the chats."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke
from gemini_builders import meta, user, write_chat


def test_a_gemini_cli_home_one_level_too_deep_says_the_one_meant(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = isolated_home / "elsewhere"
    write_chat(elsewhere, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere / ".gemini"))
    result = invoke("list", "--provider", "gemini")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith(
        f"fix or unset GEMINI_CLI_HOME; GEMINI_CLI_HOME is the folder that holds .gemini: did you mean"
        f" GEMINI_CLI_HOME={elsewhere}?")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    assert invoke("list", "--provider", "gemini").exit_code == 0


def test_a_gemini_cli_home_that_holds_nothing_gets_no_guess(isolated_home: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(isolated_home / "nowhere" / ".gemini"))
    result = invoke("list", "--provider", "gemini")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith("fix or unset GEMINI_CLI_HOME")
