"""An export's kept history and a resumed session's copies (review of pass 49).

A session whose main transcript left the disk keeps its own calls in the index (``gone_at``)
unless another session's files copy its history (a Claude session resumed from it): that one
counts those calls now (``tokens`` does), and keeping them counted them twice.  And a copied
call moving between the two as one is deleted or restored is no loss to warn of: a --strict
cron run failed when a backup was restored.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke

A, B = (f"{n * 8}-0000-4000-8000-000000000049" for n in "ab")


def _own(session: str, day: int, used: int) -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{day}"),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                             usage=claude_usage(used, 10), parentUuid=f"u{day}", uuid=f"a{day}")]


def _resumed(home: Path, *, subagent: bool) -> Path:
    first = _own(A, 1, 100)
    main = claude_session_file(home, A, first)
    if subagent:  # (it keeps A a session on disk once A's main transcript is gone)
        claude_subagent_file(home, A, "sub1", [
            claude_user(A, "2026-05-01T10:00:01.000Z", "sub task", sidechain=True),
            claude_assistant(A, "2026-05-01T10:00:02.000Z", msg_id="s1", request_id="sr1", usage=claude_usage(50, 5),
                             sidechain=True)])
    claude_session_file(home, B, [*first, *_own(B, 2, 200)])
    return main


def _sums(index: Path) -> tuple[int, int]:
    with sqlite3.connect(index) as db:
        every = db.execute("SELECT sum(tokens_total) FROM token_days").fetchone()[0]
        on_disk = db.execute("SELECT sum(d.tokens_total) FROM token_days d JOIN sessions s ON s.id = d.session_id"
                             " WHERE s.gone_at IS NULL").fetchone()[0]
    db.close()
    return every, on_disk


def _total() -> int:
    return orjson.loads(invoke("tokens", "--json").stdout)["total"]["total"]


def test_a_session_copied_by_a_resumed_one_keeps_none_of_its_own_calls_as_gone(isolated_home: Path,
                                                                              tmp_path: Path) -> None:
    index = tmp_path / "idx.sqlite"
    main = _resumed(isolated_home, subagent=True)
    assert invoke("--strict", "export", "-o", str(index)).exit_code == 0
    assert _sums(index) == (_total(), _total()) == (375, 375)
    main.unlink()  # (Claude Code's cleanup: the oldest transcript first, its subagent's left)
    result = invoke("--strict", "export", "-o", str(index))
    assert result.exit_code == 0, result.output  # (the calls moved to B: no loss to warn of)
    assert _sums(index) == (_total(), _total()) == (375, 375)


def test_a_restored_session_takes_its_calls_back_without_a_warning(isolated_home: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx.sqlite"
    main = _resumed(isolated_home, subagent=False)
    saved = main.read_bytes()
    assert invoke("--strict", "export", "-o", str(index)).exit_code == 0
    main.unlink()
    assert invoke("--strict", "export", "-o", str(index)).exit_code == 0
    main.write_bytes(saved)  # (a backup restored)
    result = invoke("--strict", "export", "-o", str(index))
    assert result.exit_code == 0, result.output
    assert _sums(index)[1] == _total() == 320
