"""A resumed Claude session's prompts, replies, tool calls, title and start are its own (pass 47).

``claude --resume`` copies the first session's records, each with its ``sessionId``, to the
start of the new transcript.  Its row counted them as its own: ``list`` showed both sessions
with the first one's title, the resumed one's counts held the first one's prompts, replies
and tool calls, and ``show`` listed them again.  The copies' calls still go to the sums (the
copies of a session found here then count there: ``test_claude_resumed_rows_pass47``).
The same read whole, by halves (the seam in the copies and after them), from its end,
resumed after an append, cached or not; and the table's title is the row's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.providers.claude import halves, rowresume
from agentscan.scan.scanner import Scanner
from builders import claude_session_file, invoke
from claude_events import cli_json_at, lines_of, lower_row_limits, split_huge_passes
from test_sidepass import BOUNDS

FIRST = "aaaaaaaa-1111-4000-8000-000000000047"
RESUMED = "bbbbbbbb-2222-4000-8000-000000000047"


def _rec(session: str, **fields: Any) -> dict:
    return {"isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": session,
            "version": "1.0.95", "gitBranch": "main", **fields}


def _turn(session: str, n: int, minute: int, prompt: str, tool: bool = False) -> list[dict]:
    content: list = [{"type": "text", "text": f"reply {n}"}]
    if tool:
        content.append({"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": "ls"}})
    return [_rec(session, type="user", uuid=f"u{n}", parentUuid=None, timestamp=f"2026-09-01T10:{minute:02d}:00.000Z",
                 message={"role": "user", "content": prompt}),
            _rec(session, type="assistant", uuid=f"a{n}", parentUuid=f"u{n}",
                 timestamp=f"2026-09-01T10:{minute:02d}:05.000Z", requestId=f"req_{n}",
                 message={"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                          "content": content, "usage": {"input_tokens": 10 * n, "output_tokens": 20,
                                                        "cache_read_input_tokens": 1000,
                                                        "cache_creation_input_tokens": 100}})]


COPIED = [*_turn(FIRST, 1, 0, "plan the release", tool=True), *_turn(FIRST, 2, 1, "write the notes")]
OWN = [*_turn(RESUMED, 3, 30, "now tag it", tool=True), *_turn(RESUMED, 4, 31, "and push")]
COUNTS = {"prompts": 2, "responses": 2, "tool_calls": 1}


def _home(tmp_path: Path, *, first: bool = True, own: list[dict] = OWN) -> Path:
    home = tmp_path / "home"
    if first:
        claude_session_file(home, FIRST, []).write_bytes(lines_of(COPIED))
    path = claude_session_file(home, RESUMED, [])
    path.write_bytes(lines_of([*COPIED, *own]))
    return path


@pytest.mark.parametrize("flags", [(), ("--no-cache",)])
def test_list_and_show_give_a_resumed_session_its_own_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          flags: tuple[str, ...]) -> None:
    _home(tmp_path)
    for _ in range(2):
        rows = {row["id"]: row for row in cli_json_at(tmp_path, monkeypatch, *flags, "list")["sessions"]}
        resumed, first = rows[f"claude:{RESUMED}"], rows[f"claude:{FIRST}"]
        assert resumed["title"] == "now tag it" and first["title"] == "plan the release"
        assert resumed["counts"] == first["counts"] == COUNTS
        assert resumed["started_at"].startswith("2026-09-01T10:30:00")
        shown = cli_json_at(tmp_path, monkeypatch, *flags, "show", RESUMED)["session"]
        assert [prompt["text"] for prompt in shown["prompts"]] == ["now tag it", "and push"]
        assert [reply["text"] for reply in shown["responses"]] == ["reply 3", "reply 4"]
        assert len(shown["tools"]) == shown["counts"]["tool_calls"] == 1
        # (its tokens: its own calls, the copies counting in the first session)
        assert shown["tokens"]["input"] == 70 and shown["resumed_counted_there"] is True


def test_the_table_titles_a_resumed_session_as_its_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "200")
    table = invoke("tokens").stdout  # cold: the titles from the files' bytes (``tablefacts``)
    line = next(line for line in table.splitlines() if RESUMED in line)
    assert line.rstrip().endswith("now tag it")
    newest = orjson.loads(invoke("list", "--json").stdout)["sessions"][0]
    assert (newest["id"], newest["title"]) == (f"claude:{RESUMED}", "now tag it")
    assert "now tag it" in invoke("list", "--grep", "tag it").stdout


def test_with_its_first_session_gone_its_own_part_is_still_its_own(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _home(tmp_path, first=False)
    (row,) = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]
    assert row["title"] == "now tag it" and row["counts"] == COUNTS
    assert row["tokens"]["input"] == 10 + 20 + 30 + 40  # the copies' calls count here: nothing is lost


def test_a_resumed_session_with_no_own_record_yet_is_still_listed(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _home(tmp_path, first=False, own=[])
    (row,) = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]
    assert row["id"] == f"claude:{RESUMED}" and row["counts"] == {"prompts": 0, "responses": 0, "tool_calls": 0}
    assert row["tokens"]["input"] == 30


def _seen(tmp_path: Path, cache: str, use_cache: bool = True) -> tuple:
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
    with Scanner(env=env, use_cache=use_cache) as scanner:
        rows = {row.id: row.to_json() for row in scanner.all_rows()}
        return rows[f"claude:{RESUMED}"], scanner.show(RESUMED, bounds=BOUNDS).to_json()



def _seen_split_and_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own: list[dict], seam_at: int) -> tuple:
    """The resumed session (its copies, then ``own``) read by halves split before record
    ``seam_at``; asserted the same as read in one pass and with no cache at all."""
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)
    _home(tmp_path, own=own)
    seam = len(lines_of([*COPIED, *own][:seam_at]))
    monkeypatch.setattr(halves, "find_seam", lambda path, size: seam)
    split_huge_passes(monkeypatch, True)
    split = _seen(tmp_path, "split")
    split_huge_passes(monkeypatch, False)
    assert _seen(tmp_path, "one") == split == _seen(tmp_path, "none", use_cache=False)
    return split


@pytest.mark.parametrize("seam_at", [1, len(COPIED), len(COPIED) + 1])
def test_read_by_halves_from_the_end_or_whole_it_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            seam_at: int) -> None:
    row, detail = _seen_split_and_whole(tmp_path, monkeypatch, OWN, seam_at)
    assert row["counts"] == detail["counts"] == COUNTS and row["title"] == "now tag it"
    assert [prompt["text"] for prompt in detail["prompts"]] == ["now tag it", "and push"]


def test_a_row_resumed_after_an_append_is_the_row_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    path = _home(tmp_path, own=OWN[:2])
    first_run = _seen(tmp_path, "cache")
    assert first_run[0]["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 1}
    with path.open("ab") as handle:
        handle.write(lines_of(OWN[2:]))
    assert _seen(tmp_path, "cache") == _seen(tmp_path, "fresh", use_cache=False)
    assert _seen(tmp_path, "cache")[0]["counts"] == COUNTS


@pytest.mark.parametrize("flags", [(), ("--no-cache",)])
def test_show_of_the_first_session_names_the_sessions_resumed_from_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      flags: tuple[str, ...]) -> None:
    _home(tmp_path)
    later = "cccccccc-3333-4000-8000-000000000047"
    claude_session_file(tmp_path / "home", later, []).write_bytes(lines_of([*COPIED, *_turn(later, 5, 40, "again")]))
    for _ in range(2):
        shown = cli_json_at(tmp_path, monkeypatch, *flags, "show", FIRST)["session"]
        assert shown["resumed_as"] == [f"claude:{RESUMED}", f"claude:{later}"]
        assert "resumed_as" not in cli_json_at(tmp_path, monkeypatch, *flags, "show", RESUMED)["session"]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    text = " ".join(invoke(*flags, "show", FIRST).stdout.split())
    assert (f"resumed as claude:{RESUMED}, claude:{later}: their transcripts begin with a copy of this one's records"
            in text)


def test_a_copied_inline_run_keeps_its_kind_with_the_first_session_gone(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: the copied Task call was skipped, so the copied run written inline
    # was of no kind, "unknown" in ``tokens --by agent``, and no subagent of the row)
    from builders import claude_assistant, claude_usage, claude_user

    first = [claude_user(FIRST, "2026-05-01T10:00:00.000Z", "do it", uuid="u1"),
             claude_assistant(FIRST, "2026-05-01T10:00:01.000Z", msg_id="mi1", request_id="ri1",
                              usage=claude_usage(100, 1), uuid="a1", parentUuid="u1",
                              blocks=[{"type": "tool_use", "id": "toolu_t", "name": "Task",
                                       "input": {"description": "sub", "prompt": "look", "subagent_type": "Explore"}}]),
             claude_user(FIRST, "2026-05-01T10:00:02.000Z", "look", uuid="s1", sidechain=True),
             claude_assistant(FIRST, "2026-05-01T10:00:03.000Z", msg_id="mi2", request_id="ri2",
                              usage=claude_usage(300, 3), uuid="s2", parentUuid="s1", sidechain=True),
             claude_user(FIRST, "2026-05-01T10:00:04.000Z",
                         [{"type": "tool_result", "tool_use_id": "toolu_t", "content": "done"}], uuid="ui2", parentUuid="a1")]
    home = tmp_path / "home"
    claude_session_file(home, RESUMED, []).write_bytes(lines_of([*first, *OWN]))
    (row,) = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]
    assert row["subagents"] == 1 and row["counts"] == COUNTS
    monkeypatch.setenv("HOME", str(home))
    agents = {r["key"]: r["tokens"]["input"] for r in orjson.loads(invoke("tokens", "--by", "agent", "--json").stdout)["rows"]}
    assert agents["Explore"] == 300


def test_a_copy_kept_under_another_name_keeps_its_counts_and_title(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: ``<id>-backup.jsonl`` names ``<id>`` in every record, and was taken
    # for a resumed session all of whose records were copies: 0 prompts, no title)
    home = tmp_path / "home"
    claude_session_file(home, FIRST, []).write_bytes(lines_of(COPIED))
    backup = claude_session_file(home, f"{FIRST}-backup", [])
    backup.write_bytes(lines_of(COPIED))
    rows = {row["id"]: row for row in cli_json_at(tmp_path, monkeypatch, "list")["sessions"]}
    kept = rows[f"claude:{FIRST}-backup"]
    assert kept["counts"] == COUNTS and kept["title"] == "plan the release"
    assert "resumed_from" not in cli_json_at(tmp_path, monkeypatch, "show", f"{FIRST}-backup")["session"]


def test_a_large_resumed_transcript_is_shown_from_its_end_once_its_row_is_read(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: its row's pass kept no facts for a read from the end, so every
    # ``show`` read the whole transcript twice: the pass again, then forward)
    from agentscan.providers.claude.provider import ClaudeProvider
    from spies import record_calls

    lower_row_limits(monkeypatch)
    _home(tmp_path)
    forward = record_calls(monkeypatch, ClaudeProvider, "detail", lambda *args: "forward")
    first = _seen(tmp_path, "cache")
    again = _seen(tmp_path, "cache")
    assert first == again == _seen(tmp_path, "fresh", use_cache=False)
    assert [prompt["text"] for prompt in again[1]["prompts"]] == ["now tag it", "and push"]
    assert not forward  # every run read it from its end, as its row's pass kept what that needs


def test_a_transcript_whose_facts_cannot_stand_is_not_passed_again_on_each_show(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: with its facts refused, e.g. a copy claude-code re-appended, each
    # ``show`` ran the row's pass again to learn it, then read forward)
    from agentscan.providers.claude import rowpass
    from spies import record_calls
    from test_claude_compact_copies_pass38 import REPLAYED, SID

    lower_row_limits(monkeypatch)
    home = tmp_path / "home"
    claude_session_file(home, SID, []).write_bytes(lines_of(REPLAYED))
    env = {"HOME": str(home), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    with Scanner(env=env, use_cache=True) as scanner:
        scanner.show(SID, bounds=BOUNDS)
    passes = record_calls(monkeypatch, rowpass, "summaries", lambda *args, **kwargs: "pass")
    with Scanner(env=env, use_cache=True) as scanner:
        scanner.show(SID, bounds=BOUNDS)
    assert len(passes) == 1  # the forward read's own pass, not a row's pass before it


def test_the_table_s_facts_of_a_resumed_session_are_found_without_its_row(tmp_path: Path) -> None:
    # (review of pass 47: a resumed transcript sent the cold table to its row's pass)
    from agentscan.providers.claude.provider import ClaudeProvider

    _home(tmp_path)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    with Scanner(env=env, use_cache=False) as scanner:
        (ref,) = scanner.refs_by_id([f"claude:{RESUMED}"])
        facts = ClaudeProvider().table_facts(ref, scanner.ctx)
        row = scanner.row(ref)
    assert facts is not None
    assert (facts.title, facts.cwd, facts.updated_at) == (row.title, row.cwd, row.updated_at) == (
        "now tag it", "/tmp/proj", row.updated_at)


def test_a_copied_record_of_any_type_value_is_read_without_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (the fuzz tests of pass 47's CI: a copied record whose ``type`` is a list raised a
    # TypeError, as the copy test looked it up in a set)
    odd = {**COPIED[0], "type": [], "uuid": "odd"}
    _home(tmp_path, own=[odd, *OWN])
    (row,) = [r for r in cli_json_at(tmp_path, monkeypatch, "list")["sessions"] if r["id"] == f"claude:{RESUMED}"]
    assert row["counts"] == COUNTS
    assert cli_json_at(tmp_path, monkeypatch, "show", RESUMED)["session"]["counts"] == COUNTS


# A record naming another session written after the resumed one's own (pass 52): the session
# resumed is the one the copies before its own first record name, read whole, by halves (the
# late copy alone in the second), or resumed after an append.
LATE = _rec("cccccccc-3333-4000-8000-000000000047", type="user", uuid="u9", parentUuid=None,
            timestamp="2026-09-01T10:40:00.000Z", message={"role": "user", "content": "late copy"})


@pytest.mark.parametrize("seam_at", [1, len(COPIED) + 1, len(COPIED) + len(OWN)])
def test_a_copy_after_its_own_records_is_not_the_session_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 seam_at: int) -> None:
    split = _seen_split_and_whole(tmp_path, monkeypatch, [*OWN, LATE], seam_at)
    assert split[0]["resumed_from"] == split[1]["resumed_from"] == f"claude:{FIRST}"


def test_a_copy_appended_after_its_own_records_is_not_the_session_resumed(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    path = _home(tmp_path)
    assert _seen(tmp_path, "cache")[0]["resumed_from"] == f"claude:{FIRST}"
    with path.open("ab") as handle:
        handle.write(lines_of([LATE]))
    assert _seen(tmp_path, "cache") == _seen(tmp_path, "fresh", use_cache=False)
    assert _seen(tmp_path, "cache")[0]["resumed_from"] == f"claude:{FIRST}"
