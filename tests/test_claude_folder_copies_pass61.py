"""One Claude session id's transcripts in two project folders of one root, differing (a project
folder renamed or copied beside the original, each written on since): a decided limit, as for
copies under two roots (docs/providers/claude.md): one copy is counted, the fresher where
neither holds the other, and the other is said, its own calls not counted (ccusage counts each
call of both once).  Every command, cached or not, counts the same copy; the warning says
"another folder" (it said "another root", which it is not)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, forget_remembered_answers, invoke

S = "5ab00000-0000-4000-8000-000000000002"


def _outputs(*args: str) -> tuple[str, str]:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_differing_copies_in_two_project_folders_count_one_every_way(isolated_home: Path) -> None:
    start = claude_user(S, "2026-11-07T10:00:00.000Z", "work")
    first = claude_assistant(S, "2026-11-07T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10))
    older = claude_session_file(isolated_home, S, [start, first, claude_assistant(
        S, "2026-11-07T10:00:02.000Z", msg_id="m2", request_id="r2", usage=claude_usage(200, 20))], project="-proj-a")
    fresher = claude_session_file(isolated_home, S, [start, first, claude_assistant(
        S, "2026-11-07T10:00:03.000Z", msg_id="m3", request_id="r3", usage=claude_usage(400, 40))], project="-proj-b")
    os.utime(older, (1_790_000_000, 1_790_000_000))
    os.utime(fresher, (1_790_000_010, 1_790_000_010))
    for args in [("tokens", "--json"), ("list", "--all", "--json"), ("export", "--format", "jsonl"),
                 ("show", S[:8], "--json"), ("show", S[:8])]:
        plain = _outputs(*args, "--no-cache")
        cold, warm = _outputs(*args), _outputs(*args)
        forget_remembered_answers()
        assert [cold, warm, _outputs(*args)] == [plain] * 3, args
    report = orjson.loads(_outputs("tokens", "--json")[0])
    assert report["total"]["total"] == 110 + 440  # (the fresher copy's: m2, only in the other, is not counted)
    assert [(w["path"], w["message"]) for w in report["warnings"]] == [
        (str(older), "differs from another copy of its session in another folder, which is counted instead "
                     f"(calls only in this copy are not): {fresher}")]
    card = orjson.loads(_outputs("show", S, "--json")[0])
    assert card["session"]["path"] == str(fresher) and card["session"]["tokens"]["total"] == 550
