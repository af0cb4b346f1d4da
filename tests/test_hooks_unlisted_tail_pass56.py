"""Pass 56: an events folder that cannot be listed, said by ``doctor`` and ``otlp ID``; and
``show <hook-only id>`` reading only the last lines of the session's events for its hint.

- ``doctor`` (and ``hooks status``) counted the sessions of the folders it could list and said
  nothing of one it could not (``events/claude`` made by ``sudo``): its sessions were simply
  not there.  Now a ``problem:`` line names it (``store.unlisted`` in ``--json``), and
  ``doctor --strict`` fails on it as ``trace --list --strict`` does.
- ``otlp <id>`` of a session in such a folder said only "no session matches": now it says the
  id may be in the folder it could not list, as ``trace <id>`` says it.
- ``show <hook-only id>`` read every event of the session for the transcript path its hint
  names: now it reads the file from its end and stops at the latest event naming one.

The tests run as root: a folder's listing is refused by faking ``os.listdir`` for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.hooks import store, tailread
from agentscan.hooks.tree import build_trace
from builders import cli_json, invoke
from hooks_builders import Replay

SESSION = "f4f68c50-6310-4805-971c-49da8a517dbd"
WARNED = "cannot list directory: Permission denied (the hook events of the sessions in it are left out)"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def _capture(data_dir: Path, transcript: str, session: str = SESSION, agent: str = "claude") -> None:
    replay = Replay(data_dir, agent=agent)
    base = {"session_id": session, "cwd": "/tmp/proj", "transcript_path": transcript}
    replay.send({**base, "hook_event_name": "UserPromptSubmit", "prompt": "hi", "prompt_id": "p-1"})
    replay.send({**base, "hook_event_name": "Stop"})


def _unlistable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    real = os.listdir

    def listdir(path: Any = ".") -> list[str]:
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", str(folder))
        return real(path)

    monkeypatch.setattr(os, "listdir", listdir)


# --- doctor / hooks status ------------------------------------------------------------------


def test_doctor_says_the_folder_whose_sessions_it_could_not_count(data_dir: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, str(tmp_path / "a.jsonl"))
    _capture(data_dir, str(tmp_path / "b.jsonl"), session="6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10", agent="cursor")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    said = invoke("hooks", "status")
    text = " ".join(said.stdout.split())
    assert "1 session (cursor 1)" in text, said.stdout
    assert (f"problem: {folder}: {WARNED}: the sessions counted above are only those of the folders that could "
            "be listed") in text, said.stdout
    document = cli_json("doctor", "--no-redact")
    assert document["hooks"]["store"]["unlisted"] == [{"path": str(folder), "message": WARNED}]
    assert cli_json("hooks", "status")["store"]["unlisted"] == [{"path": str(folder), "message": WARNED}]
    assert invoke("doctor").exit_code == 0
    strict = invoke("--strict", "doctor")
    assert strict.exit_code == 1 and str(folder) in strict.stderr, strict.stderr


def test_doctor_of_a_listable_store_has_nothing_to_say(data_dir: Path, tmp_path: Path) -> None:
    _capture(data_dir, str(tmp_path / "a.jsonl"))
    assert cli_json("hooks", "status")["store"]["unlisted"] == []
    assert "problem" not in invoke("hooks", "status").stdout


# --- otlp ID --------------------------------------------------------------------------------


def test_otlp_of_an_id_in_an_unlisted_folder_says_it_may_be_there(data_dir: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, str(tmp_path / "a.jsonl"))
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    result = invoke("otlp", SESSION, "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: no session matches {SESSION!r}", lines
    assert ("no hook events for it in the folders of the events store agentscan could list; it may be in one it "
            "could not (1):") in lines, lines
    assert f"  {folder}: {WARNED}" in lines


def test_otlp_of_an_unknown_id_beside_other_hook_sessions_names_the_folder_too(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _capture(data_dir, str(tmp_path / "a.jsonl"))
    _capture(data_dir, str(tmp_path / "b.jsonl"), session="6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10", agent="cursor")
    folder = data_dir / "events" / "claude"
    _unlistable(monkeypatch, folder)
    result = invoke("otlp", SESSION, "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 1
    assert "lists the hook session captured" in " ".join(result.stderr.split())  # (as before)
    assert f"  {folder}: {WARNED}" in result.stderr.splitlines()


def test_otlp_of_an_unknown_id_in_a_listable_store_says_no_folder(data_dir: Path, tmp_path: Path) -> None:
    _capture(data_dir, str(tmp_path / "a.jsonl"))
    result = invoke("otlp", "0123456789ab", "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 1 and "could not (" not in result.stderr


# --- show <hook-only id>: its hint from the last lines ----------------------------------------


def _line(at_ns: int, event: str, **fields: Any) -> bytes:
    payload = {"session_id": SESSION, "hook_event_name": event, "prompt_id": "p", **fields}
    return orjson.dumps({"v": 1, "received_at_ns": at_ns, "agent": "claude", "event": event,
                         "session_id": SESSION, "turn_id": "p", "payload": payload}) + b"\n"


BASE = 1_790_000_000_000_000_000
SECOND = 1_000_000_000


def _iso(at_ns: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(at_ns // SECOND, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _session(tmp_path: Path, lines: list[bytes]) -> store.StoredSession:
    path = Path(store.session_path(str(tmp_path), "claude", SESSION))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    return store.StoredSession("claude", SESSION, str(path))


def _tree_says(session: store.StoredSession) -> str | None:
    events, _ = store.read_events(session)
    return build_trace("claude", SESSION, events).session.transcript_path


@pytest.mark.parametrize("lines", [
    # the last line names it
    [_line(BASE, "UserPromptSubmit", transcript_path="/t/old.jsonl"), _line(BASE + 1, "Stop", transcript_path="/t/new.jsonl")],
    # the last lines name none, or a subagent's own transcript
    [_line(BASE, "UserPromptSubmit", transcript_path="/t/main.jsonl"),
     _line(BASE + 1, "PreToolUse", transcript_path="/t/main/subagents/agent-1.jsonl"),
     _line(BASE + 2, "Stop", transcript_path=None), b"not json\n", b"\n"],
    # written out of capture order: the later capture wins, not the later line
    [_line(BASE, "UserPromptSubmit", transcript_path="/t/a.jsonl"),
     _line(BASE + 2_000_000_000, "PreToolUse", transcript_path="/t/later.jsonl"),
     _line(BASE + 1_000_000_000, "PostToolUse", transcript_path="/t/written-last.jsonl")],
    # payload timestamps 40 s ahead of the capture (pass 56 review): the order is theirs, and
    # the line written first, a second earlier, holds the later one
    [_line(BASE, "UserPromptSubmit", transcript_path="/t/later-stamp.jsonl", timestamp=_iso(BASE + 41 * SECOND)),
     _line(BASE + SECOND, "Stop", transcript_path="/t/written-last.jsonl", timestamp=_iso(BASE + 40 * SECOND))],
    # none at all
    [_line(BASE, "Stop")],
    # a last line still being written
    [_line(BASE, "Stop", transcript_path="/t/x.jsonl"), _line(BASE + 1, "Stop", transcript_path="/t/y.jsonl")[:20]],
])
def test_the_tail_names_the_transcript_the_tree_names(tmp_path: Path, lines: list[bytes]) -> None:
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session)


def test_the_tail_stops_at_the_latest_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before (no such reader: ``show`` decoded all 2,000 lines): the last few decoded."""
    lines = [_line(BASE + n * 10_000_000_000, "PostToolUse", transcript_path="/t/s.jsonl",
                   tool_response={"content": "x" * 5000}) for n in range(2000)]
    session = _session(tmp_path, lines)
    decoded: list[int] = []
    real = tailread.line_decoder

    def counting(stored: Any) -> Any:
        decode = real(stored)

        def each(line: bytes, number: int, warnings: list[Any]) -> Any:
            decoded.append(number)
            return decode(line, number, warnings)
        return each

    monkeypatch.setattr(tailread, "line_decoder", counting)
    assert tailread.latest_transcript_path(session) == "/t/s.jsonl"
    assert len(decoded) <= 1 + tailread.WRITE_DELAY_NS // 10_000_000_000, len(decoded)  # those within a write's delay


def test_show_of_a_hook_only_id_reads_no_event_whole(data_dir: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``show``'s hint of the transcript kept elsewhere, from the last lines alone."""
    transcript = tmp_path / "alt" / "cfg" / "projects" / "-tmp-proj" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("{}\n", encoding="utf-8")
    _capture(data_dir, str(transcript))
    from spies import record_calls

    reads = record_calls(monkeypatch, store, "read_events", lambda session: session.path)
    shown = invoke("show", SESSION[:8])
    assert shown.exit_code == 1 and "CLAUDE_CONFIG_DIR=" in shown.stderr, shown.stderr
    assert f"agentscan show claude:{SESSION}` reads its transcript" in shown.stderr
    assert reads == []
