"""``list`` reads a bounded part of a huge rollout; ``tokens`` reads it all."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

import agentscan.toolkit.jsonl
from agentscan.scan.scanner import Scanner
from agentscan.providers.codex import header as codex_header
from agentscan.providers.codex import headtail as codex_summary
from agentscan.scan.tokens import token_report
from codex_builders import (
    at,
    function_call,
    line,
    meta,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    user_message,
)

BIG = "019c3333-0000-7000-8000-0000000000b6"
MIB = 1024 * 1024


def _dumps(records) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _big_rollout(codex: Path, size: int = 50 * MIB) -> Path:
    """A valid head and tail around a middle of invalid lines (~``size`` bytes in all)."""
    head = _dumps([
        meta(BIG, at(0)),
        task_started(at(1)),
        turn_context(at(1), "gpt-5-codex"),
        user_message(at(1), "Port the build to meson"),
        token_count(at(10), usage(1000, 0, 100), usage(1000, 0, 100)),
    ])
    garbage = b"{this line is not JSON " + b"x" * 1000 + b"\n"
    # The tail: 1.5 MiB of valid lines (more than the 1 MiB window), then the last calls.
    filler = line(at(500), "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "z" * 1000})
    tail = _dumps([filler] * 1536)
    tail += _dumps([
        function_call(at(600), "update_plan", {"plan": [{"step": "configure", "status": "completed"}, {"step": "port tests", "status": "in_progress"}]}, "c1"),
        turn_context(at(600), "gpt-5.1-codex"),
        # Cumulative after the last call: 90000 in (60000 cached), 4000 out (1500 reasoning).
        token_count(at(601), usage(90000, 60000, 4000, 1500), usage(5000, 4000, 200, 100)),
        token_count(at(602), usage(90000, 60000, 4000, 1500), usage(5000, 4000, 200, 100)),  # re-emitted
    ])
    middle = garbage * ((size - len(head) - len(tail)) // len(garbage))
    path = rollout_path(codex, BIG, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + middle + tail)
    return path


class _Counting(io.RawIOBase):
    """A read-only file proxy that adds up the bytes handed out."""

    def __init__(self, handle, tally: list[int]) -> None:
        self._handle, self._tally = handle, tally

    def readline(self, size: int = -1) -> bytes:
        data = self._handle.readline(size)
        self._tally.append(len(data))
        return data

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self._tally.append(len(data))
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._handle.seek(offset, whence)

    def close(self) -> None:
        self._handle.close()
        super().close()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    tally: list[int] = []
    real_open = agentscan.toolkit.jsonl.open_binary
    real_tail = codex_summary.read_tail

    def open_counted(path: Path, *args: int):
        return _Counting(real_open(path, *args), tally)

    def tail_counted(path: Path, limit: int):
        data, cut = real_tail(path, limit)
        tally.append(len(data))
        return data, cut

    monkeypatch.setattr(agentscan.toolkit.jsonl, "open_binary", open_counted)
    monkeypatch.setattr(codex_header, "open_binary", open_counted)
    monkeypatch.setattr(codex_summary, "read_tail", tail_counted)
    return tally


def test_list_reads_a_bounded_part_of_a_50_mb_rollout(isolated_home: Path, counted: list[int]) -> None:
    path = _big_rollout(isolated_home / ".codex")
    assert path.stat().st_size > 49 * MIB
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    (row,) = scanner.list_sessions()
    # Not one warning: the invalid middle was never read.
    assert scanner.warnings == []
    assert sum(counted) < 2 * MIB
    assert row.title == "Port the build to meson"
    assert row.model == "gpt-5.1-codex"  # the latest turn_context in the tail
    # The latest cumulative count: input 90000-60000, cache_read 60000, output 4000.
    assert (row.tokens.input, row.tokens.cache_read, row.tokens.output, row.tokens.reasoning) == (30000, 60000, 4000, 1500)
    assert row.counts.tool_calls == 1  # counts cover the last 1 MiB only on files this big


def test_tokens_reads_it_all_and_reports_the_middle(isolated_home: Path) -> None:
    path = _big_rollout(isolated_home / ".codex", size=6 * MIB)
    # tokens decodes only the lines that can matter to it (token_count, turn_context,
    # task_started): a broken one of those in the middle is reported, with its line.
    data = path.read_bytes()
    middle = data.index(b"{this line is not JSON", 3 * MIB)
    middle = data.index(b"\n", middle) + 1
    broken = b'{"type":"event_msg","payload":{"type":"token_count", oops\n'
    path.write_bytes(data[:middle] + broken + data[middle:])
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    report = token_report(scanner)
    # The two calls written: (1000, 0, 100) and (5000, 4000, 200, reasoning 100); the
    # re-emitted count is skipped.  Only 2 of the cumulative 90000 were logged in this
    # made-up file: the calls count (a row read whole counts them too), and the file is
    # told of its running total that moved past its call (``countwarnings.total_warning``).
    assert (report.total.input, report.total.cache_read, report.total.output) == (2000, 4000, 300)
    number = data[:middle].count(b"\n") + 1
    assert [(w.message[:20], w.line) for w in scanner.warnings] == [("invalid JSON skipped", number),
                                                                    ("running total_token_", None)]


def test_the_tail_summary_is_cached_by_size_and_mtime(isolated_home: Path, counted: list[int]) -> None:
    path = _big_rollout(isolated_home / ".codex", size=3 * MIB)
    Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()
    first = sum(counted)
    counted.clear()
    (row,) = Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()
    assert sum(counted) == 0 and row.tokens.total == 94000
    with open(path, "ab") as handle:  # the session goes on: size and mtime change
        handle.write(_dumps([token_count(at(700), usage(91000, 60000, 4100, 1500), usage(1000, 0, 100))]))
    (row,) = Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()
    assert 0 < sum(counted) <= first and row.tokens.total == 95100


def test_show_holds_item_prompts_bounded_not_whole(isolated_home: Path) -> None:
    """Prompts recorded only as response items wait for the end of the file
    (an event may still supersede them): each must be cut before it waits, or
    a rollout of many huge prompts holds all of them in memory at once."""
    import tracemalloc

    from codex_builders import assistant_item, user_item, write_rollout

    codex = isolated_home / ".codex"
    huge = "x" * MIB
    records = [meta(BIG, at(0)), turn_context(at(0))]
    for index in range(24):
        records += [user_item(at(index + 1), f"{index}:" + huge), assistant_item(at(index + 1.5), huge)]
    write_rollout(rollout_path(codex, BIG, at(0)), records)
    scanner = Scanner(home=isolated_home)
    tracemalloc.start()
    try:
        detail = scanner.show(BIG)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [p.text.split(":")[0] for p in detail.prompts] == [str(i) for i in range(24)]
    assert all(len(p.text.encode()) <= 64 * 1024 for p in detail.prompts)
    assert detail.truncated["clipped_messages"] >= 48
    # 48 MiB of text went through.  Reading one 1 MiB line costs a few MiB at
    # a time (measured: 26 MiB peak); holding every prompt whole cost 70 MiB.
    assert peak < 40 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_a_small_rollout_s_bad_line_is_said_once_with_its_number(isolated_home: Path) -> None:
    # A rollout under 1 MiB is read whole by the tail read too: it said "invalid JSON
    # skipped in the last 1 MiB" (no line) beside the whole pass's ":2: invalid JSON skipped".
    small = "019c3333-0000-7000-8000-0000000000c1"
    path = rollout_path(isolated_home / ".codex", small, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_dumps([meta(small, at(0))]) + b"{not json\n" + _dumps([
        turn_context(at(1), "gpt-5-codex"), user_message(at(1), "Port the build to meson"),
        token_count(at(10), usage(1000, 0, 100), usage(1000, 0, 100)),
    ]))
    scanner = Scanner()
    scanner.list_sessions()
    token_report(scanner)
    bad = [(w.line, w.message) for w in scanner.warnings if "JSON" in w.message]
    assert len(bad) == 1 and bad[0][0] == 2 and bad[0][1].startswith("invalid JSON skipped: "), bad
