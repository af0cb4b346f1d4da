"""The index forgets sessions whose files are gone, and nothing else (``scan.prune``)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from agentscan.cli.state import State
from agentscan.scan.cache import FILE_NAME
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

S1 = "aaaaaaaa-1111-4222-8333-000000000001"
S2 = "bbbbbbbb-1111-4222-8333-000000000002"
S3 = "cccccccc-1111-4222-8333-000000000003"
_TABLES = ("ids", "rows", "usage", "calls", "resume", "report_rows")


def session(home: Path, native_id: str, day: int, *, project: str = "-home-dev-project") -> Path:
    return claude_session_file(home, native_id, [
        claude_user(native_id, f"2026-11-{day:02d}T10:00:00Z", f"prompt of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-{day:02d}T10:00:01Z", msg_id=f"m-{native_id}", request_id=f"r-{native_id}",
                         usage=claude_usage(100 + day, 10)),
    ], project=project, mtime=1_790_000_000 + day * 86_400)


def scan(home: Path | None = None, *, no_cache: bool = False) -> None:
    """What ``list``, ``show`` of each session and ``tokens`` keep in the index."""
    from agentscan.scan.tokens import token_report

    with State(home=home, no_cache=no_cache).scanner(memo=True) as scanner:
        rows = scanner.list_sessions()
        for row in rows:
            scanner.show(row.id)
        token_report(scanner)


def kept() -> dict[str, set[str]]:
    """Each per-session table's session ids."""
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        return {table: {row[0] for row in conn.execute(f"SELECT session_id FROM {table}")} for table in _TABLES}
    finally:
        conn.close()


def facts() -> set[str]:
    """The paths the index keeps file facts under."""
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        return {row[0] for row in conn.execute("SELECT path FROM facts")}
    finally:
        conn.close()


def everywhere(*native_ids: str) -> set[str]:
    return {f"claude:{native_id}" for native_id in native_ids}


def test_a_deleted_session_is_forgotten_everywhere(isolated_home: Path) -> None:
    first, second = session(isolated_home, S1, 1), session(isolated_home, S2, 2)
    scan()
    before = kept()
    assert before["ids"] == before["rows"] == before["usage"] == everywhere(S1, S2)
    first.unlink()
    scan()
    after = kept()
    for table in _TABLES:
        assert after[table] == before[table] - everywhere(S1), table
    second.unlink()
    scan()
    assert all(not ids for ids in kept().values())


def test_a_moved_session_is_kept(isolated_home: Path) -> None:
    old = session(isolated_home, S1, 1)
    session(isolated_home, S2, 2)
    scan()
    new = session(isolated_home, S1, 1, project="-home-dev-elsewhere")
    old.unlink()
    scan()
    assert kept()["usage"] == everywhere(S1, S2)
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        assert conn.execute("SELECT path FROM ids WHERE session_id=?", (f"claude:{S1}",)).fetchone() == (str(new),)
    finally:
        conn.close()


def test_another_home_leaves_this_homes_sessions_alone(isolated_home: Path, tmp_path: Path) -> None:
    session(isolated_home, S1, 1)
    other = tmp_path / "other-home"
    session(other, S3, 3)
    scan()
    scan(other)  # the same index, another home: S1 is not under its roots
    assert kept()["usage"] == everywhere(S1, S3)
    scan()
    assert kept()["usage"] == everywhere(S1, S3)


def test_another_homes_session_is_not_opened_from_the_shared_index(isolated_home: Path, tmp_path: Path) -> None:
    """``show`` from one home of a session only another home has: not found, as without the index."""
    from agentscan.errors import SessionNotFound

    other = tmp_path / "other-home"
    session(other, S3, 3)
    scan(other)
    session(isolated_home, S1, 1)
    for no_cache in (True, False):
        with State(no_cache=no_cache).scanner(memo=True) as scanner:
            with pytest.raises(SessionNotFound):
                scanner.show(f"claude:{S3}")
    with State(home=other).scanner(memo=True) as scanner:
        assert scanner.show(f"claude:{S3}").row.id == f"claude:{S3}"


def test_a_discovery_that_could_not_read_everything_forgets_nothing(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    session(isolated_home, S1, 1)
    session(isolated_home, S2, 2, project="-home-dev-other")
    scan()
    unreadable = str(isolated_home / ".claude" / "projects" / "-home-dev-other")
    real_scandir = os.scandir

    def refusing(path: object = ".") -> object:
        if os.fspath(path) == unreadable:  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", unreadable)
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refusing)
    with State().scanner(memo=True) as scanner:
        found = {row.id for row in scanner.list_sessions()}
        assert found == everywhere(S1)  # S2 could not be listed this time
        assert any("cannot list" in warning.message for warning in scanner.warnings)
    assert kept()["usage"] == everywhere(S1, S2)  # ... and is not forgotten for it


