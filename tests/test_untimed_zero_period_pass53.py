"""Pass 53 (mendLead): ``tokens --by day --json`` kept a final ``unknown`` row of 0 tokens.

Calls with no time and 0 tokens (Claude Code's ``<synthetic>`` notices) made an ``unknown``
period the table leaves out as telling nothing; --json kept it, every count 0, so text and
JSON disagreed and a script summing or charting days had a row that was no day to skip.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke


@pytest.mark.parametrize("by", ["day", "week", "month"])
def test_no_all_zero_unknown_period_in_json(isolated_home: Path, by: str) -> None:
    """Claude Code's ``<synthetic>`` notice of 0 tokens with no time: the table leaves its
    ``unknown`` period out, and --json, cold or warm, now does too."""
    native = "0a530000-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-01T10:00:00Z", "go"),
        claude_assistant(native, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
        claude_assistant(native, None, msg_id="m2", request_id="r2", usage=claude_usage(0, 0), model="<synthetic>"),
    ])
    for _ in range(2):  # cold, then from the cache
        result = invoke("tokens", "--by", by, "--tz", "UTC", "--json", "-p", "claude")
        assert result.exit_code == 0, result.stderr
        document = orjson.loads(result.stdout)
        assert len(document["rows"]) == 1 and "unknown" not in [row["key"] for row in document["rows"]]
        assert document["total"]["total"] == 110
