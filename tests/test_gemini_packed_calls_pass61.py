"""Gemini's calls for ``tokens`` are packed from the replay's facts, no ``UsageEntry`` made.

``GeminiProvider.session_usage`` gave ``[entry.pack() for entry in usage_entries(chats)]``: a
frozen dataclass a call only to be taken apart again.  It packs each call itself now
(``usage.usage_packed``); what it gives must be what packing ``usage``'s entries gives, call
for call, in the same order.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from packed_calls import entries_made_by_tokens_pass, packed_beside_entries

from agentscan.demo import demo_home
from agentscan.providers.gemini import usage as gemini_usage
from agentscan.providers.gemini.provider import GeminiProvider
from gemini_builders import gemini, legacy_chat, lay_out_real_gemini, meta, tokens, user, write_chat

MAIN = "7a1c2e3f-0000-4000-8000-00000000a001"
AGENT = "7a1c2e3f-0000-4000-8000-00000000b001"


def _both(home: Path) -> list[tuple[list[list], list[list]]]:
    return packed_beside_entries(GeminiProvider(), home)


def test_the_real_samples_and_the_demo_pack_as_their_entries(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    shutil.copytree(demo_home() / ".gemini", isolated_home / ".gemini", dirs_exist_ok=True)  # (a subagent)
    pairs = _both(isolated_home)
    assert len(pairs) >= 5
    assert sum(len(packed) for packed, _ in pairs) > 10
    assert any(row[1] is not None for packed, _ in pairs for row in packed)  # a subagent's call
    for packed, entries in pairs:
        assert packed == entries


def test_subagents_repeats_null_tokens_and_odd_times_pack_as_their_entries(isolated_home: Path) -> None:
    undated = gemini("g3", "not a time", "c", usage=tokens(30, 3, cached=40, thoughts=2, tool=5), model="gemini-2.5-flash")
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-7a1c2e3f.jsonl", [
        meta(MAIN),
        user("u1", "2026-05-01T10:00:01.000Z", "first"),
        gemini("g1", "2026-05-01T10:00:02.000Z", "a", usage=tokens(100, 10, cached=60, thoughts=4)),
        gemini("g1", "2026-05-01T10:00:03.500Z", "a!", usage=tokens(120, 12, cached=60, thoughts=4)),  # (last copy)
        gemini("g2", "2026-05-01T10:00:04.000Z", "b", usage=None),  # (null tokens: no call)
        undated,
    ])
    write_chat(isolated_home, "proj", f"{MAIN}/{AGENT}.jsonl", [
        meta(AGENT, kind="subagent"),
        gemini("s1", "2026-05-01T10:00:05.250Z", "sub", usage=tokens(7, 1, tool=2)),
    ])
    legacy_chat(isolated_home, "7a1c2e3f-0000-4000-8000-00000000c001")
    pairs = _both(isolated_home)
    counts = sorted(len(packed) for packed, _ in pairs)
    assert counts == [2, 3]  # (g1 once, g3, the subagent's s1; the legacy chat's two replies)
    for packed, entries in pairs:
        assert packed == entries


def test_tokens_pass_makes_no_usage_entry(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lay_out_real_gemini(isolated_home)
    assert entries_made_by_tokens_pass(GeminiProvider(), gemini_usage, isolated_home, monkeypatch) == []
