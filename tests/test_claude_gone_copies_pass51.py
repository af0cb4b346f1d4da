"""A gone Claude session's copies in a chain of resumes, read exactly and no further (pass 51).

A session's ``Task`` calls survive in the copies later sessions of its chain begin with; those
copies end where the later session's own first record begins, and each line names its session
at its top level, whatever a record nests before it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from builders import REAL, claude_assistant, claude_usage, claude_user, invoke
from agentscan.providers.claude.resumes import copied_head, copied_sessions

#: the real session whose ``Task`` call started run ``a881341`` (``claude-code-guide``, named by
#: that call alone: the run has no ``.meta.json``), with its subagents' folder
REAL_SESSION = "258c7280-ae70-4798-800f-63464d01a85d"
RUN = "a881341"
A = "aaaaaaaa-1111-4000-8000-000000000051"
C = "cccccccc-1111-4000-8000-000000000051"


def _lines(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


def _middle_gone(home: Path) -> Path:
    """A → the real session → C: the real session's transcript deleted, its subagents' folder
    left; C's head names A (the chain's first), not the real session.  C's transcript."""
    projects = home / ".claude" / "projects"
    shutil.copytree(REAL / "claude" / "projects", projects, copy_function=shutil.copyfile)
    main = next(projects.rglob(f"{REAL_SESSION}.jsonl"))
    first = _lines([claude_user(A, "2026-02-01T10:00:00.000Z", "step 0", uuid="u0"),
                    claude_assistant(A, "2026-02-01T10:00:05.000Z", msg_id="m0", request_id="r0",
                                     usage=claude_usage(10, 1), parentUuid="u0", uuid="a0")])
    (main.parent / f"{A}.jsonl").write_bytes(first)
    middle = first + main.read_bytes()
    own = _lines([claude_user(C, "2026-02-13T10:00:00.000Z", "step 3", uuid="u3"),
                  claude_assistant(C, "2026-02-13T10:00:05.000Z", msg_id="m3", request_id="r3",
                                   usage=claude_usage(1000, 7), parentUuid="u3", uuid="a3")])
    third = main.parent / f"{C}.jsonl"
    third.write_bytes(middle + own)
    main.unlink()
    return third


def test_a_gone_middle_sessions_run_is_of_the_kind_its_copied_task_call_names(isolated_home: Path) -> None:
    # Only sessions whose heads named the gone one were read for its Task calls: a chain's
    # middle one is named by no head (C's names A), and its run counted ``unknown``.
    _middle_gone(isolated_home)
    for cache in ((), ("--no-cache",)):
        rows = orjson.loads(invoke(*cache, "tokens", "--by", "agent", "--json").stdout)["rows"]
        kinds = {row["key"]: [sub["id"] for sub in row["subagents"] or ()] for row in rows}
        assert kinds.get("claude-code-guide") == [f"claude:{REAL_SESSION}/{RUN}"], kinds
        assert "unknown" not in kinds
        shown = orjson.loads(invoke(*cache, "show", REAL_SESSION, "--json").stdout)["session"]
        assert {sub["id"]: sub["agent_type"] for sub in shown["subagents"]}[RUN] == "claude-code-guide"