def test_an_unreadable_directory_then_removed_is_still_pruned(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A discovery that could not read everything keeps nothing it would judge by later."""
    session(isolated_home, S1, 1)
    gone_later = session(isolated_home, S2, 2)
    other = session(isolated_home, S3, 3, project="-home-dev-other")
    scan()
    gone_later.unlink()
    unreadable = str(other.parent)
    real_scandir = os.scandir

    def refusing(path: object = ".") -> object:
        if os.fspath(path) == unreadable:  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", unreadable)
        return real_scandir(path)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(os, "scandir", refusing)
        scan()
    assert kept()["usage"] == everywhere(S1, S2, S3)  # nothing forgotten while S3 could not be listed
    other.unlink()
    other.parent.rmdir()
    scan()  # finds S1 alone, as the incomplete discovery did: it must still look for the gone
    assert kept()["usage"] == everywhere(S1)


def test_a_session_discovery_missed_without_a_word_is_kept(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a file that is not there is gone: a directory skipped silently proves nothing."""
    from agentscan.providers.claude.provider import ClaudeProvider

    session(isolated_home, S1, 1)
    session(isolated_home, S2, 2, project="-home-dev-other")
    scan()
    real_discover = ClaudeProvider.discover

    def missing_one(self: ClaudeProvider, ctx: object) -> list:
        return [ref for ref in real_discover(self, ctx) if ref.native_id != S2]  # type: ignore[arg-type]

    monkeypatch.setattr(ClaudeProvider, "discover", missing_one)
    with State().scanner(memo=True) as scanner:
        scanner.memo_discovery = False  # discover for real: the census has not changed
        assert {ref.id for ref in scanner.refs()} == everywhere(S1)
    assert kept()["usage"] == everywhere(S1, S2)


def test_a_relative_home_forgets_nothing_it_cannot_place(isolated_home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids found through a relative --home are stored relative: another working directory
    must not read them as gone."""
    base = tmp_path / "work"
    session(base / "h", S1, 1)
    monkeypatch.chdir(base)
    scan(Path("h"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h").mkdir()
    scan(Path("h"))  # another "h": empty
    assert kept()["usage"] == everywhere(S1)


def test_the_file_facts_of_a_forgotten_session_go_too(isolated_home: Path) -> None:
    """Codex keeps each rollout's header facts under its path: they go with the session."""
    from codex_builders import at, meta, rollout_path, turn_context, write_rollout

    codex_home = isolated_home / ".codex"
    threads = ["0199aaaa-0000-7000-8000-000000000001", "0199aaaa-0000-7000-8000-000000000002"]
    rollouts = [write_rollout(rollout_path(codex_home, thread, at(index * 60)),
                              [meta(thread, at(index * 60)), turn_context(at(index * 60 + 1))])
                for index, thread in enumerate(threads)]
    scan()

    assert facts() == {str(path) for path in rollouts}
    rollouts[0].unlink()
    scan()
    assert facts() == {str(rollouts[1])}


def test_the_facts_of_a_forgotten_sessions_other_files_go_too(isolated_home: Path) -> None:
    """A Codex session with a spawned child thread: two rollouts, each with facts."""
    from codex_builders import at, meta, rollout_path, turn_context, write_rollout

    codex_home = isolated_home / ".codex"
    parent, child, kept_thread = ("0199bbbb-0000-7000-8000-00000000000%d" % index for index in (1, 2, 3))
    rollouts = [
        write_rollout(rollout_path(codex_home, parent, at(0)), [meta(parent, at(0)), turn_context(at(1))]),
        write_rollout(rollout_path(codex_home, child, at(10)),
                      [meta(child, at(10), spawn_parent=parent, agent_role="reviewer"), turn_context(at(11))]),
        write_rollout(rollout_path(codex_home, kept_thread, at(60)), [meta(kept_thread, at(60)), turn_context(at(61))]),
    ]
    scan()

    assert facts() == {str(path) for path in rollouts}
    assert kept()["usage"] == {f"codex:{parent}", f"codex:{kept_thread}"}  # the child is its parent's
    rollouts[0].unlink()
    rollouts[1].unlink()
    scan()
    assert facts() == {str(rollouts[2])}


def test_the_sums_a_row_kept_for_its_cost_go_with_its_transcript(isolated_home: Path) -> None:
    """``providers/claude/rowsums`` keeps a row's sums under its transcript's path (kind
    ``claude-row-sums``): a forgotten session's go too, another's stay."""
    first, second = session(isolated_home, S1, 1), session(isolated_home, S2, 2)
    scan()
    assert row_sums() == {str(first), str(second)}
    first.unlink()
    scan()
    assert row_sums() == {str(second)}


def row_sums() -> set[str]:
    conn = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)
    try:
        return {row[0] for row in conn.execute("SELECT path FROM files WHERE kind = 'claude-row-sums'")}
    finally:
        conn.close()


def test_after_a_prune_every_answer_is_a_fresh_runs(isolated_home: Path) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    first = session(isolated_home, S1, 1)
    session(isolated_home, S2, 2)
    session(isolated_home, S3, 3, project="-home-dev-other")
    scan()
    first.unlink()
    for argv in (["list", "--json"], ["tokens", "--json"], ["tokens", "--by", "model", "--json"]):
        cached = CliRunner().invoke(app, argv)
        fresh = CliRunner().invoke(app, ["--no-cache", *argv])
        assert cached.exit_code == fresh.exit_code == 0
        assert cached.stdout == fresh.stdout, argv
    assert kept()["usage"] == everywhere(S2, S3)


def test_nothing_is_written_without_the_index(isolated_home: Path) -> None:
    session(isolated_home, S1, 1)
    scan(no_cache=True)
    assert not (Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME).exists()
