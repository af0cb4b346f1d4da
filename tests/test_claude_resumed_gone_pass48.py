"""A resumed Claude session names the session it was resumed from, and lists that session's
copied records once its transcript is gone (pass 48).

A chain ``claude --resume`` A → B → C copies A's records, then B's, at C's head: C was
resumed from B, not A (the card said A).  Claude Code deletes old transcripts
(``cleanupPeriodDays``), the first session's first: the resumed transcript then holds the
only copy of that conversation, which ``show`` never listed while its tokens counted there.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

A, B, C = (f"{n * 8}-0000-4000-8000-000000000048" for n in "abc")


def _own(session: str, day: int, n: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{n}"),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                             usage=claude_usage(used, 10), parentUuid=f"u{n}", uuid=f"a{n}",
                             model="claude-sonnet-4-5-20250929")]


def _chain(home: Path) -> None:
    first, second, third = _own(A, 1, 1, 100), _own(B, 2, 2, 200), _own(C, 3, 3, 400)
    claude_session_file(home, A, first)
    claude_session_file(home, B, [*first, *second])
    claude_session_file(home, C, [*first, *second, *third])


def _delete(home: Path, session: str) -> None:
    next((home / ".claude" / "projects").rglob(f"{session}.jsonl")).unlink()


def _shown(session: str, *args: str) -> dict:
    return orjson.loads(invoke(*args, "show", session, "--json").stdout)["session"]


def _prompts(session: str, *args: str) -> list[str]:
    return [prompt["text"] for prompt in _shown(session, *args)["prompts"]]


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_a_chain_names_the_session_each_was_resumed_from(isolated_home: Path, cache: tuple[str, ...]) -> None:
    _chain(isolated_home)
    listed = {row["id"]: row.get("resumed_from") for row in orjson.loads(invoke(*cache, "list", "--json").stdout)["sessions"]}
    assert listed == {f"claude:{A}": None, f"claude:{B}": f"claude:{A}", f"claude:{C}": f"claude:{B}"}
    shown = _shown(C, *cache)
    assert shown["resumed_from"] == f"claude:{B}" and shown["resumed_copies_listed"] is False
    assert f"resumed  from claude:{B}: its first records" in invoke(*cache, "show", C).stdout


def test_copies_are_listed_only_once_the_session_resumed_is_gone(isolated_home: Path) -> None:
    _chain(isolated_home)
    assert _prompts(B) == ["step 2"] and _prompts(C) == ["step 3"]
    _delete(isolated_home, A)
    # B holds the only copy of A's conversation now; C still leaves B's (and so A's) to B.
    assert _prompts(B) == ["step 1", "step 2"] and _prompts(C) == ["step 3"]
    shown = _shown(B)
    assert shown["resumed_copies_listed"] is True and shown["counts"]["prompts"] == 1  # (the row's own)
    text = " ".join(invoke("show", B).stdout.split())
    assert f"from claude:{A}, whose transcript is not found: its records, copied at the start of this transcript, are listed" in text
    _delete(isolated_home, B)
    assert _prompts(C) == ["step 1", "step 2", "step 3"] and _shown(C)["resumed_copies_listed"] is True


def test_tokens_still_count_each_copied_call_once_when_copies_are_listed(isolated_home: Path) -> None:
    _chain(isolated_home)
    _delete(isolated_home, A)
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert rows == {f"claude:{B}": 110 + 210, f"claude:{C}": 410}
    assert _shown(B)["tokens"]["total"] == 110 + 210 and _shown(C)["tokens"]["total"] == 410


def test_a_huge_resumed_session_whose_first_is_gone_is_read_forward(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider

    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge one is
    _chain(isolated_home)
    invoke("list")  # (its row's pass keeps the facts a read from the end needs)
    assert _prompts(B) == ["step 2"]
    _delete(isolated_home, A)
    invoke("list")
    assert _prompts(B) == ["step 1", "step 2"] and _shown(B)["resumed_copies_listed"] is True


def test_a_chain_whose_middle_session_alone_is_gone_lists_only_its_copies(isolated_home: Path) -> None:
    # (review of pass 48: C listed A's copies too, which A lists and counts)
    _chain(isolated_home)
    _delete(isolated_home, B)
    assert _prompts(C) == ["step 2", "step 3"] and _prompts(A) == ["step 1"]
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(invoke("tokens", "--json").stdout)["rows"]}
    assert rows[f"claude:{A}"] == 110 and _shown(C)["tokens"]["total"] == rows[f"claude:{C}"]


@pytest.mark.parametrize("gone", [A, B])
def test_show_of_a_chain_reads_the_transcript_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   gone: str) -> None:
    # (review of pass 48: guessed from the head's first session, A, whose state differs from B's,
    # the session resumed, every show read C twice while one of them alone was gone)
    from agentscan.providers.claude import rowpass
    from spies import record_calls

    _chain(isolated_home)
    _delete(isolated_home, gone)
    passes = record_calls(monkeypatch, rowpass, "summaries", lambda *args, **kwargs: None)
    assert _prompts(C) == (["step 3"] if gone == A else ["step 2", "step 3"]) and len(passes) == 1
