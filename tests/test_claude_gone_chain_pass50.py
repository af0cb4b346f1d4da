"""A Claude session whose transcript is gone, in a chain of resumes (pass 50).

Claude Code deletes old transcripts (``cleanupPeriodDays``); a session's ``subagents/`` folder
may outlive its transcript, and ``claude --resume`` copied the transcript's records (its
``Task`` calls among them) to the head of the session resumed from it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from builders import REAL, claude_assistant, claude_turn, claude_usage, claude_user, invoke

#: the real session whose ``Task`` call started run ``a881341`` (``claude-code-guide``, named by
#: that call alone: the run has no ``.meta.json``), with its subagents' folder
FIRST = "258c7280-ae70-4798-800f-63464d01a85d"
RUN = "a881341"
B = "bbbbbbbb-1111-4000-8000-000000000050"
C = "cccccccc-1111-4000-8000-000000000050"


def _chain_of_the_real_session(home: Path) -> Path:
    """The real session, resumed as B, B resumed as C; the first one's transcript deleted,
    its subagents' folder left.  Its folder (the project's)."""
    projects = home / ".claude" / "projects"
    shutil.copytree(REAL / "claude" / "projects", projects, copy_function=shutil.copyfile)
    main = next(projects.rglob(f"{FIRST}.jsonl"))
    first = main.read_bytes()
    second = first + b"".join(orjson.dumps(record) + b"\n" for record in claude_turn(B, 2, 1, 100))
    (main.parent / f"{B}.jsonl").write_bytes(second)
    (main.parent / f"{C}.jsonl").write_bytes(second + b"".join(orjson.dumps(r) + b"\n" for r in claude_turn(C, 3, 2, 1000)))
    main.unlink()
    return main.parent


def test_a_gone_sessions_run_is_of_the_kind_its_copied_task_call_names(isolated_home: Path) -> None:
    # ``tokens --by agent`` counted the run ``unknown`` (only the session's own transcript was
    # read for its ``Task`` call), and ``show`` listed it with no kind.
    _chain_of_the_real_session(isolated_home)
    for cache in ((), ("--no-cache",)):
        rows = orjson.loads(invoke(*cache, "tokens", "--by", "agent", "--json").stdout)["rows"]
        kinds = {row["key"]: [sub["id"] for sub in row["subagents"] or ()] for row in rows}
        assert kinds.get("claude-code-guide") == [f"claude:{FIRST}/{RUN}"], kinds
        assert "unknown" not in kinds
        shown = orjson.loads(invoke(*cache, "show", FIRST, "--json").stdout)["session"]
        assert {sub["id"]: sub["agent_type"] for sub in shown["subagents"]}[RUN] == "claude-code-guide"


def test_a_gone_sessions_card_names_the_sessions_that_hold_its_conversation(isolated_home: Path) -> None:
    # Its card said only ``transcript missing: … come from its subagents``: nothing of B and
    # C, resumed from it, whose transcripts hold its conversation (B's card lists it).
    _chain_of_the_real_session(isolated_home)
    shown = orjson.loads(invoke("show", FIRST, "--json").stdout)["session"]
    assert shown["resumed_as"] == [f"claude:{B}", f"claude:{C}"] and shown["resumed_next"] == [f"claude:{B}"]
    # (C was resumed from B: named after it, pass 52)
    assert f"resumed  as claude:{B} (then claude:{C}): its transcript begins" in invoke("show", FIRST).stdout


def test_the_card_of_a_resumed_session_counts_its_own_and_the_copies_listed_apart(isolated_home: Path) -> None:
    # B lists the gone session's copies: its card read ``0 tool calls (+2 by subagents), 1
    # compaction`` (the copies' run's calls and compaction as its own; it lists no subagent)
    # beside ``the counts are this session's own``, and ``tool calls (11 own, 2 by subagents)``.
    _chain_of_the_real_session(isolated_home)
    for cache in ((), ("--no-cache",)):
        card = invoke(*cache, "show", B).stdout
        counts = next(line for line in card.splitlines() if line.strip().startswith("counts"))
        assert counts.split(None, 1)[1] == ("1 prompt, 1 response, 0 tool calls; copies listed: 1 prompt, "
                                            "11 tool calls (+2 by subagents), 1 compaction"), card
        assert "tool calls (0 own, 13 copied)" in card
        shown = orjson.loads(invoke(*cache, "show", B, "--json").stdout)["session"]
        assert shown["subagents"] == []
        assert shown["copied_listed"] == {"prompts": 1, "tool_calls": 11, "subagent_tool_calls": 2,
                                                   "compactions": 1}
        # C lists none of them: nothing copied said.
        assert "copies listed" not in invoke(*cache, "show", C).stdout


SONNET = "claude-sonnet-4-5-20250929"
RUN_OF_THE_FIRST = "a1234567"


def _chain_of_four(home: Path, ids: str, kept: str) -> dict[str, str]:
    """A → B → C → D (ids made of ``ids``' letters, in that order), only ``kept``'s files
    written ("bc": B's and C's).  A delegated a run (its calls in a progress record)."""
    from builders import claude_progress, claude_session_file

    a, b, c, d = (f"{letter * 8}-0000-4000-8000-000000000050" for letter in ids)
    delegated = claude_assistant(a, "2026-05-01T10:00:03.000Z", msg_id="sm1", request_id="sr1",
                                 usage=claude_usage(1000, 100), uuid="s1", model=SONNET)
    first = [claude_user(a, "2026-05-01T10:00:00.000Z", "step 1", uuid="u1"),
             claude_progress(a, "2026-05-01T10:00:03.000Z", RUN_OF_THE_FIRST, delegated, uuid="p1", parentUuid="u1"),
             claude_assistant(a, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                              parentUuid="p1", uuid="a1", model=SONNET)]

    def own(session: str, day: int, used: int) -> list[dict]:
        return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{day}"),
                claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                                 usage=claude_usage(used, 12), parentUuid=f"u{day}", uuid=f"a{day}", model=SONNET)]

    records = {"a": first}
    records["b"] = records["a"] + own(b, 2, 200)
    records["c"] = records["b"] + own(c, 3, 400)
    records["d"] = records["c"] + own(d, 4, 800)
    named = {"a": a, "b": b, "c": c, "d": d}
    for step in kept:
        claude_session_file(home, named[step], records[step])
    return named


def test_a_gone_sessions_calls_and_run_count_in_the_session_resumed_from_it(isolated_home: Path) -> None:
    # A gone: B, resumed from it, lists its conversation; its calls and run went to whichever
    # of B and C (copies keep their times: both began together) sorted first by id, C when
    # its id did ("step 1" listed on B's card of 212 tokens, C's of 1622 holding A's run).
    for ids in ("abcd", "fedc"):
        shutil.rmtree(isolated_home / ".claude", ignore_errors=True)
        named = _chain_of_four(isolated_home, ids, "bc")
        for cache in ((), ("--no-cache",)):
            rows = {row["id"]: row for row in orjson.loads(invoke(*cache, "list", "--json").stdout)["sessions"]}
            b, c = rows[f"claude:{named['b']}"], rows[f"claude:{named['c']}"]
            assert (b["tokens"]["total"], b["subagents"]) == (1100 + 110 + 212, 1), ids
            assert (c["tokens"]["total"], c["subagents"]) == (412, 0), ids
            card = orjson.loads(invoke(*cache, "show", named["b"], "--json").stdout)["session"]
            assert [prompt["text"] for prompt in card["prompts"]] == ["step 1", "step 2"]
            assert [sub["id"] for sub in card["subagents"]] == [RUN_OF_THE_FIRST]
            assert orjson.loads(invoke(*cache, "show", RUN_OF_THE_FIRST, "--json").stdout)["session"]["id"] == \
                f"claude:{named['b']}"
        # The first and third gone: A's calls count in B (one resume from it), not in D (three).
        shutil.rmtree(isolated_home / ".claude")
        named = _chain_of_four(isolated_home, ids, "bd")
        totals = {row["id"]: row["tokens"]["total"] for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
        assert totals == {f"claude:{named['b']}": 1422, f"claude:{named['d']}": 812 + 412}, ids
