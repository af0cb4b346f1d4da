"""Pass 50: an hourly export into an SQLite index, as a team lead's cron job runs it.

* A mass deletion (a cleanup of many transcripts cut short) said a warning per session whose
  ``token_days`` lost spend: the largest are named, the rest summed in one warning, and
  ``--json`` sums them all in ``shrank``.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import (
    claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke,
)


def _session(home: Path, number: int, sub_calls: int) -> str:
    """A Claude session of one own call and ``sub_calls`` calls of a subagent (55 tokens each)."""
    native = f"11111111-0000-4000-8000-{number:012d}"
    claude_session_file(home, native, [
        claude_user(native, "2026-11-01T10:00:00.000Z", f"main task {number}"),
        claude_assistant(native, "2026-11-01T10:01:00.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                         usage=claude_usage(1000, 100)),
    ])
    claude_subagent_file(home, native, "sub1", [
        claude_user(native, "2026-11-01T10:00:30.000Z", "sub task", sidechain=True),
        *(claude_assistant(native, f"2026-11-01T10:00:{10 + k}.000Z", msg_id=f"s{number}-{k}",
                           request_id=f"sr{number}-{k}", usage=claude_usage(50, 5), sidechain=True)
          for k in range(sub_calls)),
    ])
    return f"claude:{native}"


def _export(out: Path, *extra: str) -> dict:
    result = invoke("export", "-o", str(out), "--json", *extra)
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_a_mass_loss_names_the_largest_and_sums_the_rest(isolated_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "idx.sqlite"
    for number in range(8):
        _session(isolated_home, number, 10)
    _export(out)
    ids = [_session(isolated_home, number, 9 - number) for number in range(8)]  # session n loses n + 1 calls
    doc = _export(out)
    messages = [warning["message"] for warning in doc["warnings"]]
    assert len(messages) == 6
    # The five largest losses, largest first, each named.
    assert [message.split(": its token_days lost ")[0] for message in messages[:5]] == ids[7:2:-1]
    assert messages[0].startswith(f"{ids[7]}: its token_days lost 440 tokens")
    assert messages[5].startswith("… and 3 more sessions whose token_days lost 330 tokens, $")  # (1 + 2 + 3) × 55
    assert doc["shrank"]["sessions"] == 8 and doc["shrank"]["tokens"] == 36 * 55
    assert doc["shrank"]["cost_usd"] > 0
    # The sessions the warnings name, for a dashboard that reads no words.
    assert [(lost["id"], lost["tokens"]) for lost in doc["shrank"]["largest"]] == [
        (ids[n], (n + 1) * 55) for n in range(7, 2, -1)]


def test_no_loss_is_said_as_none(isolated_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "idx.sqlite"
    _session(isolated_home, 1, 2)
    _export(out)
    assert _export(out)["shrank"] == {"sessions": 0, "tokens": 0, "cost_usd": 0.0, "largest": []}


def test_the_history_questions_are_asked_of_the_sessions_provider() -> None:
    """One object carries the two questions (``export.history``), asked of the session's provider by
    its native id; a provider this agentscan has not shares nothing."""
    from agentscan.export.history import NO_HISTORY, ProviderHistory

    asked: list[tuple[str, str, str | None]] = []

    class Resumed:
        name = "claude"

        def copied_elsewhere(self, native: str, path: str | None, ctx: object) -> bool:
            asked.append(("copied_elsewhere", native, path))
            return native == "a"

        def copies_another(self, native: str, path: str | None, ctx: object) -> bool:
            asked.append(("copies_another", native, path))
            return native == "b"

    history = ProviderHistory((Resumed(),), object())  # type: ignore[arg-type]
    assert history.copied_elsewhere("claude:a", "/x") and not history.copied_elsewhere("claude:b", None)
    assert history.copies_another("claude:b", None) and not history.copies_another("claude:a", "/x")
    assert asked[0] == ("copied_elsewhere", "a", "/x")
    assert not history.copied_elsewhere("nosuchagent:a", None) and not history.copies_another("nosuchagent:a", None)
    assert not NO_HISTORY.copied_elsewhere("claude:a", None) and not NO_HISTORY.copies_another("claude:a", None)


def test_a_reader_that_keeps_a_query_open_is_named_not_a_writer(isolated_home: Path, tmp_path: Path) -> None:
    """A dashboard that leaves a read transaction open keeps a rollback journal's commit waiting;
    past the timeout the run failed saying "another program held it for writing", sending the
    user after a writer that did not exist."""
    import sqlite3
    import threading
    import time

    _session(isolated_home, 1, 1)
    out = tmp_path / "idx.sqlite"
    _export(out)
    _session(isolated_home, 2, 1)  # something to write
    held, done = threading.Event(), threading.Event()

    def read() -> None:
        conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM sessions").fetchone()
        held.set()
        done.wait(20)
        conn.execute("COMMIT")
        conn.close()

    reader = threading.Thread(target=read)
    reader.start()
    held.wait(10)
    started = time.monotonic()
    result = invoke("export", "-o", str(out), "--lock-timeout", "0.3")
    done.set()
    reader.join()
    assert result.exit_code == 1 and time.monotonic() - started < 15
    said = " ".join(result.stderr.split())
    assert "database is locked; a reader kept a query open on it longer than 0.3 s" in said, said
    assert "nothing was changed" in said and "held it for writing" not in said
    with sqlite3.connect(out) as conn:  # rolled back: the index as it was
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
    assert not Path(f"{out}-journal").exists()
