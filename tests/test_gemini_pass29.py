"""A truncated legacy Gemini chat gets one warning: what was read, not the parser's error too."""

from __future__ import annotations

import os
from pathlib import Path

from agentscan.context import ScanContext
from agentscan.providers.gemini.legacy import load_legacy
from agentscan.scan.scanner import Scanner
from builders import cli_json
from gemini_builders import LEGACY_NAME, legacy_chat

S1 = "11111111-aaaa-4bbb-8ccc-000000000029"


def _truncated(home: Path) -> Path:
    path = legacy_chat(home, S1, cut_mid_reply=True)  # cut inside g2: a half-written rewrite
    os.utime(path, (1_756_713_600, 1_756_713_600))  # still since: no longer "being written?" (pass 52)
    return path


def _messages(warnings, path: Path) -> list[str]:
    return [w.message for w in warnings if w.path == str(path)]


def test_a_salvaged_legacy_chat_has_one_warning_saying_what_was_read(isolated_home: Path) -> None:
    path = _truncated(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    (row,) = scanner.list_sessions()
    assert row.counts.prompts == 2
    expected = ["chat file is truncated or corrupt; read the 3 complete messages before the damage"]
    assert _messages(scanner.warnings, path) == expected
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    scanner.show(S1)
    assert _messages(scanner.warnings, path) == expected
    # The CLI, cold then warm (the row's warnings are kept with it in the index).
    for _ in range(2):
        doc = cli_json("list", "--provider", "gemini")
        assert [w["message"] for w in doc["warnings"] if w["path"] == str(path)] == expected


def test_a_legacy_chat_that_cannot_be_salvaged_keeps_the_parsers_error(tmp_path: Path) -> None:
    """No ``sessionId`` before the damage: nothing is read, so the parser says why
    (discovery skips such a file first; the loader is asked directly)."""
    path = tmp_path / LEGACY_NAME
    path.write_text('{"startTime": "2025-09-01T08:00:00.000Z", "messages": [', "utf-8")
    ctx = ScanContext.create(home=tmp_path, env={})
    assert load_legacy(path, ctx) is None
    messages = [w.message for w in ctx.warnings.items]
    assert len(messages) == 1 and messages[0].startswith("invalid JSON: "), messages
