"""After an upgrade, a ``list --all`` reads every session again for its row, and keeps its
usage sums (``scan.rowusage``) for ``tokens``.  It kept none where the index held sums of an
older parser version: the ``tokens`` after it read every session a second time, where a cold
index costs one read.  Sums of a session whose files changed since (an active one) are still
left to ``tokens``' parse (which may keep a resume state)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions, invoke

COUNT = 4


def tokens_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions ``tokens`` parses (``session_usage``), in this process."""
    parsed: list[str] = []
    original = ClaudeProvider.session_usage

    def counted(self: ClaudeProvider, ref, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        parsed.append(ref.id)
        return original(self, ref, *args, **kwargs)

    monkeypatch.setattr(ClaudeProvider, "session_usage", counted)
    return parsed


def upgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))


def test_a_list_after_an_upgrade_keeps_the_sums_tokens_reads(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, COUNT)
    assert invoke("list", "--all").exit_code == 0  # the index holds every session's sums
    upgrade(monkeypatch)
    assert invoke("list", "--all").exit_code == 0  # every row read again: its sums kept anew
    parsed = tokens_parses(monkeypatch)
    result = invoke("tokens", "--all", "--json")
    assert result.exit_code == 0, result.output
    assert parsed == []  # as after a cold list --all: nothing read twice


def test_a_session_changed_since_is_left_to_tokens(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, COUNT)
    assert invoke("list", "--all").exit_code == 0
    (changed,) = [path for path in (isolated_home / ".claude" / "projects").rglob("00000000-*.jsonl")]
    with changed.open("a") as handle:
        handle.write("\n")  # grown on disk: not an older parser's sums of the same files
    upgrade(monkeypatch)
    assert invoke("list", "--all").exit_code == 0
    parsed = tokens_parses(monkeypatch)
    assert invoke("tokens", "--all", "--json").exit_code == 0
    assert [ref_id.split(":")[1][:8] for ref_id in parsed] == ["00000000"]
