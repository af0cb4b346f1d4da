"""One Claude session under two roots (``~/.config/claude/projects`` and ``~/.claude/projects``):
the copy that holds the other is counted, whichever is fresher (a newer, shorter copy hid the
calls after it: 51,836 tokens where ccusage counted 106,193), and two copies that differ are
said, naming both (``providers.claude.copychoice``)."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_usage, claude_user, cli_json, tokens_every_way, write_jsonl

SESSION = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
PROJECT = "-home-dev-project"


def _records(calls: int) -> list[dict]:
    found = [claude_user(SESSION, "2026-11-02T10:00:00.000Z", "count every call")]
    found += [claude_assistant(SESSION, f"2026-11-02T10:0{n}:30.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                               usage=claude_usage(10 ** n, 1)) for n in range(calls)]
    return found


def _two_copies(home: Path, config_calls: int, claude_calls: int) -> tuple[Path, Path]:
    """The ``~/.config`` copy older, the ``~/.claude`` one fresher."""
    config = write_jsonl(home / ".config" / "claude" / "projects" / PROJECT / f"{SESSION}.jsonl",
                         _records(config_calls), mtime=1_790_000_000)
    claude = write_jsonl(home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl",
                         _records(claude_calls), mtime=1_790_500_000)
    return config, claude


def _inputs_every_way() -> set[int]:
    """The session's input tokens as ``tokens`` (cold, warm, remembered, ``--no-cache``),
    ``list`` and ``show`` (from the id index, and ``--no-cache``) count them."""
    found = {report["total"]["input"] for report in tokens_every_way()}
    found |= {row["tokens"]["input"] for row in cli_json("list")["sessions"]}
    found.add(cli_json("show", SESSION)["session"]["tokens"]["input"])
    found.add(cli_json("show", SESSION, "--no-cache")["session"]["tokens"]["input"])
    return found


def test_a_fresher_copy_that_is_the_start_of_the_other_does_not_hide_its_later_calls(isolated_home: Path) -> None:
    _two_copies(isolated_home, config_calls=4, claude_calls=2)
    assert _inputs_every_way() == {1111}  # all four calls (the fresher copy holds only 1 + 10)
    assert cli_json("tokens")["warnings"] == []


def test_the_longer_copy_is_read_when_it_is_the_fresher_too(isolated_home: Path) -> None:
    _two_copies(isolated_home, config_calls=2, claude_calls=4)
    assert _inputs_every_way() == {1111}
    assert cli_json("tokens")["warnings"] == []


def test_two_copies_that_differ_are_said_naming_both(isolated_home: Path) -> None:
    config, claude = _two_copies(isolated_home, config_calls=4, claude_calls=2)
    records = _records(2)
    records[1]["message"]["usage"]["input_tokens"] = 7  # a call the other copy does not hold
    write_jsonl(claude, records, mtime=1_790_500_000)
    assert _inputs_every_way() == {17}  # the fresher copy, as before
    (warning,) = cli_json("tokens")["warnings"]
    assert warning["path"] == str(config)
    assert warning["message"] == ("differs from another copy of its session in another folder, which is counted "
                                  f"instead (calls only in this copy are not): {claude}")


def test_a_subagents_transcript_under_two_roots_is_read_from_the_copy_that_holds_the_other(isolated_home: Path) -> None:
    _two_copies(isolated_home, config_calls=1, claude_calls=1)  # (the session itself the same in both)
    agent = [claude_assistant(SESSION, f"2026-11-02T11:0{n}:00.000Z", msg_id=f"a{n}", request_id=f"ar{n}",
                              usage=claude_usage(100 * 10 ** n, 1), sidechain=True, agentId="a1") for n in range(3)]
    folder = Path(PROJECT) / SESSION / "subagents" / "agent-a1.jsonl"
    write_jsonl(isolated_home / ".config" / "claude" / "projects" / folder, agent, mtime=1_790_000_000)
    write_jsonl(isolated_home / ".claude" / "projects" / folder, agent[:1], mtime=1_790_500_000)
    assert _inputs_every_way() == {1 + 100 + 1000 + 10000}
    assert cli_json("tokens")["warnings"] == []
