"""``otlp`` reads a session whole, not within ``show``'s bounds (1,000 prompts, 2,000 calls,
1 MiB of call text): a long session loses no turn or call, and its ids stay put as it grows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from agentscan.bounds import Bounds
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from otlp_builders import otlp, read_otlp_file

SESSION = "bbbbbbbb-0000-4000-8000-000000000036"


def _ts(step: int) -> str:
    """2026-03-01T10:00:00Z plus ``step`` tenths of a second."""
    whole, tenth = divmod(step, 10)
    hours, rest = divmod(whole, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"2026-03-01T{10 + hours:02d}:{minutes:02d}:{seconds:02d}.{tenth}00Z"


def long_session(home: Path, turns: int, first_calls: int, *, command_chars: int = 20) -> None:
    """``turns`` turns of one call each, except the first, which makes ``first_calls``."""
    records, step = [], 0

    def at() -> str:
        nonlocal step
        step += 1
        return _ts(step)

    for turn in range(turns):
        records.append(claude_user(SESSION, at(), f"turn {turn}", uuid=f"u{turn}"))
        for call in range(first_calls if turn == 0 else 1):
            call_id = f"toolu_{turn}_{call}"
            records.append(claude_assistant(
                SESSION, at(), msg_id=f"m{turn}_{call}", request_id=f"r{turn}_{call}", usage=claude_usage(input=1, output=1),
                uuid=f"a{turn}_{call}",
                blocks=[{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "x" * command_chars}}]))
            records.append(claude_user(SESSION, at(), [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}],
                                       uuid=f"res{turn}_{call}"))
    claude_session_file(home, SESSION, records)


def export(tmp_path: Path, name: str, *extra: str) -> tuple[list[list], object]:
    out = tmp_path / name
    result = otlp("-o", str(out), *extra)
    assert result.exit_code == 0, result.output
    return read_otlp_file(out), result


def test_every_turn_and_call_of_a_long_session_is_exported_with_its_own_ids(isolated_home: Path, tmp_path: Path) -> None:
    # Past show's 2,000 calls and 1 MiB of call text (2,101 x 600 bytes); its 1,000 prompts: below.
    long_session(isolated_home, 3, 2_101, command_chars=600)
    lines, result = export(tmp_path, "all.jsonl")
    assert "warning" not in result.output
    assert len(lines) == 3
    spans = [span for line in lines for span in line]
    tools = Counter(span.trace_id for span in spans if span.name == "execute_tool Bash")
    assert sum(tools.values()) == 2_101 + 2
    first = lines[0]
    root = next(span for span in first if not span.parent)
    assert tools[root.trace_id] == 2_101  # the first turn's own calls, not none
    assert root.attrs["agentscan.turn.id"] == "prompt@1772359200100000000"  # the first prompt's, 10:00:00.1


def test_a_session_crossing_a_thousand_prompts_keeps_its_first_turns_ids(isolated_home: Path, tmp_path: Path) -> None:
    """An overlapping cron re-export must send the same trace and span ids, never the
    earliest turns' calls again under new ones."""
    long_session(isolated_home, 999, 1)
    before, _ = export(tmp_path, "before.jsonl")
    long_session(isolated_home, 1_003, 1)
    after, _ = export(tmp_path, "after.jsonl")
    assert len(before) == 999 and len(after) == 1_003
    ids = lambda lines: [(s.trace_id, s.span_id, s.parent, s.start, s.end) for line in lines for s in line]  # noqa: E731
    assert ids(after[:998]) == ids(before[:998])  # (the last turn of before grew: later instants end it)


def test_a_session_beyond_the_export_s_bounds_is_said(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentscan.otlp.sources.EXPORT_BOUNDS", Bounds(prompts=2, responses=2, tools=3))
    long_session(isolated_home, 3, 3)
    out = tmp_path / "out.jsonl"
    result = otlp("-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    said = [w["message"] for w in document["warnings"]]
    assert said == ["otlp: the session is larger than an export reads (2 prompts, 2 responses and 3 tool calls, within "
                    "2, 2 and 1 MiB of their text): its oldest 1 prompt and 2 tool calls were left out of the traces"], said
