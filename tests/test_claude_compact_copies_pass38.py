"""Records a second ``/compact`` re-appended (claude-code issue 92089) are counted once.

Claude Code 2.1.237–2.1.260 re-appends a copy of every earlier message when a process
compacts a second time, each with its original ``uuid``, ``parentUuid`` and ``timestamp``.
``list``'s counts and ``show``'s lists counted and listed the copies again (3 prompts and
one call read as 4 and 2); a record dated before the newest compaction whose uuid was
already read is now skipped (``seenuuids``): read whole, by halves, resumed, cached or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.claude import halfjoin, halves, rowresume
from agentscan.providers.claude.seenuuids import CopiesUnknown, SeenUuids
from agentscan.scan.scanner import Scanner
from builders import claude_session_file
from claude_events import cli_json_at, lines_of, lower_row_limits, split_huge_passes
from spies import record_calls
from test_sidepass import BOUNDS

SID = "22222222-2222-3333-4444-555555555555"
COUNTS = {"prompts": 3, "responses": 3, "tool_calls": 1}
PROMPTS = ["First prompt: list files", "Second prompt: run tests", "Third prompt: commit"]


def _rec(**fields: Any) -> dict:
    return {"isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": SID, "version": "2.1.240",
            "gitBranch": "main", **fields}


def _reply(uuid: str, parent: str, ts: str, n: int, content: list) -> dict:
    return _rec(type="assistant", uuid=uuid, parentUuid=parent, timestamp=ts, requestId=f"req_{n}",
                message={"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                         "content": content, "usage": {"input_tokens": 10, "output_tokens": 20,
                                                       "cache_read_input_tokens": 1000,
                                                       "cache_creation_input_tokens": 100}})


def _prompt(uuid: str, parent: str | None, ts: str, text: str) -> dict:
    return _rec(type="user", uuid=uuid, parentUuid=parent, timestamp=ts, message={"role": "user", "content": text})


def _compaction(n: int, at: str) -> list[dict]:
    return [
        _rec(type="system", subtype="compact_boundary", uuid=f"cb{n}", parentUuid=None, logicalParentUuid="a1b",
             timestamp=f"2026-09-01T{at}:00.000Z", content="Conversation compacted",
             compactMetadata={"trigger": "manual", "preTokens": 5000}),
        _rec(type="user", uuid=f"cs{n}", parentUuid=f"cb{n}", isCompactSummary=True, isVisibleInTranscriptOnly=True,
             timestamp=f"2026-09-01T{at}:01.000Z",
             message={"role": "user", "content": "This session is being continued from a previous conversation..."}),
    ]


FIRST = [
    _prompt("u1", None, "2026-09-01T10:00:00.000Z", PROMPTS[0]),
    _reply("a1", "u1", "2026-09-01T10:00:05.000Z", 1,
           [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]),
    _rec(type="user", uuid="r1", parentUuid="a1", timestamp="2026-09-01T10:00:06.000Z",
         message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b"}]},
         toolUseResult={"stdout": "a b", "stderr": "", "interrupted": False, "isImage": False}),
    _reply("a1b", "r1", "2026-09-01T10:00:08.000Z", 2, [{"type": "text", "text": "Files: a b"}]),
]
SECOND = [_prompt("u2", "cs1", "2026-09-01T10:11:00.000Z", PROMPTS[1]),
          _reply("a2", "u2", "2026-09-01T10:11:05.000Z", 3, [{"type": "text", "text": "Tests pass."}])]
THIRD = [_prompt("u3", "cs2", "2026-09-01T10:21:00.000Z", PROMPTS[2]),
         _reply("a3", "u3", "2026-09-01T10:21:05.000Z", 4, [{"type": "text", "text": "Committed."}])]
#: the reviewer's reproduction: the history before the first compaction copied by the second
REPLAYED = [*FIRST, *_compaction(1, "10:10"), *SECOND, *FIRST, *_compaction(2, "10:20"), *THIRD]


def _home(tmp_path: Path, records: list[dict]) -> Path:
    home = tmp_path / "home"
    path = claude_session_file(home, SID, [])
    path.write_bytes(lines_of(records))
    return path


@pytest.mark.parametrize("cache", [True, False], ids=["cached", "no-cache"])
def test_list_and_show_count_a_re_appended_copy_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     cache: bool) -> None:
    _home(tmp_path, REPLAYED)
    flags = [] if cache else ["--no-cache"]
    for _ in range(2 if cache else 1):  # (cached: the second run reads the kept row)
        (row,) = cli_json_at(tmp_path, monkeypatch, *flags, "list")["sessions"]
        assert row["counts"] == COUNTS
        assert row["tokens"]["output"] == 80  # four calls, as before: usage was always counted once
        session = cli_json_at(tmp_path, monkeypatch, *flags, "show", SID[:8])["session"]
        assert session["counts"] == COUNTS
        assert [prompt["text"] for prompt in session["prompts"]] == PROMPTS
        assert [reply["text"] for reply in session["responses"]] == ["Files: a b", "Tests pass.", "Committed."]
        assert len(session["tools"]) == session["counts"]["tool_calls"]


def test_a_record_without_a_uuid_or_dated_after_the_compaction_counts_as_before(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    anonymous = {key: value for key, value in FIRST[0].items() if key != "uuid"}
    later = _prompt("u1", "cs1", "2026-09-01T10:12:00.000Z", "asked again, the same uuid")  # no copy: dated after
    _home(tmp_path, [anonymous, *_compaction(1, "10:10"), anonymous, later])
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 3


def test_show_from_the_end_lists_no_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Read from its end (``tail``), a copy comes before its original: the facts are none, and it reads forward.
    lower_row_limits(monkeypatch)
    _home(tmp_path, REPLAYED)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    for cache in (True, True, False):
        with Scanner(env=env, use_cache=cache) as scanner:
            detail = scanner.show(SID, bounds=BOUNDS).to_json()
        assert detail["counts"] == COUNTS
        assert [prompt["text"] for prompt in detail["prompts"]] == PROMPTS
        assert len(detail["tools"]) == 1


def _by_halves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[dict], seam_before: int) -> tuple:
    """The row and ``show`` of ``records`` with the seam before record ``seam_before``, and
    the same read in one pass; and whether the halves were joined."""
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)
    path = _home(tmp_path, records)
    seam = len(lines_of(records[:seam_before]))
    monkeypatch.setattr(halves, "find_seam", lambda path, size: seam)
    firsts = record_calls(monkeypatch, halves.Halves, "first_half", lambda *args: "first")
    joins = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")

    def seen(cache: str, use_cache: bool = True) -> tuple:
        env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
        with Scanner(env=env, use_cache=use_cache) as scanner:
            row = scanner.all_rows()[0].to_json()
            return row, scanner.show(SID, bounds=BOUNDS).to_json()

    split_huge_passes(monkeypatch, True)
    split = seen("split")
    assert firsts and path.exists()
    joined = bool(joins)
    split_huge_passes(monkeypatch, False)
    assert seen("one") == split == seen("none", use_cache=False)
    return split, joined


def test_a_copy_in_the_second_half_of_a_record_in_the_first_is_skipped(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seam = REPLAYED.index(SECOND[0])  # the originals before the seam, their copies after it
    (row, detail), joined = _by_halves(tmp_path, monkeypatch, REPLAYED, seam)
    assert not joined  # the helper could not tell the copies: this process read its half
    assert row["counts"] == detail["counts"] == COUNTS
    assert [prompt["text"] for prompt in detail["prompts"]] == PROMPTS


def test_halves_with_the_copies_before_the_seam_are_joined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (row, detail), joined = _by_halves(tmp_path, monkeypatch, REPLAYED, REPLAYED.index(THIRD[0]))
    assert joined
    assert row["counts"] == detail["counts"] == COUNTS


def test_halves_are_not_joined_past_a_compaction_dated_after_the_seam(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The seam's prompt is dated before the first half's compaction: the helper cannot know
    # which of its records the one pass looks up.
    early = _prompt("u9", "cs1", "2026-09-01T10:05:00.000Z", "typed before the compaction ended")
    records = [*FIRST, *_compaction(1, "10:10"), early, *SECOND]
    (row, _), joined = _by_halves(tmp_path, monkeypatch, records, records.index(early))
    assert not joined
    assert row["counts"]["prompts"] == 3


def test_a_resumed_row_that_meets_a_copy_of_the_kept_part_is_read_whole(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    cut = REPLAYED.index(FIRST[0], 1)  # the kept part ends before the copies
    path = _home(tmp_path, REPLAYED[:cut])
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    loads = record_calls(monkeypatch, rowresume, "load", lambda *args: "load")
    unknown = record_calls(monkeypatch, SeenUuids, "met", lambda seen, key: seen.known)
    with Scanner(env=env, use_cache=True) as scanner:
        assert scanner.all_rows()[0].to_json()["counts"] == {"prompts": 2, "responses": 2, "tool_calls": 1}
    with path.open("ab") as handle:
        handle.write(lines_of(REPLAYED[cut:]))
    with Scanner(env=env, use_cache=True) as scanner:
        resumed = scanner.all_rows()[0].to_json()
        resumed_show = scanner.show(SID, bounds=BOUNDS).to_json()
    assert loads and False in unknown  # a state was found, and its pass could not tell the copy
    with Scanner(env={**env, "AGENTSCAN_CACHE_DIR": str(tmp_path / "fresh")}, use_cache=False) as scanner:
        assert scanner.all_rows()[0].to_json() == resumed
        assert scanner.show(SID, bounds=BOUNDS).to_json() == resumed_show
    assert resumed["counts"] == COUNTS


def test_uuids_of_a_resumed_pass_s_kept_part_are_unknown() -> None:
    seen = SeenUuids(known=False)
    seen.hashes.append(hash("new"))
    assert seen.met(hash("new"))  # met after the state: a copy
    with pytest.raises(CopiesUnknown):
        seen.met(hash("older"))  # maybe in the kept part
    known = SeenUuids()
    known.hashes.extend([1, 2, 3])
    assert known.met(2) and not known.met(4)
    known.hashes.extend(range(10, 20))  # brought up to date at the next lookup
    assert known.met(15)
