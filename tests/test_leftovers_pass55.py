"""Leftovers of pass 55.

- ``otlp <hook-only id>`` read the session's events twice: "no session matches" rebuilt its
  whole hook tree for a hint (``scan.notfound._outside_roots``) that ``otlp`` drops, then the
  export read it again (4.75 s against ``trace``'s 1.08 s on a 200 MB events file).  ``show``
  of such an id, which gives that hint, reads the events for the transcript's path alone.
- A folder of the events store that could not be listed (``events/claude`` made by ``sudo``)
  was left out of ``trace --list`` without a word, and ``trace ID`` said "no hook events have
  been captured yet": now a warning names it, and the error says the id may be in it.
- ``doctor`` said ``events store: X: not created yet`` of an ``AGENTSCAN_DATA_DIR`` naming a file.
- A list cut short ended ``, …)``, which an ASCII-only stream showed as ``, ~)``: now
  ``and N more``.
- ``hooks install`` named the settings file by its absolute path where ``hooks status`` shows
  ``~/…`` on a terminal.

The tests run as root: a folder's listing is refused by faking ``os.listdir`` for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import orjson
import pytest

from agentscan.hooks import store
from builders import cli_json, invoke
from hooks_builders import Replay
from spies import record_calls

SESSION = "f4f68c50-6310-4805-971c-49da8a517dbd"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def _capture(data_dir: Path, transcript: Path, session: str = SESSION, agent: str = "claude") -> None:
    replay = Replay(data_dir, agent=agent)
    base = {"session_id": session, "cwd": "/tmp/proj", "transcript_path": str(transcript)}
    replay.send({**base, "hook_event_name": "UserPromptSubmit", "prompt": "hi", "prompt_id": "p-1"})
    replay.send({**base, "hook_event_name": "Stop"})


def _transcript_elsewhere(tmp_path: Path) -> Path:
    """A transcript under a ``CLAUDE_CONFIG_DIR`` this shell lacks: the hint ``show`` gives."""
    path = tmp_path / "alt" / "cfg" / "projects" / "-tmp-proj" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("{}\n", encoding="utf-8")
    return path


# --- 1. otlp of a hook-only session reads its events once --------------------------------


def test_otlp_of_a_hook_only_session_reads_its_events_once(data_dir: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, _transcript_elsewhere(tmp_path))
    from agentscan.hooks import eventstream

    reads = record_calls(monkeypatch, store, "read_events", lambda session: session.path)
    # (pass 56: the export reads them one payload at a time)
    streamed = record_calls(monkeypatch, eventstream, "in_capture_order", lambda session, *_: session.path)
    out = tmp_path / "out.json"
    result = invoke("otlp", f"claude:{SESSION[:8]}", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert b'"traceId"' in out.read_bytes()
    assert reads + streamed == [store.session_path(str(data_dir), "claude", SESSION)]  # before: the same file twice
    # `show` of it, in the same process, still says where its transcript is (the hint is off
    # only while otlp looks the id up), from its events read once, with no tree built for it.
    from agentscan.hooks import tree

    reads.clear()
    streamed.clear()
    built = record_calls(monkeypatch, tree, "build_trace", lambda agent, session_id, *a, **k: session_id)
    shown = invoke("show", SESSION[:8])
    assert shown.exit_code == 1 and "CLAUDE_CONFIG_DIR=" in shown.stderr, shown.stderr
    assert f"agentscan show claude:{SESSION}` reads its transcript" in shown.stderr
    # before: the whole tree, for a hint; then every event (pass 56: only its last lines, tailread)
    assert reads == [] and streamed == [] and built == []


# --- 2. a folder of the events store that cannot be listed -------------------------------


def _unlistable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``os.listdir`` of ``folder`` refused, as for a folder of another owner (root reads any)."""
    real = os.listdir

    def listdir(path: Any = ".") -> list[str]:
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", str(folder))
        return real(path)

    monkeypatch.setattr(os, "listdir", listdir)


WARNED = "cannot list directory: Permission denied (the hook events of the sessions in it are left out)"


def test_trace_list_says_which_folder_it_could_not_list(data_dir: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, tmp_path / "gone.jsonl")
    _capture(data_dir, tmp_path / "other.jsonl", session="6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10", agent="cursor")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    listed = invoke("trace", "--list")
    assert listed.exit_code == 0
    assert "cursor:6f1c2a9e" in listed.stdout and SESSION not in listed.stdout
    assert f"warning: {folder}: {WARNED}" in listed.stderr.splitlines(), listed.stderr
    document = cli_json("trace", "--list")
    assert [(w["path"], w["message"]) for w in document["warnings"]] == [(str(folder), WARNED)]
    assert [s["id"] for s in document["sessions"]] == ["cursor:6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10"]
    assert invoke("--strict", "trace", "--list").exit_code == 1


def test_trace_list_of_only_an_unlisted_folder_is_not_an_empty_store(data_dir: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, tmp_path / "gone.jsonl")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    said = invoke("trace", "--list").stderr
    assert "no hook events captured yet" not in said
    assert f"no hook events could be listed in {data_dir}: a folder of it could not be listed" in " ".join(said.split())
    assert f"warning: {folder}: {WARNED}" in said.splitlines()


