"""A resumed session's copy of a call larger than its first session's own copy (pass 51).

``tokens`` kept the largest copy (rule 2) before the session its record names, so it
credited the call to the resumed session (first 0, resumed 350) while the first session's
``list`` row, ``show`` card and export record counted its own copy (110): the rows added up
to 460, ``tokens`` said 350.  The copy in the file of the session its record names counts
now, whatever its total (``dedupe._NAMED_HERE``): first 110, resumed 220, every view alike.
Both ways a copy meets its call: under the same ``requestId``, and without one (rule 3).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

FIRST = "e9f146fa-0000-4000-8000-00000000a051"
RESUMED = "b162b1ae-0000-4000-8000-00000000a051"


def _call(request_id: str | None, output: int) -> list[dict]:
    """FIRST's first turn (100 in, ``output`` out), as FIRST wrote it or as a resume copies it."""
    return [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "fix the build", uuid="u1"),
            claude_assistant(FIRST, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id=request_id,
                             usage=claude_usage(100, output), parentUuid="u1", uuid="a1")]


def _own_turn() -> list[dict]:
    return [claude_user(RESUMED, "2026-05-02T09:00:00.000Z", "and now the tests", uuid="u2", parentUuid="a1"),
            claude_assistant(RESUMED, "2026-05-02T09:00:05.000Z", msg_id="m2", request_id="r2",
                             usage=claude_usage(200, 20), parentUuid="u2", uuid="a2")]


@pytest.mark.parametrize("copy_request", ["r1", None], ids=["same-request", "rule-3"])
def test_a_larger_resumed_copy_counts_where_its_record_names(isolated_home: Path, copy_request: str | None) -> None:
    claude_session_file(isolated_home, FIRST, _call("r1", 10))
    claude_session_file(isolated_home, RESUMED, _call(copy_request, 30) + _own_turn())
    expected = {f"claude:{FIRST}": 110, f"claude:{RESUMED}": 220}
    for cache in ((), (), ("--no-cache",)):  # cold, warm, no cache
        report = orjson.loads(invoke(*cache, "tokens", "--all", "--json").stdout)
        rows = {row["key"]: row["tokens"]["total"] for row in report["rows"]}
        assert rows == expected, cache
        assert report["total"]["total"] == 330
        listed = {row["id"]: row["tokens"]["total"]
                  for row in orjson.loads(invoke(*cache, "list", "--all", "--json").stdout)["sessions"]}
        assert listed == rows, cache
        assert sum(listed.values()) == report["total"]["total"]
        for session in (FIRST, RESUMED):
            shown = orjson.loads(invoke(*cache, "show", session, "--json").stdout)["session"]
            assert shown["tokens"]["total"] == rows[f"claude:{session}"], (cache, session)
        exported = {orjson.loads(line)["id"]: orjson.loads(line)["tokens"]["total"]
                    for line in invoke(*cache, "export", "--format", "jsonl").stdout.splitlines()}
        assert exported == rows, cache
        days = invoke(*cache, "export", "--format", "jsonl", "--days").stdout.splitlines()
        assert sum(orjson.loads(line)["tokens"]["total"] for line in days) == report["total"]["total"], cache
        alone = orjson.loads(invoke(*cache, "tokens", RESUMED, "--json").stdout)
        assert alone["total"]["total"] == 220, cache
