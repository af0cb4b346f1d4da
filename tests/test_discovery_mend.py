"""A stored discovery mended, not redone, when files only changed in place (``scan.memo``)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.census import census
from agentscan.scan.memo import DiscoveryMemo
from builders import cli_json, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, write_jsonl

S1 = "aaaaaaaa-1111-4222-8333-444444444444"
S2 = "bbbbbbbb-1111-4222-8333-444444444444"
S3 = "cccccccc-1111-4222-8333-444444444444"


def records(native_id: str, day: int, tokens: int, n: int = 1) -> list[dict]:
    return [
        claude_user(native_id, f"2026-11-{day:02d}T10:00:00Z", f"prompt of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-{day:02d}T10:00:0{n}Z", msg_id=f"m-{native_id}-{n}",
                         request_id=f"r-{native_id}-{n}", usage=claude_usage(tokens, 10)),
    ]


def session(home: Path, native_id: str, day: int, tokens: int, project: str = "-home-dev-project") -> Path:
    return claude_session_file(home, native_id, records(native_id, day, tokens), project=project,
                               mtime=1_790_000_000 + day * 86_400)


def grow(path: Path, native_id: str, tokens: int, mtime: float) -> None:
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(native_id, "2026-11-20T10:00:09Z", msg_id=f"m-late-{tokens}",
                                                   request_id=f"r-late-{tokens}", usage=claude_usage(tokens, 5))) + b"\n")
    os.utime(path, (mtime, mtime))



@pytest.fixture
def mends(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each attempt to mend Claude's stored discovery succeeded (cleared by ``stored``)."""
    tried: list[bool] = []
    original = DiscoveryMemo.mend

    def counting(self: DiscoveryMemo):  # noqa: ANN202
        found = original(self)
        if self._provider.name == "claude":
            tried.append(found is not None)
        return found

    monkeypatch.setattr(DiscoveryMemo, "mend", counting)
    return tried


def same_as_a_fresh_scan() -> None:
    for command in (["list", "-n", "100"], ["tokens"]):
        assert cli_json(*command) == cli_json("--no-cache", *command)


def test_a_grown_session_mends_the_stored_discovery(isolated_home: Path, discoveries: list[str], mends: list[bool]) -> None:
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200, project="-home-dev-other")
    cli_json("list")
    mends.clear()  # the first run had nothing to mend
    assert discoveries == ["claude"]
    grow(first, S1, 7, 1_795_000_000)  # now the newest
    listed = cli_json("list")["sessions"]
    assert discoveries == ["claude"]  # not discovered again
    assert mends == [True]
    assert [row["native_id"] for row in listed] == [S1, S2]
    assert listed[0]["tokens"]["input"] == 107
    same_as_a_fresh_scan()
    # The mended discovery was kept: the next run takes it as it is.
    mends.clear()
    discoveries.clear()  # the fresh scans' own
    cli_json("list")
    assert mends == [] and discoveries == []


@pytest.mark.parametrize("grown", ["the subagent", "both"])
def test_a_grown_subagent_transcript_mends_its_session(isolated_home: Path, discoveries: list[str],
                                                      mends: list[bool], grown: str) -> None:
    # An agent running a subagent writes both files between two runs, or only the subagent's.
    first = session(isolated_home, S1, 1, 100)
    agent = claude_subagent_file(isolated_home, S1, "a1", records(S1, 1, 40, n=2))
    os.utime(agent, (1_790_100_000, 1_790_100_000))
    session(isolated_home, S2, 2, 200)
    cli_json("tokens")
    mends.clear()  # the first run had nothing to mend
    grow(agent, S1, 3, 1_796_000_000)
    if grown == "both":
        grow(first, S1, 5, 1_796_000_001)
    assert [row["native_id"] for row in cli_json("list")["sessions"]] == [S1, S2]
    assert mends == [True] and discoveries == ["claude"]
    same_as_a_fresh_scan()


@pytest.mark.parametrize("change", ["new session", "removed session", "new subagent"])
def test_a_file_that_came_or_went_means_discovery(isolated_home: Path, discoveries: list[str], mends: list[bool],
                                                  change: str) -> None:
    session(isolated_home, S1, 1, 100)
    second = session(isolated_home, S2, 2, 200)
    cli_json("list")
    mends.clear()  # the first run had nothing to mend
    if change == "new session":
        session(isolated_home, S3, 3, 300)
    elif change == "removed session":
        second.unlink()
    else:
        claude_subagent_file(isolated_home, S1, "a1", records(S1, 1, 40, n=2))
    cli_json("list")
    assert discoveries == ["claude", "claude"]
    assert mends == [False]
    same_as_a_fresh_scan()


def test_a_discovery_that_chose_between_copies_is_not_mended(isolated_home: Path, discoveries: list[str],
                                                             mends: list[bool]) -> None:
    # The same session under both default roots: the fresher copy wins, and the
    # other's mtime counts in its recency; growing either may change that.
    older = session(isolated_home, S1, 1, 100)
    newer = write_jsonl(isolated_home / ".config" / "claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl",
                        records(S1, 1, 500), mtime=1_790_500_000)
    session(isolated_home, S2, 2, 200)
    assert {row["native_id"]: row for row in cli_json("list")["sessions"]}[S1]["tokens"]["input"] == 500
    mends.clear()
    grow(older, S1, 9, 1_799_000_000)  # the other copy is the fresher now
    assert newer.exists()
    rows = {row["native_id"]: row for row in cli_json("list")["sessions"]}
    assert mends == [False] and discoveries == ["claude", "claude"]
    assert rows[S1]["tokens"]["input"] == 109
    same_as_a_fresh_scan()


