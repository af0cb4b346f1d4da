"""Pass 59: a later session found under two roots is read, for ``show``'s "resumed as", in
the copy a discovery counts (``discovery.resumed_paths``), not the first root's.  A home moved
to ``~/.config/claude`` may keep in ``~/.claude`` a stale start of a transcript, cut while its
copies of the earlier sessions were being written: read there, a chain A → B → C's C named A
last, and ``show B`` did not say it was resumed as C, which ``list`` counts from the whole copy."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_usage, claude_user, cli_json, write_jsonl

FIRST = "a0000000-0000-4000-8000-000000000059"
MIDDLE = "b0000000-0000-4000-8000-000000000059"
LAST = "c0000000-0000-4000-8000-000000000059"
PROJECT = "-home-dev-project"


def _turn(session: str, day: int, parent: str | None) -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{day}", parentUuid=parent),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                             usage=claude_usage(100 * day, 10), parentUuid=f"u{day}", uuid=f"a{day}")]


def test_show_reads_the_later_sessions_counted_copy(isolated_home: Path) -> None:
    first, middle, last = _turn(FIRST, 1, None), _turn(MIDDLE, 2, "a1"), _turn(LAST, 3, "a2")
    claude = isolated_home / ".claude" / "projects" / PROJECT
    write_jsonl(claude / f"{FIRST}.jsonl", first, mtime=1_790_000_000)
    write_jsonl(claude / f"{MIDDLE}.jsonl", [*first, *middle], mtime=1_790_100_000)
    # C's whole transcript under ~/.config/claude, a stale start of it (the first session's
    # copies alone) left under ~/.claude, the first root
    write_jsonl(isolated_home / ".config" / "claude" / "projects" / PROJECT / f"{LAST}.jsonl",
                [*first, *middle, *last], mtime=1_790_300_000)
    write_jsonl(claude / f"{LAST}.jsonl", first, mtime=1_790_200_000)
    (row,) = [row for row in cli_json("list", "--all")["sessions"] if row["id"] == f"claude:{LAST}"]
    assert row["tokens"]["input"] == 300  # the whole copy is counted: its own call only
    for cache in ((), ("--no-cache",)):
        shown = cli_json(*cache, "show", MIDDLE)["session"]
        assert shown.get("resumed_as") == [f"claude:{LAST}"], shown
