"""Property: a transcript caught mid-write never breaks a scan, nor counts more than the whole.

Agents append to their files while we read them, so any byte prefix of a
valid transcript is something agentscan meets.  For real samples of every
provider (and the corpus's clean sessions), any prefix must scan without
an exception, and its token total (Cursor: its prompt, reply and tool
counts) must not exceed the whole file's, computed the same way.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from functools import lru_cache
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from bad_corpus import case, no_internal_errors
from builders import REAL
from codex_builders import rollout_path
from conftest_hypothesis import FUZZ

# Many generated cases each: run by .ci/run (`-m slow`), not by the default test command.
pytestmark = pytest.mark.slow


SAMPLES = {
    "claude": [REAL / "claude" / "spotter-short-v2.1.38.jsonl", REAL / "claude" / "spotter-tool-heavy-v2.1.38.jsonl",
               REAL / "claude" / "entire-checkpoint-37995ebed6e4-v2.1.12.jsonl", case("claude", "clean").source],
    "codex": sorted((REAL / "codex").glob("*.jsonl")) + [case("codex", "clean").source],
    "gemini": [REAL / "gemini" / "session-2026-04-23T12-52-0ab84937.jsonl", REAL / "gemini" / "session-2026-03-27T10-19-8a20078e.json",
               REAL / "gemini" / "session-2025-10-05T07-11-eefc44a3.json", case("gemini", "clean").source],
    "cursor": [REAL / "cursor" / "sanitized-agent-sessions-test-session.jsonl", REAL / "cursor" / "synthetic-cursor-history-multi-parts.jsonl",
               REAL / "cursor" / "synthetic-agent-sessions-stage0-small-turn_ended.jsonl", case("cursor", "clean").source],
}


def _place(home: Path, provider: str, sample: Path) -> Path:
    """Where ``sample`` goes in ``home``, named as its provider would name it."""
    if provider == "claude":
        return home / ".claude" / "projects" / "-p" / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    if provider == "codex":
        meta = orjson.loads(sample.read_bytes().split(b"\n", 1)[0])["payload"]
        started = datetime.fromisoformat(meta["timestamp"].replace("Z", "+00:00"))
        return rollout_path(home / ".codex", meta["id"], started)
    if provider == "gemini":
        return home / ".gemini" / "tmp" / "p" / "chats" / f"session-2026-01-01T00-00-x{sample.suffix}"
    return home / ".cursor" / "projects" / "p" / "agent-transcripts" / "aaaaaaaa-0000-4000-8000-000000000002.jsonl"


def _measure(provider: str, sample: Path, data: bytes) -> tuple[int, tuple[int, int, int]]:
    """(token total of ``tokens``, summed list-row counts) of a home holding ``data`` as ``sample``."""
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory)
        path = _place(home, provider, sample)
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        with Scanner(home=home, env={"AGENTSCAN_DATA_DIR": str(home / "data")}) as scanner:
            rows = scanner.list_sessions()
            report = token_report(scanner)
            for row in rows:
                scanner.show(row.id)
            assert no_internal_errors(scanner.warnings), scanner.warnings
    counts = tuple(sum(getattr(row.counts, name) for row in rows) for name in ("prompts", "responses", "tool_calls"))
    return (report.total.total if report.total else 0), counts  # type: ignore[return-value]


@lru_cache(maxsize=None)
def _whole(provider: str, sample: Path) -> tuple[int, tuple[int, int, int]]:
    return _measure(provider, sample, sample.read_bytes())


@pytest.mark.parametrize("provider", sorted(SAMPLES))
@FUZZ
@given(data=st.data())
def test_any_prefix_scans_and_counts_no_more_than_the_whole(provider: str, data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from(SAMPLES[provider]), label="sample")
    whole = sample.read_bytes()
    # Prefixes that end on a line boundary or just after one are the common case: favour them.
    boundaries = [i + 1 for i, byte in enumerate(whole) if byte == 0x0A]
    cut = data.draw(st.integers(0, len(whole)) | st.sampled_from(boundaries or [0]), label="cut")
    tokens, counts = _measure(provider, sample, whole[:cut])
    whole_tokens, whole_counts = _whole(provider, sample)
    assert tokens <= whole_tokens
    if provider == "cursor":  # Cursor transcripts carry no tokens: their counts must not grow either
        assert all(part <= full for part, full in zip(counts, whole_counts)), (counts, whole_counts)


@pytest.mark.parametrize("provider", sorted(SAMPLES))
def test_the_samples_have_something_to_lose(provider: str) -> None:
    """The property above is only worth something if the whole files count something."""
    for sample in SAMPLES[provider]:
        tokens, counts = _whole(provider, sample)
        assert (sum(counts) if provider == "cursor" else tokens) > 0, sample
