"""The twelfth pass's review (a first discovery takes the directories its census listed,
``ScanContext.listed``): each test failed on the reviewed commit (39b19d0).

* ``test_no_census_listing_outlives_*``: the listings no discovery asks for (a Cursor
  project's directory, a Gemini project's, a Claude session's ``tool-results``,
  everything the parent of ``scan.aside``'s helper listed for it) are dropped once the
  discovery they were taken for has run (``ScanContext.drop_listings``).
* ``test_a_directory_listable_but_not_searchable_*``: a first discovery (its census's
  listings) and one without the index say the same: Cursor's ``subagents`` is looked
  for (and its listing refused, said) as before; Claude's is listed, and refused, both ways.
* ``test_a_directory_found_by_name_*`` and the two after it: older than that commit
  (aeffd20 failed them too): Cursor's ``agent-transcripts``, ``<id>/<id>.jsonl``,
  ``<id>/subagents`` and workspace ``state.vscdb`` and Gemini's ``chats`` (in discovery
  and in the scan for paths), found by name, are not followed out of the roots
  (docs/security.md).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from agentscan.scan import aside
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import workers
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from cursor_builders import assistant, transcripts_dir, user, write_subagent, write_transcript
import gemini_builders
from spies import record_calls
from test_row_build_parity import _every_provider

A = "a1a1a1a1-0000-4000-8000-000000000001"
P = "p1p1p1p1-0000-4000-8000-000000000001"
Q = "q2q2q2q2-0000-4000-8000-000000000002"


def _left(scanner: Scanner) -> list[str]:
    """The census listings still kept in the scan."""
    return sorted(scanner.ctx.memo.get("_listing") or {})


# -- listings kept alive -------------------------------------------------------------


def test_no_census_listing_outlives_the_first_discovery(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a first ``refs()`` every discovery that could use a census listing has run:
    whatever is still kept is memory held until the command ends (on 39b19d0: each Cursor
    project's directory and each Gemini project's, which discovery never lists)."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 10**12)  # every discovery here
    _every_provider(isolated_home)
    with Scanner(home=isolated_home, use_cache=True, memo_discovery=True) as first:
        first.refs()
        assert _left(first) == []


@pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")
def test_no_census_listing_outlives_a_first_list_with_a_helper(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The censuses of the providers sent to ``scan.aside``'s helper are taken here before the
    fork; the helper takes their listings (a copy), this process never does: on 39b19d0 it
    keeps every directory of Codex, Gemini and Cursor for the rest of the command."""
    monkeypatch.setattr(aside, "MIN_ENTRIES", 0)
    adopted = record_calls(monkeypatch, aside, "_adopt", lambda scanner, provider, found: provider.name)
    _every_provider(isolated_home)
    with Scanner(home=isolated_home, use_cache=True, memo_discovery=True) as first:
        first.refs(few=25)
        assert adopted == ["codex", "gemini", "cursor"]
        assert [path for path in _left(first) if "/.claude/" not in path] == []


# -- a directory that can be listed but not searched -----------------------------------


class _Entry:
    """A ``DirEntry`` of a directory without search permission: its type comes from the
    listing (``d_type``), its ``stat`` is refused."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self._entry = entry
        self.name, self.path = entry.name, entry.path

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        raise PermissionError(errno.EACCES, "Permission denied", self.path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry, name)

    def __fspath__(self) -> str:
        return self.path


class _Listing:
    def __init__(self, entries: list[_Entry]) -> None:
        self._entries = entries

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __iter__(self) -> Iterator[_Entry]:
        return iter(self._entries)

    def close(self) -> None:
        pass


def _unsearchable(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """``directory`` as mode ``r--`` leaves it for a user who is not root (the tests run as
    root, who is denied nothing): it lists, with each entry's type, but nothing below it can
    be stat'ed, listed or opened (EACCES)."""
    top = str(directory)
    real_scandir, real_stat, real_lstat, real_open = os.scandir, os.stat, os.lstat, builtins.open

    def below(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and os.fspath(path).startswith(top + os.sep)

    def denied(path: object) -> PermissionError:
        return PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]

    def scandir(path: Any = ".") -> Any:
        if below(path):
            raise denied(path)
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) == top:
            with real_scandir(path) as listing:
                return _Listing([_Entry(entry) for entry in listing])
        return real_scandir(path)

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if below(path):
            raise denied(path)
        return real_stat(path, *args, **kwargs)

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if below(path):
            raise denied(path)
        return real_lstat(path, *args, **kwargs)

    def open_(file: Any, *args: Any, **kwargs: Any) -> Any:
        if below(file):
            raise denied(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "lstat", lstat)
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(io, "open", open_)


