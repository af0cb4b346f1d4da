"""Codex's calls for ``tokens`` are packed as they are counted, no ``UsageEntry`` made.

``CodexProvider.session_usage`` gave ``[entry.pack() for entry in usage(...)]``: two frozen
dataclasses a call (a ``TokenUsage`` and a ``UsageEntry``, ≈ 8 µs) only to be taken apart
again.  It packs each call itself now (``owncalls.own_packed``, ``counters.token_fields``);
what it gives must be what packing ``usage``'s entries gives, call for call.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from codex_builders import at, lay_out_real_codex, meta, rollout_path, task_started, token_count, turn_context, usage, \
    user_message, write_demo, write_rollout
import pytest
from packed_calls import entries_made_by_tokens_pass, packed_beside_entries

from agentscan.providers.codex import usage as codex_usage
from agentscan.model import CACHE_READ, CACHE_WRITE, CACHE_WRITE_1H, INPUT, KEY, MODEL, ORIGIN, OUTPUT, RANK, REASONING, \
    SESSION, SUBAGENT, TS, WEB_SEARCHES, TokenUsage, UsageEntry, pack_call
from agentscan.providers.codex.counters import spent_on, to_tokens, token_fields
from agentscan.providers.codex.provider import CodexProvider

_COUNT = st.integers(0, 10**12)


def _fitted(counters: tuple[int, int, int, int, int, int]) -> tuple[int, int, int, int, int]:
    """The rule, spelled out: the cache read first, then the cache write, out of the input."""
    total_input, cached, cache_write, output, reasoning, _ = counters
    left = total_input
    cache_read = cached if cached <= left else left
    left -= cache_read
    if cache_write > left:
        cache_write = left
    left -= cache_write
    return left, cache_read, cache_write, output, reasoning


@given(st.tuples(_COUNT, _COUNT, _COUNT, _COUNT, _COUNT, _COUNT), st.tuples(_COUNT, _COUNT, _COUNT, _COUNT, _COUNT, _COUNT))
@example((10, 11, 0, 1, 0, 11), (0,) * 6)  # (just past the input, and just inside it)
@example((10, 10, 1, 1, 0, 11), (0,) * 6)
@example((10, 4, 7, 0, 0, 10), (1,) * 6)
@example((10, 4, 6, 0, 0, 10), (1,) * 6)
@settings(max_examples=500, deadline=None)
def test_cached_input_and_cache_writes_fit_inside_the_input(counters: tuple[int, int, int, int, int, int],
                                                            spent: tuple[int, int, int, int, int, int]) -> None:
    fields = _fitted(counters)
    assert token_fields(counters) == fields
    assert to_tokens(counters) == TokenUsage(*fields)
    # what a file's calls spent adds each call as ``tokens`` counts it, its whole input kept
    assert spent_on(spent, counters) == (spent[0] + counters[0], spent[1] + fields[1], spent[2] + fields[2],
                                         spent[3] + counters[3], spent[4] + counters[4], spent[5] + counters[5])


def test_a_call_packs_at_the_packed_indexes() -> None:
    packed = pack_call("s", "sub", 1.5, "m", (1, 2, 3, 4, 5), "k", -7, 6, 8)
    assert [packed[i] for i in (SESSION, SUBAGENT, TS, MODEL, INPUT, CACHE_READ, CACHE_WRITE, OUTPUT, REASONING, KEY,
                                RANK, CACHE_WRITE_1H, WEB_SEARCHES)] == ["s", "sub", 1.5, "m", 1, 2, 3, 4, 5, "k", -7, 6, 8]
    assert len(packed) == ORIGIN
    assert pack_call("s", None, None, None, (0, 0, 0, 0, 0), None, 0, origin="progress")[ORIGIN] == "progress"
    entry = UsageEntry("s", TokenUsage(1, 2, 3, 4, 5), datetime.fromtimestamp(1.5, timezone.utc), "m", "sub", "k", -7,
                       6, "progress", 8)
    assert entry.pack() == [*packed, "progress"]
    assert UsageEntry.unpack(entry.pack()) == entry


def _both(home: Path) -> list[tuple[list[list], list[list]]]:
    return packed_beside_entries(CodexProvider(), home)


def test_the_real_samples_pack_as_their_entries(isolated_home: Path) -> None:
    lay_out_real_codex(isolated_home)
    write_demo(isolated_home)  # (a delegating thread and its subagent, an archived one)
    pairs = _both(isolated_home)
    assert sum(len(packed) for packed, _ in pairs) > 10
    for packed, entries in pairs:
        assert packed == entries


def test_a_fork_and_a_repeated_call_pack_as_their_entries(isolated_home: Path) -> None:
    parent, fork = "019c5757-0000-7000-8000-0000000000a1", "019c5757-0000-7000-8000-0000000000f1"
    first, second = usage(1000, 800, 10, 4), usage(2000, 2500, 20, 0, cache_write=100)  # (cached past input)
    calls = [token_count(at(2), first, first), token_count(at(3), usage(3000, 3300, 30, 4, cache_write=100), second),
             token_count(at(3), usage(3000, 3300, 30, 4, cache_write=100), second),  # (a repeat: skipped)
             # undated calls: no timestamp (no key) and one that reads as no time (a key, no time)
             token_count(None, usage(3500, 3300, 35, 4, cache_write=100), usage(500, 0, 5)),
             token_count("garbage", usage(3600, 3300, 36, 4, cache_write=100), usage(100, 0, 1))]
    write_rollout(rollout_path(isolated_home / ".codex", parent, at(0)),
                  [meta(parent, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "p"), *calls])
    write_rollout(rollout_path(isolated_home / ".codex", fork, at(10)),
                  [meta(fork, at(10), forked_from=parent), turn_context(at(1), "gpt-5"), *calls,
                   task_started(at(11), at(11).timestamp()), token_count(at(12), usage(4000, 3300, 40, 4, cache_write=100),
                                                                         usage(1000, 0, 10))])
    pairs = _both(isolated_home)
    assert sorted(len(packed) for packed, _ in pairs) == [1, 4]
    undated = [(call[TS], call[KEY]) for packed, _ in pairs for call in packed if call[TS] is None]
    assert undated == [(None, None), (None, "garbage\x1f100,0,0,1,0,101")]
    for packed, entries in pairs:
        assert packed == entries


def test_tokens_pass_makes_no_usage_entry(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lay_out_real_codex(isolated_home)
    assert entries_made_by_tokens_pass(CodexProvider(), codex_usage, isolated_home, monkeypatch) == []
