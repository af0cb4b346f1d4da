"""A fork that references its parent's history (0.158+, ``history_base``) counts its own calls.

Such a fork copies no line of its parent: its meta names the parent's rollout and the byte its
history ends at, and its running totals count on from the parent's.  Two faults (a review, pass
58): ``tokens`` and ``show`` read its first file as a copy (``replay``) and, with no
``task_started`` to end the copy, took every call for the parent's ("recorded no usage"); and
``list``, whose base is the count before the file's first call found in its first 1 MiB, had
none when a long tool output came first, and counted the parent's inherited total as the fork's
(233,750 for 11,250).  Now the file is no copy, and the base is its own first call's total less
that call, found in its bytes (``usage.first_call_base``).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, task_started, token_count, turn_context, usage, \
    user_message
from test_codex_replayed_totals_pass57 import _expected, _running

P = "019c5757-0000-7000-8000-0000000000a1"
F = "019c5757-0000-7000-8000-0000000000f1"
A1, A2 = usage(100000, 80000, 1000), usage(120000, 100000, 1500)
C1, C2 = usage(5000, 0, 100), usage(6000, 4000, 150)


def _write(home: Path, padding: int, started: bool) -> None:
    run = _running([A1, A2])
    parent = [meta(P, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "parent"),
              *(token_count(at(2 + i), total, last) for i, (total, last) in enumerate(run))]
    data = b"".join(orjson.dumps(record) + b"\n" for record in parent)
    path = rollout_path(home / ".codex", P, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    head = meta(F, at(10), forked_from=P)
    head["payload"].update(forked_from_ordinal_exclusive=len(parent), history_mode="paginated",
                           history_base={"thread_id": P, "end_byte_offset": len(data),
                                         "end_ordinal_exclusive": len(parent)})
    fork = [head, *([task_started(at(11), 1772442011.0)] if started else []), turn_context(at(11), "gpt-5"),
            user_message(at(11), "fork prompt"),
            *(function_output(at(12), f"c{i}", "y" * 14000) for i in range(padding)),  # 80: past 1 MiB
            *(token_count(at(20 + i), total, last) for i, (total, last) in enumerate(_running([C1, C2], run[-1][0])))]
    rollout_path(home / ".codex", F, at(10)).write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in fork))


@pytest.mark.parametrize(("padding", "started"), [(80, True), (80, False), (2, False)])
def test_a_fork_by_reference_counts_its_own_calls(isolated_home: Path, padding: int, started: bool) -> None:
    _write(isolated_home, padding, started)
    own = _expected([C1, C2])
    for args in ((), (), ("--no-cache",)):  # cold, warm, without the index
        rows = {row["id"]: row for row in cli_json("list", "--all", *args)["sessions"]}
        assert rows[f"codex:{F}"]["tokens"] == own, args
        assert rows[f"codex:{P}"]["tokens"] == _expected([A1, A2]), args
        assert cli_json("show", F, *args)["session"]["tokens"] == own, args
        assert cli_json("tokens", F, *args)["total"] == own, args
        assert cli_json("tokens", *args)["total"] == _expected([A1, A2, C1, C2]), args
