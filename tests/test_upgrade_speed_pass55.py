"""The first runs after an upgrade (pass 55, issue 16).

* The note of a ``list --all`` after an upgrade counts Cursor's sessions too: its stored refs
  (taken from the index after the upgrade's ``tokens`` kept the discovery) carry no hint, and
  ``CursorProvider.fingerprint`` read ``hint.workspace`` of them: the ``AttributeError`` was
  taken for "no match" (``upgraded._fingerprint_as``), and no Cursor session was counted.
  The fingerprint of a stored ref is now the one of discovery's own ref, a workspace-only
  composer's included.
* The upgrade's ``tokens`` keeps again the calls the index held under the older parser (an
  export kept them), from its own parse: the first export after it parsed every session again.
* Its progress line: what follows the parse (the sums kept) is ``caching sessions``, and the
  upgrade's note is said above a line already up as soon as it is counted."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from agentscan.providers.cursor.provider import CursorProvider
from builders import invoke
from cursor_builders import (assistant, bubble, composer_data, make_state_db, make_workspace_db, state_db_path, user,
                             write_transcript)

NOTE = "note: agentscan was upgraded"


@pytest.fixture(autouse=True)
def drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 0.0)
    monkeypatch.setattr("agentscan.cli.progress.REDRAW_S", 0.0)


def _notes(*argv: str) -> list[str]:
    result = invoke(*argv)
    assert result.exit_code == 0, result.output
    lines = re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", result.stderr))
    return [line for line in lines if line.startswith("note:")]


def _cursor_home(home: Path) -> None:
    """A transcript, an IDE composer and a composer only a workspace DB lists."""
    ide, listed = "c5500000-0000-4000-8000-0000000000a1", "c5500000-0000-4000-8000-0000000000b2"
    write_transcript(home, "Users-dev-app", "c5500000-0000-4000-8000-0000000000c3",
                     [user("fix the build"), assistant("Fixed.")])
    make_state_db(state_db_path(home), composers=[composer_data(ide, name="ide chat", bubbles=["u"])],
                  bubbles={ide: [bubble("u", 1, "hello", tokens=(10, 20))]})
    make_workspace_db(home, "file:///work/old", [{
        "composerId": listed, "name": "old chat", "createdAt": 1700000000000, "lastUpdatedAt": 1700000600000,
        "conversation": [bubble("b1", 1, "rename it"), bubble("b2", 2, "Renamed.", tokens=(1200, 80))]}])
    # Written long ago: the index keeps discovery (``scan.memo``), and a run's refs are its own.
    for directory, folders, files in os.walk(home, topdown=False):
        for name in files + folders:
            os.utime(os.path.join(directory, name), (1_700_000_000, 1_700_000_000))


def test_the_upgrade_note_counts_cursor_sessions(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                 only_cursor: None, tty) -> None:  # noqa: ANN001
    _cursor_home(isolated_home)
    assert invoke("tokens", "--all").exit_code == 0
    assert invoke("list", "--all").exit_code == 0
    monkeypatch.setattr(CursorProvider, "parser_version", str(int(CursorProvider.parser_version) + 1))
    tty(100)
    assert _notes("tokens", "--by", "day") == [
        f"{NOTE}: reading 3 sessions again for their tokens (the index holds them from an older version)"]
    # Its refs are the index's now (the discovery ``tokens`` kept): every one counted.
    assert _notes("list", "--all") == [
        f"{NOTE}: reading 3 sessions again for their rows (the index holds them from an older version)"]
    assert _notes("list", "--all") == []


def test_a_stored_refs_fingerprint_is_discoverys(isolated_home: Path, only_cursor: None) -> None:
    from agentscan.scan.memorefs import MemoRef
    from agentscan.scan.scanner import Scanner

    _cursor_home(isolated_home)
    with Scanner() as scanner:
        provider = scanner.provider("cursor")
        refs = scanner.refs(["cursor"])
        discovered = {ref.id: provider.fingerprint(ref, scanner.ctx, version="3") for ref in refs}
        stored = [MemoRef(ref.provider, ref.native_id, str(ref.path) if ref.path else None, ref.recency,
                          [str(path) for path in ref.files], ref.children, "") for ref in refs]
        # each as its discovered ref, under an older version too (the upgrade note's search)
        assert {ref.id: provider.fingerprint(ref, scanner.ctx, version="3") for ref in stored} == discovered
    assert len(set(discovered.values())) == 3


def _sqlite_tables(path: Path) -> dict[str, list]:
    """Every table of an export, rows sorted (its own bookkeeping left out)."""
    import sqlite3
    from contextlib import closing

    tables = {}
    with closing(sqlite3.connect(path)) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            if name.startswith(("sqlite_", "_agentscan")):
                continue
            cursor = conn.execute(f"SELECT * FROM {name}")
            # (when each export saw a session is no part of what it read)
            keep = [at for at, column in enumerate(cursor.description) if not column[0].endswith("seen_at")]
            tables[name] = sorted(repr([row[at] for at in keep]) for row in cursor)
    return tables


def test_the_upgrade_tokens_keeps_the_calls_an_export_kept(isolated_home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``tokens`` after an upgrade keeps again, from its own parse, the calls the index
    held under the older parser (an export kept them): the first export after it parsed every
    session again for them (21 CPU-s at scale 10)."""
    from agentscan.providers.claude.provider import ClaudeProvider
    from builders import claude_sessions

    claude_sessions(isolated_home, 70)  # (a parse of 64 or more keeps no call of its own: ``collect.sums``)
    out = tmp_path / "out.sqlite"
    assert invoke("tokens", "--json").exit_code == 0
    assert invoke("export", "-f", "sqlite", "-o", str(out)).exit_code == 0
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    before = invoke("tokens", "--json")
    assert before.exit_code == 0
    parsed: list[str] = []
    usage = ClaudeProvider.session_usage

    def session_usage(self, ref, ctx, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        parsed.append(ref.id)
        return usage(self, ref, ctx, *args, **kwargs)

    monkeypatch.setattr(ClaudeProvider, "session_usage", session_usage)
    assert invoke("export", "-f", "sqlite", "-o", str(out)).exit_code == 0
    assert parsed == []  # every call from the index
    fresh = tmp_path / "fresh.sqlite"
    assert invoke("--no-cache", "export", "-f", "sqlite", "-o", str(fresh)).exit_code == 0
    assert _sqlite_tables(out) == _sqlite_tables(fresh)
    assert before.stdout == invoke("--no-cache", "tokens", "--json").stdout


def test_the_sums_kept_after_a_parse_are_a_phase_of_their_own(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                              tty) -> None:  # noqa: ANN001
    """On a terminal, ``tokens`` stood at "adding up tokens 15,000/15,000" while what it parsed
    was kept in the index (≈2 s at scale 10 after an upgrade): that is "caching sessions" now."""
    from agentscan.progress import BUNDLING, CACHING
    from agentscan.scan.cache import Cache
    from builders import claude_sessions

    from agentscan.cli import progress as cli_progress

    claude_sessions(isolated_home, 6)
    shown: list[cli_progress.StderrProgress] = []  # the run's progress line
    made = cli_progress.StderrProgress.__init__

    def init(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        shown.append(self)
        made(self, *args, **kwargs)
    monkeypatch.setattr(cli_progress.StderrProgress, "__init__", init)
    phases: list[tuple[str, str]] = []  # (what was kept, the line's phase then)
    for method in ("put_usage", "put_snapshot"):
        real = getattr(Cache, method)

        def recording(self, *args, _real=real, _method=method, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            phases.append((_method, shown[-1].phase if shown else "?"))
            return _real(self, *args, **kwargs)
        monkeypatch.setattr(Cache, method, recording)
    tty(100)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    # (pass 56's review: each agent's snapshot after them is a phase of its own, ``BUNDLING``)
    assert ("put_usage", CACHING) in phases and ("put_snapshot", BUNDLING) in phases, phases
    assert not [phase for method, phase in phases if method == "put_usage" and phase != CACHING]
    assert "caching sessions" in result.stderr


def test_the_note_is_said_above_a_line_already_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line up when the upgrade's note is counted ("finding sessions 15,000" now comes before
    it): the note is said at once, above it, and the line drawn again as it was (held for the
    next draw, it was lost by a phase that ended within a redraw's interval)."""
    import io

    from agentscan.cli.progress import StderrProgress
    from agentscan.progress import FINDING

    stream = io.StringIO()
    progress = StderrProgress(stream)
    with progress.named(FINDING):
        progress.expect(0)
        progress.advance(15)
    shown = stream.getvalue()
    assert shown.endswith("finding sessions 15")
    progress.upgraded(15, "tokens")
    said = stream.getvalue()[len(shown):]
    assert said == ("\r\x1b[Knote: agentscan was upgraded: reading 15 sessions again for their tokens (the index holds "
                    "them from an older version)\n\r\x1b[Kfinding sessions 15")
    progress.upgraded(15, "tokens")
    assert stream.getvalue()[len(shown) + len(said):] == ""  # once a run


def test_a_first_run_says_it_is_finding_sessions(isolated_home: Path, tty) -> None:  # noqa: ANN001
    """The censuses and discoveries of a first run (17,500 files stat'ed at scale 10, ≈3.5 s)
    showed nothing on the terminal: they are ``finding sessions N``, counted as each agent's are
    found (no total is known then), before the phase that reads them."""
    from builders import claude_sessions

    claude_sessions(isolated_home, 3)
    tty(100)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    lines = [line for line in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", result.stderr)) if line]
    assert "finding sessions 3" in lines, lines
    assert lines.index("finding sessions 3") < lines.index("adding up tokens")
    assert not [line for line in lines if line.startswith("finding sessions") and "/" in line]  # no total said


def test_the_delay_is_the_runs_not_each_phases(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of phases each under a second (an unchanged export at scale 10: 3 s) showed no line
    at all, each phase waiting out a second of its own: the second is the run's now.  A result
    printed (the line cleared) starts it again."""
    import io
    from types import SimpleNamespace

    from agentscan.cli.progress import StderrProgress

    clock = [100.0]
    monkeypatch.setattr("agentscan.cli.progress.time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 1.0)
    stream = io.StringIO()
    progress = StderrProgress(stream)
    with progress.named("adding up days"):
        progress.expect(10)
        clock[0] += 0.7
        progress.advance(10)
    assert stream.getvalue() == ""  # under a second: nothing yet
    with progress.named("writing the index"):
        progress.expect(10)
        clock[0] += 0.4  # 1.1 s into the run, 0.4 s into the phase
        progress.advance(4)
    assert stream.getvalue().endswith("writing the index 4/10")
    progress.finish()
    shown = stream.getvalue()
    progress.expect(5)
    clock[0] += 0.5
    progress.advance()
    assert stream.getvalue() == shown  # after a result: a second of its own