def test_a_legacy_sidechain_means_discovery(isolated_home: Path, discoveries: list[str], mends: list[bool]) -> None:
    session(isolated_home, S1, 1, 100)
    legacy = write_jsonl(isolated_home / ".claude" / "projects" / "-home-dev-project" / "agent-0badc0de.jsonl",
                         records(S1, 1, 30, n=3))
    cli_json("list")
    mends.clear()  # the first run had nothing to mend
    # Rewritten in place with another parent: only its head says whose it is.
    legacy.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records(S2, 1, 30, n=3)))
    cli_json("list")
    assert mends == [False] and discoveries == ["claude", "claude"]
    same_as_a_fresh_scan()


def test_a_changed_directory_without_a_session_file_means_discovery(isolated_home: Path, discoveries: list[str],
                                                                     mends: list[bool]) -> None:
    session(isolated_home, S1, 1, 100)
    notes = isolated_home / ".claude" / "projects" / "-home-dev-empty" / "notes.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text("one")
    cli_json("list")
    mends.clear()  # the first run had nothing to mend
    notes.write_text("two, longer")  # changed in place: no session's file is there
    cli_json("list")
    assert mends == [False] and discoveries == ["claude", "claude"]


def test_the_census_names_each_directory_and_its_shape(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    target = root / "a" / "s.jsonl"
    target.write_bytes(b"1\n")
    (root / "b" / "t.jsonl").write_bytes(b"2\n")
    before = census([str(root)])
    assert before is not None and before.dirs is not None
    with target.open("ab") as handle:
        handle.write(b"3\n")
    after = census([str(root)])
    assert after is not None and after.dirs is not None
    assert after.digest != before.digest and after.shape == before.shape
    assert {path for path in after.dirs if after.dirs[path] != before.dirs[path]} == {str(root / "a")}
    (root / "b" / "u.jsonl").write_bytes(b"")
    assert census([str(root)]).shape != before.shape  # type: ignore[union-attr]


def test_a_census_through_a_symlinked_directory_cannot_be_mended(tmp_path: Path) -> None:
    root = tmp_path / "root"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "s.jsonl").write_bytes(b"1\n")
    root.mkdir()
    os.symlink(elsewhere, root / "linked")
    found = census([str(root)])
    assert found is not None and found.dirs is None  # a file there has two paths


def test_sums_of_unchanged_sessions_come_from_the_last_snapshot(isolated_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.sessionsums import SessionSums

    # ``--by cwd``: a grouping never patched (``scan.grouppatch``), so the whole report, whose
    # unchanged sessions' sums come from the snapshot, is what is counted here.
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    session(isolated_home, S3, 3, 300, project="-home-dev-other")
    cli_json("tokens", "--by", "cwd")
    decoded: list[int] = []
    original = SessionSums.from_bytes.__func__  # type: ignore[attr-defined]

    def counting(cls: type, data: object) -> SessionSums | None:
        decoded.append(1)
        return original(cls, data)

    monkeypatch.setattr(SessionSums, "from_bytes", classmethod(counting))
    grow(first, S1, 7, 1_795_000_000)
    grown = cli_json("tokens", "--by", "cwd")
    assert decoded == []  # S2 and S3 from the snapshot, S1 parsed: no session's sums decoded alone
    assert grown["total"]["input"] == 607
    assert grown == cli_json("--no-cache", "tokens", "--by", "cwd")
    # Once more, unchanged: the new snapshot holds every session.
    assert cli_json("tokens", "--by", "day") == cli_json("--no-cache", "tokens", "--by", "day")
    assert decoded == []




def test_a_provider_without_sessions_is_taken_from_the_index(isolated_home: Path, discoveries: list[str]) -> None:
    notes = isolated_home / ".claude" / "projects" / "-home-dev-project" / "notes.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text("no session yet")
    os.utime(notes, (1_790_000_000, 1_790_000_000))
    assert cli_json("list")["sessions"] == []
    assert cli_json("tokens", "--by", "day")["rows"] == []
    assert discoveries == ["claude"]  # its stored discovery holds no session, and stands


def test_more_sessions_to_parse_than_are_worth_locating_are_discovered_at_once(
        isolated_home: Path, discoveries: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import agentscan.scan.ownrefs as ownrefs_module

    located: list[str] = []
    original = ClaudeProvider.locate

    def counting(self: ClaudeProvider, native_id: str, path: str | None, ctx: ScanContext):  # noqa: ANN202
        located.append(native_id)
        return original(self, native_id, path, ctx)

    monkeypatch.setattr(ClaudeProvider, "locate", counting)
    monkeypatch.setattr(ownrefs_module, "LOCATE_LIMIT", 1)
    first = session(isolated_home, S1, 1, 100)
    second = session(isolated_home, S2, 2, 200)
    cli_json("list")
    grow(first, S1, 7, 1_795_000_000)
    grow(second, S2, 8, 1_795_000_001)
    discoveries.clear()
    assert cli_json("list") == cli_json("--no-cache", "list")
    assert located == [] and discoveries == ["claude", "claude"]  # one for the parses, one for --no-cache
