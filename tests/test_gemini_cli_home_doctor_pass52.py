"""``GEMINI_CLI_HOME`` set to the ``.gemini`` folder itself, in plain ``doctor`` (pass 52).

A run that finds no root of it fails with the setting meant (pass 51); plain ``doctor`` goes
on past the unread root and printed only ``does not exist`` for ``…/.gemini/.gemini/tmp``, with
no word of the fix.  It says the setting meant as a finding of Gemini CLI's."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from gemini_builders import meta, user, write_chat


def test_plain_doctor_says_the_gemini_cli_home_meant(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = isolated_home / "elsewhere"
    write_chat(elsewhere, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere / ".gemini"))
    meant = f"GEMINI_CLI_HOME is the folder that holds .gemini: did you mean GEMINI_CLI_HOME={elsewhere}?"
    result = invoke("doctor")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count(meant) == 1 and f"finding: {meant}" in result.stdout
    document = orjson.loads(invoke("doctor", "--json").stdout)
    (gemini,) = [provider for provider in document["providers"] if provider["provider"] == "gemini"]
    assert meant in gemini["findings"]
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))  # as meant: no such finding
    assert "did you mean" not in invoke("doctor").stdout
