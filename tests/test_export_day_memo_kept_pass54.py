"""Pass 54 (mend): the days an export keeps (``export.daymemo``) are kept through what the
first cut lost them to.  A session of a model with no price (its no-price warning names the
model, no file) kept nothing of its batch of 1,000, on every run; an ``export --since`` that
chose only changed sessions wrote the kept days back with theirs alone; an export of another
home (``--home``) sharing the index dropped this home's.  Counted by the sessions whose calls
are read (``collect.usage_by_session``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import collect
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
UNPRICED = "aide-gpt-5"  # a name of one's own: in no price list


def _native(number: int) -> str:
    return f"{number:08x}-5454-4000-8000-00000000000b"


def _id(number: int) -> str:
    return f"claude:{_native(number)}"


def _session(home: Path, number: int, calls: int = 3, model: str = "claude-opus-4-1-20250805", day: int = 2) -> None:
    native = _native(number)
    records = [claude_user(native, f"2026-11-0{day}T09:00:00.000Z", "a task")]
    records += [claude_assistant(native, f"2026-11-0{day}T09:0{call}:01.000Z", msg_id=f"m{native}{call}",
                                 request_id=f"r{native}{call}", usage=claude_usage(100 + call, 10), model=model)
                for call in range(calls)]
    claude_session_file(home, native, records)


def _export(out: Path, *extra: str) -> str:
    result = runner.invoke(app, ["export", *extra, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


def _reads(monkeypatch) -> list[list[str]]:
    return record_calls(monkeypatch, collect, "usage_by_session", lambda scanner, refs, **_: [ref.id for ref in refs])


def _read(reads: list[list[str]]) -> list[str]:
    return sorted(session_id for batch in reads for session_id in batch)


def _days(out: Path) -> list:
    with sqlite3.connect(out) as conn:
        rows = sorted(conn.execute("SELECT * FROM token_days").fetchall())
    conn.close()
    return rows


def _no_price(output: str) -> list[str]:
    return [line for line in output.splitlines() if "no price" in line]


def test_an_unpriced_session_alone_is_read_again(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    """Its batch's other sessions are kept; it is read, and its warning said, on every run,
    as an export that keeps nothing says it."""
    for number in range(3):
        _session(isolated_home, number)
    _session(isolated_home, 3, model=UNPRICED)
    out, fresh = tmp_path / "index.sqlite", tmp_path / "fresh.sqlite"
    first = _no_price(_export(out))
    assert len(first) == 1 and UNPRICED in first[0]
    reads = _reads(monkeypatch)
    warm = _no_price(_export(out))
    assert _read(reads) == [_id(3)]
    assert warm == first == _no_price(_export(fresh, "--no-cache"))
    assert _days(out) == _days(fresh)


def test_an_export_since_keeps_the_other_sessions_days(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    for number in range(3):
        _session(isolated_home, number)
    out = tmp_path / "index.sqlite"
    _export(out)
    _session(isolated_home, 1, calls=4, day=5)  # grown, and the only one since the 4th
    reads = _reads(monkeypatch)
    _export(tmp_path / "since.sqlite", "--since", "2026-11-04")
    assert _read(reads) == [_id(1)]
    reads.clear()
    _export(out)
    assert _read(reads) == []  # were all three read again
    fresh = tmp_path / "fresh.sqlite"
    _export(fresh, "--no-cache")
    assert _days(out) == _days(fresh)


def _kept_ids(tmp_path: Path) -> set[str]:
    index = next((tmp_path / "agentscan-cache").glob("*.sqlite"))
    with sqlite3.connect(index) as conn:
        ((value,),) = conn.execute("SELECT value FROM snapshots WHERE key = 'exportdays:claude'").fetchall()
    conn.close()
    return set(orjson.loads(value[4:]))


def test_another_homes_export_keeps_this_homes_days(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    """Kept while the index holds their sessions; a session gone from its home goes."""
    for number in range(3):
        _session(isolated_home, number)
    other = tmp_path / "other"
    _session(other, 7)
    out = tmp_path / "index.sqlite"
    _export(out)
    _export(tmp_path / "other.sqlite", "--home", str(other))
    reads = _reads(monkeypatch)
    _export(out)
    assert _read(reads) == []
    assert _kept_ids(tmp_path) == {_id(0), _id(1), _id(2), _id(7)}
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{_native(2)}.jsonl").unlink()
    _export(out)
    assert _kept_ids(tmp_path) == {_id(0), _id(1), _id(7)}


def test_a_session_with_a_day_of_no_price_says_it_every_run(isolated_home: Path, tmp_path: Path) -> None:
    """A call of no tokens of a model with no price costs the session nothing, but its day
    alone has no price, and the pricing says so: that session is read again, to say it again."""
    for number in range(2):
        _session(isolated_home, number)
    native = _native(2)
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "a task"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
        claude_assistant(native, "2026-11-03T09:00:01.000Z", msg_id="m2", request_id="r2", usage=claude_usage(0, 0),
                         model=UNPRICED),
    ])
    out, fresh = tmp_path / "index.sqlite", tmp_path / "fresh.sqlite"
    said = [_no_price(_export(out)) for _ in range(2)]
    assert len(said[0]) == 1 and said == [said[0]] * 2 == [_no_price(_export(fresh, "--no-cache"))] * 2
    assert _days(out) == _days(fresh)
