"""Pass 58, mends of one Claude session found under several roots (a review of 0839416a).

* Three copies were compared two at a time, in the roots' order: the copy counted depended on
  that order, and a copy held by another could win over a third, its calls lost silently.
  All are collected first and chosen among at once (``providers.claude.copychoice``).
* Every pair was read by every discovery (a home whose sessions are all in both roots listed in
  0.57 CPU-s where 0.33 did): copies of equal size and time are the same without a read, and
  how two others stand is remembered until one of them changes.
* ``show`` lost "resumed as" when the session resumed was under the other root.
* A subagent found only under the other root is counted by ``tokens``, ``list`` and ``show``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from builders import (claude_assistant, claude_usage, claude_user, cli_json, invoke, tokens_every_way,
                      write_jsonl)

SESSION = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
LATER = "b162b1ae-0000-4000-8000-000000000058"
PROJECT = "-home-dev-project"


def _records(calls: int, *, changed: int | None = None) -> list[dict]:
    found = [claude_user(SESSION, "2026-11-02T10:00:00.000Z", "count every call")]
    found += [claude_assistant(SESSION, f"2026-11-02T10:0{n}:30.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                               usage=claude_usage(7 if n == changed else 10 ** n, 1)) for n in range(calls)]
    return found


def _three_copies(home: Path) -> dict[str, Path]:
    """c1: the start of c2 (the freshest); c2: four calls (the oldest); c3: three calls, one of
    them unlike c2's and c1's (fresher than c2)."""
    made = {"c1": (_records(2), 1_790_900_000), "c2": (_records(4), 1_790_000_000),
            "c3": (_records(3, changed=1), 1_790_500_000)}
    return {name: write_jsonl(home / name / "projects" / PROJECT / f"{SESSION}.jsonl", records, mtime=mtime)
            for name, (records, mtime) in made.items()}


def _inputs_every_way() -> set[int]:
    found = {report["total"]["input"] for report in tokens_every_way()}
    found |= {row["tokens"]["input"] for row in cli_json("list")["sessions"]}
    found.add(cli_json("show", SESSION)["session"]["tokens"]["input"])
    found.add(cli_json("show", SESSION, "--no-cache")["session"]["tokens"]["input"])
    return found


@pytest.mark.parametrize("order", [("c1", "c2", "c3"), ("c3", "c2", "c1")])
def test_three_copies_give_one_answer_whatever_the_roots_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                               order: tuple[str, ...]) -> None:
    copies = _three_copies(isolated_home)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", ",".join(str(isolated_home / name) for name in order))
    assert _inputs_every_way() == {1 + 7 + 100}  # c3: c1 is held by c2, and c3 is fresher than c2
    (warning,) = cli_json("tokens")["warnings"]  # c2 left out, and said; c1 is all in c2
    assert warning["path"] == str(copies["c2"])
    assert warning["message"] == ("differs from another copy of its session in another folder, which is counted "
                                  f"instead (calls only in this copy are not): {copies['c3']}")


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    from agentscan.providers.claude import copychoice

    read: list[tuple[str, str]] = []
    compare = copychoice.compare_copies

    def counted(first: str, second: str) -> int | None:
        read.append((first, second))
        return compare(first, second)

    monkeypatch.setattr(copychoice, "compare_copies", counted)
    return read


def test_copies_that_kept_size_and_time_are_not_read_and_a_pair_is_read_once(isolated_home: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    read = _counting_reads(monkeypatch)
    claude = write_jsonl(isolated_home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl", _records(3),
                         mtime=1_790_000_000)
    config = isolated_home / ".config" / "claude" / "projects" / PROJECT / f"{SESSION}.jsonl"
    config.parent.mkdir(parents=True)
    shutil.copy2(claude, config)  # (``cp -a``: its size and time kept)
    assert _inputs_every_way() == {111}
    assert read == []
    write_jsonl(claude, _records(4), mtime=1_790_500_000)  # it grew: the pair is read again, once
    before = cli_json("list")
    assert [row["tokens"]["input"] for row in before["sessions"]] == [1111]
    assert len(read) == 1
    other = write_jsonl(isolated_home / ".claude" / "projects" / PROJECT / f"{LATER}.jsonl",
                        [claude_user(LATER, "2026-11-03T10:00:00.000Z", "another")], mtime=1_790_600_000)
    assert other.exists()
    after = cli_json("list")  # (a discovery again: the pair is remembered)
    assert [row["tokens"] for row in after["sessions"] if row["id"] == f"claude:{SESSION}"][0]["input"] == 1111
    assert len(read) == 1, read


def test_show_says_resumed_as_for_a_later_session_under_the_other_root(isolated_home: Path) -> None:
    first = [claude_user(SESSION, "2026-05-01T10:00:00.000Z", "fix the build", uuid="u1"),
             claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                              usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")]
    write_jsonl(isolated_home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl", first, mtime=1_790_000_000)
    # The later session under the other root alone (its first records a copy of the first's).
    write_jsonl(isolated_home / ".config" / "claude" / "projects" / PROJECT / f"{LATER}.jsonl", [
        *first, claude_user(LATER, "2026-05-02T09:00:00.000Z", "and now the tests", uuid="u2", parentUuid="a1"),
        claude_assistant(LATER, "2026-05-02T09:00:05.000Z", msg_id="m2", request_id="r2",
                         usage=claude_usage(200, 20), parentUuid="u2", uuid="a2")], mtime=1_790_100_000)
    for cache in ((), ("--no-cache",)):
        shown = orjson.loads(invoke(*cache, "show", SESSION, "--json").stdout)["session"]
        assert shown.get("resumed_as") == [f"claude:{LATER}"], shown
        assert f"claude:{LATER}" in " ".join(invoke(*cache, "show", SESSION).stdout.split())


def test_a_subagent_only_under_the_other_root_is_counted(isolated_home: Path) -> None:
    write_jsonl(isolated_home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl", _records(1), mtime=1_790_000_000)
    agent = [claude_assistant(SESSION, f"2026-11-02T11:0{n}:00.000Z", msg_id=f"a{n}", request_id=f"ar{n}",
                              usage=claude_usage(100 * 10 ** n, 1), sidechain=True, agentId="a1") for n in range(2)]
    write_jsonl(isolated_home / ".config" / "claude" / "projects" / PROJECT / SESSION / "subagents" / "agent-a1.jsonl",
                agent, mtime=1_790_100_000)
    assert _inputs_every_way() == {1 + 100 + 1000}
    assert cli_json("tokens")["warnings"] == []


def test_copies_with_no_inode_are_compared_not_taken_for_one_file(tmp_path: Path) -> None:
    """On Windows ``DirEntry.stat()`` leaves ``st_ino`` 0: two copies there are two files, the
    longer read (not the first root's, as if one file had been reached twice)."""
    import os

    from agentscan.context import ScanContext
    from agentscan.providers.claude.copychoice import Copy, choose

    short = write_jsonl(tmp_path / "a" / "s.jsonl", _records(2), mtime=1_790_000_000)
    whole = write_jsonl(tmp_path / "b" / "s.jsonl", _records(3), mtime=1_789_000_000)

    def windows_stat(path: Path) -> os.stat_result:
        real = os.stat(path)
        return os.stat_result((real.st_mode, 0, 0, real.st_nlink, real.st_uid, real.st_gid, real.st_size,
                               int(real.st_atime), int(real.st_mtime), int(real.st_ctime)))

    copies = [Copy(str(path), path.name, windows_stat(path)) for path in (short, whole)]
    assert choose(copies, ScanContext(home=tmp_path, env={})).path == str(whole)
