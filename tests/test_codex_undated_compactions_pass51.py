"""A compaction whose line has no time (a trimmed or garbled ``timestamp``: the catalog sample's
``[trimmed for fixture]``) is counted on the card; it is also marked among the prompts, where
it was read among them (file order), not left out, and ``show --json`` says nothing of that
place (no ``seq``: a prompt's is not in JSON either)."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from codex_builders import Calls, meta, rollout_path, T0, write_rollout
from test_codex_show_pass50 import S, _compaction, _turn


def _undated(records: list[dict]) -> list[dict]:
    return [dict(record, timestamp="[trimmed for fixture]") if record["type"] in ("compacted", "event_msg")
            and (record["type"] == "compacted" or record["payload"].get("type") == "context_compacted") else record
            for record in records]


def _thread(home: Path) -> None:
    calls = Calls()
    records = [meta(S, T0), *_turn(calls, 1, "first task", 90_000),
               *_undated(_compaction(calls, 10, event=True, context_before=180_000, left=12_000)),
               *_turn(calls, 20, "second task", 40_000),
               *_compaction(calls, 30, event=False, context_before=150_000, left=9_000),
               *_turn(calls, 40, "third task", 20_000)]
    write_rollout(rollout_path(home / ".codex", S, T0), records)


def test_an_undated_compaction_is_marked_where_it_was_read(isolated_home: Path, tty) -> None:
    _thread(isolated_home)
    tty(100)
    lines = invoke("show", S).stdout.splitlines()
    assert next(line for line in lines if line.startswith("  counts")).endswith(", 2 compactions")
    start = lines.index("prompts (3)")
    assert [line[20:] for line in lines[start + 1:start + 6]] == [
        "first task",
        "── context compacted (180,000 tokens before)",
        "second task",
        "── context compacted (150,000 tokens before)",
        "third task"]
    assert lines[start + 2].startswith("  -  ")  # no time to show


def test_json_keeps_no_reading_order(isolated_home: Path) -> None:
    _thread(isolated_home)
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert shown["compactions"] == [
        {"timestamp": None, "trigger": None, "pre_tokens": 180_000},
        {"timestamp": "2026-03-02T09:30:04.000Z", "trigger": None, "pre_tokens": 150_000}]


def test_show_full_marks_it_where_it_was_read(isolated_home: Path) -> None:
    _thread(isolated_home)
    out = invoke("show", S, "--full").stdout
    first, mark, second = out.index("first task"), out.index("── context compacted (180000"), out.index("second task")
    assert first < mark < second