def _warned(home: Path, provider: str, *, first: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """The sessions and warnings of a first discovery with the index (its census's listings),
    or of one without the index."""
    with Scanner(home=home, provider_names=[provider], use_cache=first, memo_discovery=first) as scanner:
        found = sorted(ref.id for ref in scanner.refs())
        return found, sorted((warning.path, warning.message) for warning in scanner.warnings)


def test_a_directory_listable_but_not_searchable_cursor(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cursor's session directory ``<id>/`` that lists but cannot be searched: aeffd20 says
    "cannot list directory" (for its ``subagents``) every run, and stores nothing; 39b19d0's
    first discovery says nothing (the census listed no ``subagents``, and the nested
    transcript's failed ``stat`` reads as "no file") and stores the discovery without it."""
    write_transcript(isolated_home, "home-dev-app", P, [user("plan it"), assistant("on it")])
    write_transcript(isolated_home, "home-dev-app", Q, [user("flat"), assistant("yes")], flat=True)
    _unsearchable(monkeypatch, transcripts_dir(isolated_home, "home-dev-app") / P)
    without_index = _warned(isolated_home, "cursor", first=False)
    assert without_index[1]  # aeffd20 and 39b19d0 alike: the session is not read, and it says so
    assert _warned(isolated_home, "cursor", first=True) == without_index


def test_a_directory_listable_but_not_searchable_claude(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude's session directory ``<id>/`` (its ``subagents``) that lists but cannot be
    searched: on 39b19d0 a first discovery warns "cannot list directory" (the census's
    listing says ``subagents`` is a directory), one without the index (``os.path.isdir``
    refused) does not: the same home warns or not with the state of the index."""
    claude_session_file(isolated_home, A, [claude_user(A, "2026-11-01T09:00:00.000Z", "hi")])
    claude_subagent_file(isolated_home, A, "a1", [claude_assistant(
        A, "2026-11-01T09:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 1), sidechain=True)])
    _unsearchable(monkeypatch, isolated_home / ".claude" / "projects" / "-home-dev-project" / A)
    assert _warned(isolated_home, "claude", first=True) == _warned(isolated_home, "claude", first=False)


# -- older than the reviewed commit: directories found by name, followed out of the roots --


def _escape(home: Path, outside: Path, how: str) -> None:
    if how == "cursor-agent-transcripts":
        write_transcript(outside, "x", P, [user("SECRET"), assistant("x")])
        (home / ".cursor" / "projects" / "evil").mkdir(parents=True)
        (home / ".cursor" / "projects" / "evil" / "agent-transcripts").symlink_to(transcripts_dir(outside, "x"))
    elif how == "cursor-nested-transcript":
        write_transcript(outside, "x", P, [user("SECRET"), assistant("x")])
        session = transcripts_dir(home, "home-dev-app") / P
        session.mkdir(parents=True)
        (session / f"{P}.jsonl").symlink_to(transcripts_dir(outside, "x") / P / f"{P}.jsonl")
    elif how == "cursor-subagents":
        write_subagent(outside, "x", Q, "kid", [user("SECRET"), assistant("x")])
        write_transcript(home, "home-dev-app", Q, [user("hello"), assistant("hi")])
        (transcripts_dir(home, "home-dev-app") / Q / "subagents").symlink_to(transcripts_dir(outside, "x") / Q / "subagents")
    else:  # gemini-chats
        gemini_builders.write_chat(outside, "proj", "session-2026-05-01T10-00-s1s1s1s1.jsonl", [
            gemini_builders.meta(A), gemini_builders.user("u1", "2026-05-01T10:00:01.000Z", "SECRET")])
        (home / ".gemini" / "tmp" / "proj").mkdir(parents=True)
        (home / ".gemini" / "tmp" / "proj" / "chats").symlink_to(gemini_builders.chats_dir(outside, "proj"))


@pytest.mark.parametrize("how", ["cursor-agent-transcripts", "cursor-nested-transcript", "cursor-subagents", "gemini-chats"])
def test_a_directory_found_by_name_is_not_followed_out_of_the_roots(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """docs/security.md: a symlink is followed only when its target stays inside a provider
    root.  Claude checks its ``subagents`` (``_subagents_dir``); Cursor's ``agent-transcripts``,
    ``<id>/<id>.jsonl`` and ``<id>/subagents`` and Gemini's ``chats``, found by name, are not
    checked: the file outside is read (a row titled "SECRET"), with no warning."""
    outside = tmp_path / "outside"
    _escape(isolated_home, outside, how)
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)):
            opened.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    with Scanner(home=isolated_home, provider_names=[how.split("-")[0]]) as scanner:
        scanner.list_sessions()
        warnings = scanner.warnings
    assert [path for path in opened if path.startswith(str(outside))] == []
    assert any("outside" in warning.message for warning in warnings)


def test_a_workspace_database_linked_out_of_the_roots_is_not_opened(isolated_home: Path, tmp_path: Path) -> None:
    """Cursor's ``workspaceStorage/<hash>/state.vscdb``, found by name too: a link to a
    database outside the roots is not opened (its composer is no row), and is said."""
    from cursor_builders import bubble, make_state_db, make_workspace_db, state_db_path

    make_state_db(state_db_path(isolated_home))
    outside = make_workspace_db(tmp_path / "elsewhere", "file:///secret", [{
        "composerId": A, "name": "SECRET", "createdAt": 1700000000000, "lastUpdatedAt": 1700000600000,
        "conversation": [bubble("b1", 1, "read the secret"), bubble("b2", 2, "Done.", tokens=(10, 1))]}])
    inside = make_workspace_db(isolated_home, "file:///work/app", [])
    inside.unlink()
    inside.symlink_to(outside)
    with Scanner(home=isolated_home, provider_names=["cursor"]) as scanner:
        rows = scanner.list_sessions()
        warnings = scanner.warnings
    assert [row.title for row in rows] == []
    assert any("outside" in warning.message and warning.path.endswith("state.vscdb") for warning in warnings)


def test_gemini_path_scan_does_not_follow_chats_out_of_the_roots(isolated_home: Path, tmp_path: Path) -> None:
    """The scan of a project's chat files for absolute paths (``gemini.paths``) finds
    ``chats`` by name too: a link out of the roots is not read."""
    from agentscan.context import ScanContext
    from agentscan.providers.gemini.paths import paths_in_chat_files

    outside = tmp_path / "outside"
    gemini_builders.write_chat(outside, "proj", "session-2026-05-01T10-00-s1s1s1s1.jsonl", [
        gemini_builders.meta(A), gemini_builders.user("u1", "2026-05-01T10:00:01.000Z", "wrote /secret/place/file.py")])
    gemini_builders.write_chat(isolated_home, "mine", "session-2026-05-01T10-00-m1m1m1m1.jsonl", [
        gemini_builders.meta(A), gemini_builders.user("u1", "2026-05-01T10:00:01.000Z", "wrote /work/app/main.py")])
    project = isolated_home / ".gemini" / "tmp" / "proj"
    project.mkdir(parents=True)
    (project / "chats").symlink_to(gemini_builders.chats_dir(outside, "proj"))
    ctx = ScanContext.create(home=isolated_home, env={})
    ctx.confine_to([isolated_home / ".gemini" / "tmp"])
    assert paths_in_chat_files(project, ctx) == set()
    assert "/work/app/main.py" in paths_in_chat_files(isolated_home / ".gemini" / "tmp" / "mine", ctx)
