"""``show`` in a Claude chain of resumes whose first session is gone, as a heavy user runs it
(pass 51): a live session's copies, and its sibling's, are not read again after each reply."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

A, B, C = (f"{letter * 8}-4444-4000-8000-000000000051" for letter in "abc")


def _lines(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


def _turn(session: str, step: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-{step + 1:02d}T10:00:00.000Z", f"step {step}", uuid=f"u{step}"),
            claude_assistant(session, f"2026-05-{step + 1:02d}T10:00:05.000Z", msg_id=f"m{step}", request_id=f"r{step}",
                             usage=claude_usage(used, 1), parentUuid=f"u{step}", uuid=f"a{step}")]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from agentscan.providers.claude import resumes

    seen: list[str] = []
    real = resumes.copied_head
    monkeypatch.setattr(resumes, "copied_head", lambda path, own: seen.append(own) or real(path, own))
    return seen


def _siblings(home: Path) -> tuple[Path, Path, list[dict]]:
    """A gone, resumed as B and as C (each begins with A's records): B lists A's conversation."""
    first = _turn(A, 1, 100)
    return (claude_session_file(home, B, first + _turn(B, 2, 200), mtime=1.7e9),
            claude_session_file(home, C, first + _turn(C, 3, 400), mtime=1.7e9), first)


def _card(session: str) -> dict:
    return orjson.loads(invoke("show", session, "--json").stdout)["session"]


def test_a_live_sessions_copies_are_not_read_again_after_it_grew(isolated_home: Path, reads: list[str]) -> None:
    # Each ``show`` of C after a reply of its own read its head of copies again (1.1 s a GB),
    # and each after a reply of B's read B's: the copies are written once, at the head.
    b, c, _ = _siblings(isolated_home)
    assert _card(C)["resumed_copies_in"] == f"claude:{B}"
    assert {B, C} <= set(reads)
    for step, grown in ((4, c), (5, b), (6, c)):
        reads.clear()
        with grown.open("ab") as handle:
            handle.write(_lines(_turn(grown.stem, step, 1000)))
        card = _card(C)
        assert card["resumed_copies_in"] == f"claude:{B}"
        assert reads == [], (step, reads)
    assert [prompt["text"] for prompt in card["prompts"]] == ["step 3", "step 4", "step 6"]
    uncached = orjson.loads(invoke("--no-cache", "show", C, "--json").stdout)["session"]
    assert uncached["resumed_copies_in"] == card["resumed_copies_in"]
    assert uncached["tokens"] == card["tokens"]


def test_a_transcript_whose_copies_changed_is_read_again(isolated_home: Path, reads: list[str]) -> None:
    b, c, first = _siblings(isolated_home)
    assert _card(C)["resumed_copies_in"] == f"claude:{B}"
    # Replaced (another inode) by one resumed from a session resumed from A: C's copy of A
    # is the nearer now, and C lists it.
    other = "dddddddd-4444-4000-8000-000000000051"
    fresh = b.with_name("fresh.tmp")
    fresh.write_bytes(_lines(first + _turn(other, 2, 50) + _turn(B, 4, 200) + _turn(B, 7, 5)))
    os.replace(fresh, b)
    reads.clear()
    card = _card(C)
    assert "resumed_copies_in" not in card and card["prompts"][0]["text"] == "step 1"
    assert B in reads
    # Written again in place, grown, its copies' last record another: read again.
    reads.clear()
    with b.open("r+b") as handle:
        handle.write(_lines(first + _turn(B, 2, 200) + _turn(B, 7, 5) + _turn(B, 8, 5) + _turn(B, 9, 5)))
    assert _card(C)["resumed_copies_in"] == f"claude:{B}"
    assert B in reads


def test_a_session_with_nothing_left_points_at_the_copies_of_it(isolated_home: Path) -> None:
    # A and B gone, nothing of theirs left (no subagents' folder): C (A → B → C, its head naming
    # A) holds both conversations, and ``show A`` said only "no session matches".
    first = _turn(A, 1, 100)
    claude_session_file(isolated_home, C, first + _turn(B, 2, 200) + _turn(C, 3, 400), mtime=1.7e9)
    said = invoke("show", A[:8])
    assert said.exit_code == 1
    assert (f"claude:{A}'s transcript is gone (Claude Code deletes old ones); its records are copied at the start "
            f"of claude:{C}'s: `agentscan show` of it lists them") in said.stderr
    assert "list --grep" not in said.stderr
    # B, in the middle, is named by no head: by C's copies once read (its card's ``show``).
    assert [prompt["text"] for prompt in _card(C)["prompts"]] == ["step 1", "step 2", "step 3"]
    said = invoke("show", B)
    assert said.exit_code == 1 and f"claude:{B}'s transcript is gone" in said.stderr, said.stderr
    # A found session, and a mistyped id, are not said gone.
    assert "is gone" not in invoke("show", "dddddddd").stderr


def test_siblings_holding_a_gone_session_are_all_named(isolated_home: Path) -> None:
    _siblings(isolated_home)
    said = invoke("show", A).stderr
    assert (f"its records are copied at the start of claude:{B}, claude:{C}'s: `agentscan show` of one lists them, "
            "or names the one that does") in said


def test_a_gone_sessions_conversation_from_its_subagents_is_in_time_order(isolated_home: Path) -> None:
    # The real session's transcript deleted, its two runs left: the card listed run a881341's
    # prompt (21:24) above the compaction's (21:17), and the compaction's summary as the last
    # response, though the run replied after it.
    import shutil

    from builders import REAL

    projects = isolated_home / ".claude" / "projects"
    shutil.copytree(REAL / "claude" / "projects", projects, copy_function=shutil.copyfile)
    next(projects.rglob("258c7280-ae70-4798-800f-63464d01a85d.jsonl")).unlink()
    card = _card("258c7280")
    assert card["parent_missing"] is True
    for kind in ("prompts", "responses"):
        times = [item["timestamp"] for item in card[kind]]
        assert len(times) > 1 and times == sorted(times), (kind, times)
    assert card["responses"][-1]["text"].startswith("Based on the official Claude Code hooks documentation")
    text = invoke("show", "258c7280").stdout
    assert text.index("2026-02-11 21:17") < text.index("2026-02-11 21:24  What is the output contract")