def test_a_gone_sessions_task_calls_are_read_from_the_copies_alone(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The whole resumed transcript was read for them (a row's pass of 1 GB, cold): its own
    # records, after the copies, hold none of the gone session's Task calls.
    from agentscan.providers.claude import row

    third = _middle_gone(isolated_home)
    with third.open("ab") as handle:  # C's own part grows: none of it need be read
        handle.write(b"".join(_lines([claude_user(C, "2026-02-13T11:00:00.000Z", f"more {n}", uuid=f"x{n}")])
                              for n in range(200)))
    ends: list[int | None] = []
    real = row.summarize
    monkeypatch.setattr(row, "summarize", lambda path, ctx, **kw: ends.append(kw.get("end")) or real(path, ctx, **kw))
    rows = orjson.loads(invoke("--no-cache", "tokens", "--by", "agent", "--json").stdout)["rows"]
    assert "claude-code-guide" in {row["key"] for row in rows}
    own_start = third.read_bytes().index(f'"sessionId":"{C}"'.encode())
    assert ends and all(end is not None and end <= own_start for end in ends), ends


def test_each_line_names_its_session_at_its_top_level(tmp_path: Path) -> None:
    # The first ``"sessionId":"`` of a line was taken for its record's: a ``worktree-state``
    # nests the session the worktree was entered in first, and 2.1.x writes ``message`` (whose
    # structured tool results may hold one) before the record's own.
    own = "0000000b-0000-4000-8000-000000000051"
    lines = [
        {"sessionId": "first", "data": {"message": {"sessionId": "z"}}},
        {"type": "worktree-state", "worktreeSession": {"sessionId": "entered"}, "sessionId": "first"},
        {"parentUuid": None, "message": {"content": [{"toolUseResult": {"sessionId": "nested"}}]}, "sessionId": "second"},
        {"message": {"content": "a [ and a { in text"}, "sessionId": "third"},
        {"type": "worktree-state", "worktreeSession": {"sessionId": own}, "sessionId": "fourth"},
        {"message": {"content": []}, "sessionId": own},
        {"sessionId": "later"},
    ]
    path = tmp_path / f"{own}.jsonl"
    path.write_bytes(_lines(lines))
    assert copied_sessions(path, own) == ["first", "second", "third", "fourth"]
    head = copied_head(path, own)
    assert head is not None and head[1] == path.read_bytes().index(b'{"message":{"content":[]}')


def test_a_growing_sessions_copies_are_read_once_for_its_chain(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A live session whose first session is gone: each ``tokens`` after it grew read its
    # copies again for the chain of resumes (1.1 s a GB of copies), which the copies, written
    # once at its head, cannot change.  The resume state keeps it.
    from builders import claude_session_file

    from agentscan.providers.claude import resumes

    first, live = "aaaaaaaa-3333-4000-8000-000000000051", "bbbbbbbb-3333-4000-8000-000000000051"
    copies = [claude_user(first, "2026-05-01T10:00:00.000Z", "step 1", uuid="u1"),
              claude_assistant(first, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                               usage=claude_usage(100, 1), parentUuid="u1", uuid="a1")]

    def turn(n: int) -> list[dict]:
        return [claude_user(live, f"2026-05-02T10:00:{n:02d}.000Z", f"own {n}", uuid=f"o{n}"),
                claude_assistant(live, f"2026-05-02T10:00:{n:02d}.500Z", msg_id=f"om{n}", request_id=f"or{n}",
                                 usage=claude_usage(1000, 1), parentUuid=f"o{n}", uuid=f"oa{n}")]

    path = claude_session_file(isolated_home, live, copies + turn(0))
    reads: list[str] = []
    real = resumes.copied_head
    monkeypatch.setattr(resumes, "copied_head", lambda p, own: reads.append(own) or real(p, own))
    assert orjson.loads(invoke("tokens", "--json").stdout)["total"]["total"] == 1102
    assert reads == [live]
    for n in (1, 2, 3):
        with path.open("ab") as handle:
            handle.write(_lines(turn(n)))
        assert orjson.loads(invoke("tokens", "--json").stdout)["total"]["total"] == 1102 + 1001 * n
        if n == 1:  # (a small session's first parse keeps no resume state: its first growth makes one)
            made = len(reads)
    assert len(reads) == made, reads
    assert orjson.loads(invoke("--no-cache", "tokens", "--json").stdout)["total"]["total"] == 1102 + 1001 * 3
    # Rewritten (not only grown): its copies are read again.
    path.write_bytes(_lines(copies + turn(0)))
    before = len(reads)
    assert orjson.loads(invoke("tokens", "--json").stdout)["total"]["total"] == 1102
    assert len(reads) == before + 1


def _turn(session: str, step: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-{step + 1:02d}T10:00:00.000Z", f"step {step}", uuid=f"u{step}"),
            claude_assistant(session, f"2026-05-{step + 1:02d}T10:00:05.000Z", msg_id=f"m{step}", request_id=f"r{step}",
                             usage=claude_usage(used, 1), parentUuid=f"u{step}", uuid=f"a{step}")]


def _seen(*cache: str) -> tuple[dict[str, int], dict[str, int], dict[str, tuple[list[str], object]]]:
    """Each session's ``list`` total, ``tokens --by session`` total, and ``show``'s prompts and
    ``resumed_copies_in``, by the id's first two characters."""
    listed = orjson.loads(invoke(*cache, "list", "--json").stdout)["sessions"]
    tokens = orjson.loads(invoke(*cache, "tokens", "--by", "session", "--json").stdout)["rows"]
    cards = {}
    for row in listed:
        card = orjson.loads(invoke(*cache, "show", row["id"], "--json").stdout)["session"]
        cards[row["id"][7:9]] = ([prompt["text"] for prompt in card["prompts"]], card.get("resumed_copies_in"))
    return ({row["id"][7:9]: row["tokens"]["total"] for row in listed},
            {row["key"][7:9]: row["tokens"]["total"] for row in tokens}, cards)


@pytest.mark.parametrize("ids", ["abc", "acb"])
def test_a_gone_session_resumed_twice_is_listed_where_it_counts(isolated_home: Path, ids: str) -> None:
    # A gone, resumed as B and as C: both cards listed "step 1", and its 101 tokens counted in
    # one of them (the smaller id: their copies tie on nearness and first call).
    from builders import claude_session_file

    a, b, c = (f"{letter * 8}-0000-4000-8000-000000000051" for letter in ids)
    first = _turn(a, 1, 100)
    claude_session_file(isolated_home, b, first + _turn(b, 2, 200), mtime=1.7e9)
    claude_session_file(isolated_home, c, first + _turn(c, 3, 400), mtime=1.7e9)
    low, high = sorted((b, c))
    own = {b: ["step 2"], c: ["step 3"]}
    for cache in ((), ("--no-cache",)):
        listed, tokens, cards = _seen(*cache)
        assert listed == tokens
        assert listed[low[:2]] == 101 + (201 if low == b else 401) and sum(listed.values()) == 101 + 201 + 401
        assert cards[low[:2]] == (["step 1", *own[low]], None)
        assert cards[high[:2]] == (own[high], f"claude:{low}")
    assert "whose card lists them and where their calls count" in invoke("show", high).stdout


def test_a_gone_session_is_listed_in_its_nearest_copy_of_any_chain(isolated_home: Path) -> None:
    # A and B gone, C resumed from B (its copies: A's, B's), D resumed from A: A's calls count
    # in D (one resume from A, C two), whose card lists them; C's listed them too.
    from builders import claude_session_file

    a, b, c, d = (f"{letter * 8}-0000-4000-8000-000000000051" for letter in "abcd")
    first = _turn(a, 1, 100)
    claude_session_file(isolated_home, c, first + _turn(b, 2, 200) + _turn(c, 3, 400), mtime=1.7e9)
    claude_session_file(isolated_home, d, first + _turn(d, 4, 800), mtime=1.7e9)
    for cache in ((), ("--no-cache",)):
        listed, tokens, cards = _seen(*cache)
        assert listed == tokens == {"cc": 201 + 401, "dd": 101 + 801}
        assert cards == {"cc": (["step 2", "step 3"], None), "dd": (["step 1", "step 4"], None)}


def test_the_heads_of_copies_are_read_once_for_show(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``show`` of a session whose first is gone reads the copies of every transcript of the
    # chain (whose is nearest): remembered per file, a second ``show`` reads none of them.
    from builders import claude_session_file

    from agentscan.providers.claude import resumes

    a, b, c = (f"{letter * 8}-0000-4000-8000-000000000051" for letter in "abc")
    first = _turn(a, 1, 100)
    claude_session_file(isolated_home, b, first + _turn(b, 2, 200), mtime=1.7e9)
    claude_session_file(isolated_home, c, first + _turn(c, 3, 400), mtime=1.7e9)
    reads: list[str] = []
    real = resumes.copied_head
    monkeypatch.setattr(resumes, "copied_head", lambda p, own: reads.append(own) or real(p, own))
    assert orjson.loads(invoke("show", c, "--json").stdout)["session"]["resumed_copies_in"] == f"claude:{b}"
    assert {b, c} <= set(reads)
    reads.clear()
    assert orjson.loads(invoke("show", c, "--json").stdout)["session"]["resumed_copies_in"] == f"claude:{b}"
    assert reads == []


def test_a_gone_middle_sessions_card_names_the_sessions_that_hold_its_conversation(isolated_home: Path) -> None:
    # A → the real session → C, the real session gone: C's head names A, and the gone
    # session's card named none of the transcripts that hold its conversation.
    third = _middle_gone(isolated_home)
    for cache in ((), ("--no-cache",)):
        shown = orjson.loads(invoke(*cache, "show", REAL_SESSION, "--json").stdout)["session"]
        assert shown["resumed_as"] == [f"claude:{third.stem}"]


def test_a_gone_middle_sessions_run_counts_once_in_list(isolated_home: Path) -> None:
    # C's copies of the gone middle session's records hold its run's calls (progress copies);
    # ``tokens C`` and C's ``list`` row read C with the sessions its head names (A) alone, and
    # counted them in C as well as in the gone session's row: list's sum was 34,170 over tokens'.
    third = _middle_gone(isolated_home)
    for cache in ((), ("--no-cache",)):
        listed = {row["id"]: row["tokens"]["total"] for row in orjson.loads(invoke(*cache, "list", "--json").stdout)["sessions"]}
        report = orjson.loads(invoke(*cache, "tokens", "--by", "session", "--json").stdout)
        assert listed == {row["key"]: row["tokens"]["total"] for row in report["rows"]}
        assert sum(listed.values()) == report["total"]["total"]
        alone = orjson.loads(invoke(*cache, "tokens", third.stem, "--json").stdout)["total"]["total"]
        assert alone == listed[f"claude:{third.stem}"]


def test_a_copied_run_of_a_21x_progress_record_opens_the_session_that_ran_it(isolated_home: Path) -> None:
    # 2.1.x writes a progress record's ``data`` (its run's ``agentId``) before its
    # ``sessionId``: the run's search took the session named before the agent id alone, found
    # none, and took B's copy of A's run for a run of B's: ``show a7777777`` was ambiguous.
    from builders import claude_session_file

    a, b = (f"{letter * 8}-6666-4000-8000-000000000051" for letter in "ab")
    inner = claude_assistant(a, "2026-05-01T10:00:03.000Z", msg_id="sm1", request_id="sr1",
                             usage=claude_usage(1000, 10), uuid="s1")
    progress = {"parentUuid": "u1", "isSidechain": False, "type": "progress",
                "data": {"type": "agent_progress", "agentId": "a7777777", "message": inner},
                "uuid": "p1", "timestamp": "2026-05-01T10:00:03.000Z", "sessionId": a}
    first = [claude_user(a, "2026-05-01T10:00:00.000Z", "step 1", uuid="u1"), progress,
             claude_assistant(a, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                              usage=claude_usage(100, 1), parentUuid="p1", uuid="a1")]
    claude_session_file(isolated_home, a, first)
    claude_session_file(isolated_home, b, first + _turn(b, 2, 200))
    shown = invoke("show", "a7777777", "--json")
    assert shown.exit_code == 0, shown.output
    assert orjson.loads(shown.stdout)["session"]["id"] == f"claude:{a}"
