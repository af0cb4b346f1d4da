"""Codex's calls for ``tokens`` are packed as they are counted, no ``UsageEntry`` made.

``CodexProvider.session_usage`` gave ``[entry.pack() for entry in usage(...)]``: two frozen
dataclasses a call (a ``TokenUsage`` and a ``UsageEntry``, ≈ 8 µs) only to be taken apart
again.  It packs each call itself now (``owncalls.own_packed``, ``counters.token_fields``);
what it gives must be what packing ``usage``'s entries gives, call for call.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codex_builders import at, lay_out_real_codex, meta, rollout_path, task_started, token_count, turn_context, usage, \
    user_message, write_demo, write_rollout
from agentscan.context import ScanContext
from agentscan.providers.codex import usage as codex_usage
from agentscan.providers.codex.counters import to_tokens, token_fields
from agentscan.providers.codex.provider import CodexProvider

_COUNT = st.integers(0, 10**12)


@given(st.tuples(_COUNT, _COUNT, _COUNT, _COUNT, _COUNT, _COUNT))
@settings(max_examples=500, deadline=None)
def test_token_fields_are_to_tokens(counters: tuple[int, int, int, int, int, int]) -> None:
    tokens = to_tokens(counters)
    assert token_fields(counters) == (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output,
                                      tokens.reasoning)


def _both(home: Path) -> list[tuple[list[list], list[list]]]:
    ctx = ScanContext.create(home=home, env={})
    provider = CodexProvider()
    refs = provider.discover(ctx)
    assert refs
    out = []
    for ref in refs:
        packed, state = provider.session_usage(ref, ctx)
        assert state is None
        out.append((list(packed), [entry.pack() for entry in provider.usage([ref], ctx)]))
    return out


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
             token_count(at(3), usage(3000, 3300, 30, 4, cache_write=100), second)]  # (a repeat: skipped)
    write_rollout(rollout_path(isolated_home / ".codex", parent, at(0)),
                  [meta(parent, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "p"), *calls])
    write_rollout(rollout_path(isolated_home / ".codex", fork, at(10)),
                  [meta(fork, at(10), forked_from=parent), turn_context(at(1), "gpt-5"), *calls,
                   task_started(at(11), at(11).timestamp()), token_count(at(12), usage(4000, 3300, 40, 4, cache_write=100),
                                                                         usage(1000, 0, 10))])
    pairs = _both(isolated_home)
    assert [len(packed) for packed, _ in pairs] == [2, 1] or [len(packed) for packed, _ in pairs] == [1, 2]
    for packed, entries in pairs:
        assert packed == entries


def test_tokens_pass_makes_no_usage_entry(isolated_home: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lay_out_real_codex(isolated_home)
    made: list[object] = []
    entry = codex_usage.UsageEntry

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(args)
        return entry(*args, **kwargs)

    monkeypatch.setattr(codex_usage, "UsageEntry", counted)
    ctx = ScanContext.create(home=isolated_home, env={})
    provider = CodexProvider()
    assert any(list(provider.session_usage(ref, ctx)[0]) for ref in provider.discover(ctx))
    assert made == []
