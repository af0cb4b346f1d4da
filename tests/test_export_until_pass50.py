"""Pass 50: ``export`` and ``otlp`` took ``--since`` but no ``--until`` (``list`` and ``tokens``
take both).  Read as they read it: a date, week or month counts whole, a time is excluded, and
a window that holds nothing is a usage error.  ``export --until`` picks whole sessions, as its
``--since`` does (``list``'s rule: last updated before WHEN); ``otlp --until`` the turns that
ended before it, as its ``--since`` those that ended since it: windows laid end to end send
each turn once."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from otlp_builders import claude_delegating_session, otlp, read_otlp_file, ts

OLD = "22222222-0000-4000-8000-000000000001"
NEW = "22222222-0000-4000-8000-000000000002"


def _two_sessions(home: Path) -> None:
    for native, day in ((OLD, "2026-10-31"), (NEW, "2026-11-02")):
        claude_session_file(home, native, [
            claude_user(native, f"{day}T09:00:00.000Z", "task"),
            claude_assistant(native, f"{day}T09:01:00.000Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                             usage=claude_usage(100, 10)),
        ])


def _ids(out: Path) -> list[str]:
    return [orjson.loads(line)["id"] for line in out.read_bytes().splitlines()]


def test_export_until_keeps_the_sessions_last_updated_before_it(isolated_home: Path, tmp_path: Path) -> None:
    _two_sessions(isolated_home)
    out = tmp_path / "s.jsonl"
    result = invoke("export", "-o", str(out), "--until", "2026-11-01", "--tz", "utc", "--days")
    assert result.exit_code == 0, result.output
    assert {orjson.loads(line)["session_id"] for line in out.read_bytes().splitlines()} == {f"claude:{OLD}"}
    # A bare date counts whole: the 2nd's session is in when --until names the 2nd.
    assert invoke("export", "-o", str(out), "--until", "2026-11-02T00:00:00Z").exit_code == 0
    assert _ids(out) == [f"claude:{OLD}"]
    assert invoke("export", "-o", str(out), "--since", "2026-11-01T00:00:00Z",
                  "--until", "2026-11-03T00:00:00Z").exit_code == 0
    assert _ids(out) == [f"claude:{NEW}"]


def test_export_until_before_since_is_a_usage_error(isolated_home: Path, tmp_path: Path) -> None:
    result = invoke("export", "-o", str(tmp_path / "s.jsonl"), "--since", "2026-11-02", "--until", "2026-11-01")
    assert result.exit_code == 2
    assert "--since must be before --until" in result.stderr
    assert not (tmp_path / "s.jsonl").exists()


def test_an_sqlite_export_until_marks_nothing_gone(isolated_home: Path, tmp_path: Path) -> None:
    """A session left out by --until is present, not gone (as one --since leaves out)."""
    _two_sessions(isolated_home)
    out = tmp_path / "idx.sqlite"
    assert invoke("export", "-o", str(out)).exit_code == 0
    result = invoke("export", "-o", str(out), "--until", "2026-11-01T00:00:00Z", "--json")
    doc = orjson.loads(result.stdout)
    assert (doc["sessions"], doc["gone"]) == (1, 0)


def test_an_empty_export_says_the_window(isolated_home: Path, tmp_path: Path) -> None:
    _two_sessions(isolated_home)
    result = invoke("export", "-o", str(tmp_path / "s.csv"), "--until", "2026-10-01T00:00:00Z")
    assert result.exit_code == 0
    assert "no session updated before " in result.stdout


def test_otlp_until_keeps_the_turns_that_ended_before_it(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)  # two turns: the first ends at 20 s, the second after 30 s
    first, second, both = (tmp_path / name for name in ("first.jsonl", "second.jsonl", "both.jsonl"))
    assert otlp("-o", str(both)).exit_code == 0
    assert otlp("-o", str(first), "--until", ts(30)).exit_code == 0
    assert otlp("-o", str(second), "--since", ts(30), "--until", "2026-03-02").exit_code == 0
    # Windows laid end to end: each turn once.
    assert read_otlp_file(first) + read_otlp_file(second) == read_otlp_file(both)
    assert len(read_otlp_file(first)) == 1
    result = otlp("-o", str(first), "--since", ts(30), "--until", ts(30))
    assert result.exit_code == 2 and "--since must be before --until" in result.stderr


def test_otlp_until_before_a_session_began_does_not_read_it(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch) -> None:  # noqa: ANN001
    """A session that began at --until or after has no turn that ended before it: not read (an
    hourly window over a heavy home read every session to send none), and the run says why."""
    from agentscan.otlp import sources

    claude_delegating_session(isolated_home)  # begins 2026-03-01T10:00:00Z
    read: list[str] = []
    real = sources._transcript_session
    monkeypatch.setattr(sources, "_transcript_session", lambda scanner, ctx, ref, *rest: read.append(ref.id) or real(
        scanner, ctx, ref, *rest))
    result = otlp("-o", str(tmp_path / "t.jsonl"), "--until", "2026-03-01T09:59:00Z")
    assert result.exit_code == 0, result.output
    assert read == []
    assert "no spans: no session began before 2026-03-01" in " ".join(result.stderr.split())
