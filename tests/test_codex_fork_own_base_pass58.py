"""A fork that references its parent's history (``history_base``) finds its base in its own file.

Its running totals count on from its parent's, so its row's count is its last total less the
total before its first call.  When a long tool output put that call past the fork's first 1 MiB,
the row read the parent's total at ``end_byte_offset`` (``totalseed.seeds_before``), and a parent
gone, compressed (``.jsonl.zst``: its compressed bytes searched) or with its last call over 32 MiB
before that byte left the row counting the parent's history as the fork's: 233,750 where
``tokens`` and ``show`` said 11,250 (a review, pass 58).  Now the fork's own bytes are searched
for its first call (``usage.first_call_base``); found none with both counts, the row says its
counts are partial.

A fork whose first ``token_count`` re-emits its parent's total with ``last_token_usage: {}``
(cc-switch#5854: ``{}`` is written) counted that whole history as its own, in the row (233,750,
partial) and in ``tokens``/``show`` (the first total taken for a call): it is the base restored
when the next call's total less its call equals it (parser 45).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import zstandard

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message
from test_codex_replayed_totals_pass57 import _expected, _running

P = "019c5757-0000-7000-8000-0000000000a1"
F = "019c5757-0000-7000-8000-0000000000f1"
A1, A2 = usage(100000, 80000, 1000), usage(120000, 100000, 1500)
C1, C2 = usage(5000, 0, 100), usage(6000, 4000, 150)


def _write(home: Path, *, parent: str, padding: int = 80, last: bool = True, restored: bool = False) -> None:
    run = _running([A1, A2])
    records = [meta(P, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "parent"),
               *(token_count(at(2 + i), total, call) for i, (total, call) in enumerate(run))]
    data = b"".join(orjson.dumps(record) + b"\n" for record in records)
    if parent == "far":  # its calls over 32 MiB before the byte its history ends at
        data += (orjson.dumps(function_output(at(5), "p", "z" * (33 * 1024 * 1024))) + b"\n")
    path = rollout_path(home / ".codex", P, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    if parent == "zst":
        path.with_name(path.name + ".zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    elif parent != "gone":
        path.write_bytes(data)
    head = meta(F, at(10), forked_from=P)
    head["payload"].update(forked_from_ordinal_exclusive=len(records), history_mode="paginated",
                           history_base={"thread_id": P, "end_byte_offset": len(data),
                                         "end_ordinal_exclusive": len(records)})
    fork = [head, turn_context(at(11), "gpt-5"), user_message(at(11), "fork prompt"),
            *(function_output(at(12), f"c{i}", "y" * 14000) for i in range(padding)),  # 80: past 1 MiB
            *([token_count(at(19), run[-1][0], {})] if restored else []),  # the parent's total, no call
            *(token_count(at(20 + i), total, call if last else None)
              for i, (total, call) in enumerate(_running([C1, C2], run[-1][0])))]
    rollout_path(home / ".codex", F, at(10)).write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in fork))


@pytest.mark.parametrize("parent", ["gone", "zst", "far"])
def test_a_fork_by_reference_takes_its_base_from_its_own_file(isolated_home: Path, parent: str) -> None:
    _write(isolated_home, parent=parent)
    own = _expected([C1, C2])
    for args in ((), (), ("--no-cache",)):  # cold, warm, without the index
        rows = {row["id"]: row for row in cli_json("list", "--all", *args)["sessions"]}
        assert rows[f"codex:{F}"]["tokens"] == own, args
        assert cli_json("tokens", F, *args)["total"] == own, args


def test_a_fork_with_no_base_to_find_says_its_counts_are_partial(isolated_home: Path) -> None:
    # (no `last_token_usage`: the total before the first call is not known, its parent gone)
    _write(isolated_home, parent="gone", padding=2, last=False)
    for args in ((), ("--no-cache",)):
        row = {row["id"]: row for row in cli_json("list", "--all", *args)["sessions"]}[f"codex:{F}"]
        assert row["counts_partial"] is True, args
        assert row["tokens"] == cli_json("tokens", F, *args)["total"], args


@pytest.mark.parametrize("parent", ["there", "gone"])
def test_a_fork_opening_with_its_parents_total_and_no_call_counts_its_own_calls(
        isolated_home: Path, parent: str) -> None:
    _write(isolated_home, parent=parent, padding=2, restored=True)
    own = _expected([C1, C2])
    assert own["total"] == 11250
    for args in ((), (), ("--no-cache",)):  # cold, warm, without the index
        row = {row["id"]: row for row in cli_json("list", "--all", *args)["sessions"]}[f"codex:{F}"]
        assert (row["tokens"], row.get("counts_partial", False)) == (own, False), args
        assert cli_json("tokens", F, *args)["total"] == own, args
        assert cli_json("show", F, *args)["session"]["tokens"] == own, args


def _base_of(path: Path, lines: list[dict]) -> tuple[object, bool]:
    from agentscan.providers.codex.usage import first_call_base
    from agentscan.context import ScanContext

    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return first_call_base(path, ScanContext(home=path.parent, env={}), 1 << 20)


def test_a_first_total_with_no_call_is_the_base_only_as_far_as_the_next_call_agrees(tmp_path: Path) -> None:
    from agentscan.providers.codex.counters import counters_of

    run = _running([A1, A2])
    parent_total = run[-1][0]
    own = _running([C1, C2], parent_total)
    restored = token_count(at(19), parent_total, {})
    base = counters_of(parent_total)
    # the next call counts on from it: the base, exact
    assert _base_of(tmp_path / "a.jsonl", [restored, *(token_count(at(20 + i), t, c) for i, (t, c) in
                                                       enumerate(own))]) == (base, True)
    # a call between whose count was never written: the base is more; that total is a lower bound
    assert _base_of(tmp_path / "b.jsonl", [restored, token_count(at(21), *own[1])]) == (base, False)
    # nothing after it: a lower bound too
    assert _base_of(tmp_path / "c.jsonl", [restored]) == (base, False)