def test_trace_of_an_id_names_the_folder_it_could_not_list(data_dir: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, tmp_path / "gone.jsonl")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    result = invoke("trace", SESSION)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == (f"error: no hook events for {SESSION!r} in the folders of the events store agentscan "
                        "could list; it may be in one it could not (1):"), lines
    assert f"  {folder}: {WARNED}" in lines
    assert "captured yet" not in result.stderr and "hooks install" not in result.stderr


def test_otlp_of_every_session_says_the_folder_it_could_not_list(data_dir: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, tmp_path / "gone.jsonl")
    _capture(data_dir, tmp_path / "other.jsonl", session="6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10", agent="cursor")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    result = invoke("otlp", "-o", str(tmp_path / "out.json"))
    assert result.exit_code == 0 and "from 1 session" in result.output, result.output
    assert f"warning: {folder}: {WARNED}" in result.stderr.splitlines(), result.stderr
    assert invoke("--strict", "otlp", "-o", str(tmp_path / "out2.json")).exit_code == 1
    # (one of an agent --provider leaves out is no loss)
    quiet = invoke("otlp", "-p", "cursor", "-o", str(tmp_path / "out3.json"))
    assert quiet.exit_code == 0 and "cannot list" not in quiet.stderr, quiet.stderr


# --- 3. doctor of a store that is a file ----------------------------------------------------


def test_doctor_says_a_store_that_is_a_file_is_one(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = isolated_home / "datafile"
    path.write_text("", encoding="utf-8")
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(path))
    for command in ("doctor", "hooks status"):
        out = invoke(*command.split()).stdout
        assert f"events store: {path} (from AGENTSCAN_DATA_DIR): a file, not a directory" in out, out
        assert "not created yet" not in out.split("events store:")[1].splitlines()[0]
    path.unlink()
    assert f"events store: {path} (from AGENTSCAN_DATA_DIR): not created yet" in invoke("doctor").stdout


# --- 4. a list cut short, in words -----------------------------------------------------------


def test_a_cut_list_counts_what_it_leaves_out_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_empty import cwd_drops
    from agentscan.cli.tokens_notes import _print_named

    said = cwd_drops([(f"claude:{n}", f"/p/{n}") for n in range(7)], "/q", every=False)
    assert said.endswith("claude:3 (cwd /p/3), claude:4 (cwd /p/4) and 2 more"), said
    term = Terminal(tty=False, width=80, color=False)  # a pipe: the line is said on stderr
    _print_named("30 sessions that recorded nothing", [f"claude:{n:02}" for n in range(30)], term)
    line = capsys.readouterr().err.strip()
    assert line == "(+ 30 sessions that recorded nothing: claude:00, claude:01, claude:02, claude:03, claude:04 " \
                   "and 25 more)", line
    assert line.isascii()
    _print_named("2 sessions that recorded nothing", ["claude:a", "claude:b"], term)
    assert capsys.readouterr().err.strip() == "(+ 2 sessions that recorded nothing: claude:a, claude:b)"


def test_otlp_names_the_first_unread_transcript_and_counts_the_others() -> None:
    from agentscan.otlp.export import _settle
    from agentscan.otlp.sources import Built

    built = Built(unread_transcripts=["/a/1.jsonl", "/a/2.jsonl", "/a/3.jsonl"])
    _settle(built, SimpleNamespace(warnings=[], provider=lambda name: None))  # type: ignore[arg-type]
    (note,) = built.format_notes
    assert "(/a/1.jsonl and 2 more): their turns" in note.message and note.message.isascii(), note.message


# --- 5. hooks install names the settings file as hooks status does ---------------------------


def test_hooks_install_shows_the_home_as_tilde_on_a_terminal(isolated_home: Path, tty: Callable[..., None]) -> None:
    piped = invoke("hooks", "install", "claude", "--dry-run")
    assert f"in {isolated_home}/.claude/settings.json; nothing written" in piped.stderr  # a pipe: whole
    tty(200, color=False)
    dry = invoke("hooks", "install", "claude", "--dry-run")
    assert "in ~/.claude/settings.json; nothing written" in dry.stderr, dry.stderr
    done = invoke("hooks", "install", "claude")
    assert done.exit_code == 0
    assert "agentscan hook added to" in done.stdout and "events in ~/.claude/settings.json" in done.stdout, done.stdout
    assert str(isolated_home) not in done.stdout
    again = invoke("hooks", "install", "claude").stdout
    assert again.startswith("~/.claude/settings.json: nothing to change (already installed)"), again
    assert "~/.claude/settings.json" in invoke("hooks", "status").stdout


def test_hooks_install_in_a_pipe_keeps_the_whole_path(isolated_home: Path) -> None:
    done = invoke("hooks", "install", "claude")
    assert f"events in {isolated_home}/.claude/settings.json" in done.stdout
    assert orjson.loads(invoke("hooks", "install", "claude", "--json").stdout)["agent"] == "claude"
