"""A Claude LLM call written in several records (one per content block, each repeating the
usage) is placed by its first record and ends at its last: its chat span starts before the
tool calls it asked for.  Token counts do not move, and a cache of the old packed shape is
parsed again rather than read as calls written once."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from otlp_builders import one, otlp, read_otlp_file, runner, tool_result, tool_use, ts
from agentscan.timeutil import parse_iso

SESSION = "1a2b3c4d-0000-4111-8222-333344445555"


def _ns(text: str) -> int:
    parsed = parse_iso(text)
    assert parsed is not None
    return int(round(parsed.timestamp() * 1_000_000)) * 1000


def _session(home: Path) -> None:
    """One response written in three records: thinking at 1 s, tool_use Read at 3 s (the copy
    ``tokens`` keeps: the largest, and first of the two largest), tool_use Grep at 4 s."""
    small, big = claude_usage(input=10, output=5), claude_usage(input=10, output=40)
    claude_session_file(home, SESSION, [
        claude_user(SESSION, ts(0), "Find it", uuid="u1"),
        claude_assistant(SESSION, ts(1), msg_id="m1", request_id="r1", usage=small, uuid="a1",
                         blocks=[{"type": "thinking", "thinking": "hm"}]),
        claude_assistant(SESSION, ts(3), msg_id="m1", request_id="r1", usage=big, uuid="a2",
                         blocks=[tool_use("toolu_read", "Read", file_path="/a")]),
        claude_assistant(SESSION, ts(4), msg_id="m1", request_id="r1", usage=big, uuid="a3",
                         blocks=[tool_use("toolu_grep", "Grep", pattern="x")]),
        tool_result(SESSION, 6, "toolu_read"),
        tool_result(SESSION, 7, "toolu_grep"),
        claude_assistant(SESSION, ts(9), msg_id="m2", request_id="r2", usage=claude_usage(input=2, output=3), uuid="a4",
                         blocks=[{"type": "text", "text": "Done."}]),
    ])


def _export(tmp_path: Path) -> list:
    out = tmp_path / "t.jsonl"
    result = otlp("--output", str(out))
    assert result.exit_code == 0, result.output
    [spans] = read_otlp_file(out)
    return spans


def test_a_call_written_in_several_records_starts_before_the_tool_calls_it_asked_for(isolated_home: Path, tmp_path: Path) -> None:
    _session(isolated_home)
    spans = _export(tmp_path)
    chats = sorted((s for s in spans if s.name.startswith("chat")), key=lambda s: s.start)
    first, second = chats
    read, grep = one(spans, "execute_tool Read"), one(spans, "execute_tool Grep")
    # It began before its first record (at the prompt) and ended at its last record.
    assert (first.start, first.end) == (_ns(ts(0)), _ns(ts(4)))
    assert first.start < read.start < grep.start <= first.end
    # The next call read the whole response: it starts no sooner than that response's last record.
    assert second.start >= first.end and second.end == _ns(ts(9))
    # The usage is the copy `tokens` counts, not a sum of the copies.
    assert (first.attrs["agentscan.usage.output"], first.attrs["agentscan.usage.total"]) == (40, 50)


def test_token_totals_do_not_move(isolated_home: Path) -> None:
    _session(isolated_home)
    result = runner.invoke(__import__("agentscan.cli", fromlist=["app"]).app, ["tokens", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    [row] = doc["rows"]
    assert row["tokens"]["total"] == 55  # m1's largest copy (50) and m2 (5)


def test_the_deduper_keeps_the_copies_first_and_last_times_beside_the_kept_copys_own() -> None:
    from agentscan.model import TS
    from agentscan.providers.claude.dedupe import CallDeduper, packed_entries
    from agentscan.providers.claude.usage import E_FIRST_TS, E_LAST_TS, call_of

    def record(at: float, output: int, msg: str = "m1") -> dict:
        return claude_assistant(SESSION, ts(at), msg_id=msg, request_id="r", usage=claude_usage(input=1, output=output))

    deduper = CallDeduper(call_times=True)
    deduper.add_all(c for c in (call_of(record(3, 9), None, 1), call_of(record(1, 2), None, 0),
                                call_of(record(4, 9), None, 2), call_of(record(5, 1, "m2"), None, 3)) if c is not None)
    several, once = packed_entries(deduper.winners(), SESSION)
    base = parse_iso(ts(0)).timestamp()  # type: ignore[union-attr]
    assert several[TS] - base == pytest.approx(3)  # the kept copy's time: what `tokens` buckets by stays
    assert (several[E_FIRST_TS] - base, several[E_LAST_TS] - base) == (pytest.approx(1), pytest.approx(4))
    assert len(once) == E_FIRST_TS - 1  # a call written once packs as before (no origin, no times)


def test_an_index_of_the_old_packed_shape_is_parsed_again(isolated_home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.model import ORIGIN
    from agentscan.providers.claude import dedupe
    from agentscan.providers.claude.provider import ClaudeProvider

    _session(isolated_home)
    current, packed = ClaudeProvider.parser_version, dedupe.packed_entries
    # What the previous release cached: its parser version, entries without the first and last times.
    monkeypatch.setattr(ClaudeProvider, "parser_version", "12")
    monkeypatch.setattr(dedupe, "packed_entries", lambda *a, **k: (e[:ORIGIN] for e in packed(*a, **k)))
    old = one([s for s in _export(tmp_path) if s.name.startswith("chat") and s.end < _ns(ts(8))], "chat claude-sonnet-4-5-20250929")
    assert old.end == _ns(ts(3))  # the kept copy's time alone
    monkeypatch.setattr(ClaudeProvider, "parser_version", current)
    monkeypatch.setattr(dedupe, "packed_entries", packed)
    chats = [s for s in _export(tmp_path) if s.name.startswith("chat")]
    assert min(s.end for s in chats) == _ns(ts(4))


def test_a_hook_turns_llm_call_starts_before_its_first_record() -> None:
    from agentscan.model import KEY, TS
    from agentscan.otlp import semconv
    from agentscan.otlp.builder import SessionFacts, TurnBuilder
    from agentscan.otlp.from_hooks import _chat
    from agentscan.providers.claude.usage import E_LAST_TS

    S = 1_000_000_000
    facts = SessionFacts(provider="claude", native_id=SESSION, source="hooks", content=semconv.Content())
    builder = TurnBuilder(facts, "t1", 100 * S, timing="observed")
    builder.root.end_ns = 120 * S
    # A tool call the response asked for, run between the response's first and last records.
    builder.tool(builder.root, "k", "Read", "toolu_1", 103 * S, 104 * S, status="ok")
    entry: list = [SESSION, None, 105.0, "claude-sonnet-4-5", 1, 0, 0, 2, 0, "m1\x1fr1", 0, 0, 0, None, 101.0, 105.0]
    assert len(entry) == E_LAST_TS + 1 and entry[TS] == 105.0 and entry[KEY]
    _chat(builder, entry)
    chat = builder.spans[-1]
    assert (chat.start_ns, chat.end_ns) == (100 * S, 105 * S)  # from the turn's start, not the Read's end
