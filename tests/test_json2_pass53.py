"""Pass 53 (json2), a cron user's index and a script's ``--json`` times.

1. A Cursor ``state.vscdb`` found corrupt (a bad copy, a disk error) made an SQLite export
   write every Cursor row it had as ``tokens_total NULL`` and delete its ``token_days``, with a
   warning that blamed a deleted transcript: the index lost the spend it keeps history of.  Its
   rows are left as they were, as while the DB is locked, and a warning names the DB and why.
2. ``tokens --json``'s ``window`` times were ``isoformat``'s (``…T04:00:00Z``, ``…47.216222Z``),
   not the millisecond form of every other time in the JSON (``…T04:00:00.000Z``).
3. ``window.tz`` and ``export --json``'s ``days_tz`` were ``null`` for the local zone: its IANA
   name now, when it can be known for sure (``localzone.iana_name``).
4. ``--since 0001-01-01T00:00+05:00`` (in UTC, the year 0) was refused as "cannot read the time".
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import bubble, composer_data, make_state_db, state_db_path, user, write_transcript

S = "bbbbbbbb-1111-4222-8333-444444444453"
NEW = "cccccccc-1111-4222-8333-444444444453"


def _cursor_home(home: Path) -> Path:
    write_transcript(home, "p", S, [user("hello")])
    return make_state_db(state_db_path(home), composers=[composer_data(S, name="Refunds", bubbles=["b1"])],
                         bubbles={S: [bubble("b1", 2, "reply", tokens=(30, 4), created="2026-11-02T10:00:00.000Z")]})


def _index(path: Path) -> tuple[list[tuple], list[tuple]]:
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT id, tokens_total, title FROM sessions ORDER BY id").fetchall()
        days = conn.execute("SELECT session_id, tokens_total FROM token_days").fetchall()
    return rows, days


@pytest.mark.usefixtures("only_cursor")
def test_a_corrupt_state_db_leaves_the_index_rows_as_they_were(isolated_home: Path, tmp_path: Path) -> None:
    db = _cursor_home(isolated_home)
    out = tmp_path / "index.sqlite"
    assert invoke("export", "--format", "sqlite", "-o", str(out)).exit_code == 0
    before = _index(out)
    assert before == ([(f"cursor:{S}", 34, "Refunds")], [(f"cursor:{S}", 34)])
    good = db.read_bytes()
    db.write_bytes(b"not a database at all" * 10)
    write_transcript(isolated_home, "p", NEW, [user("a chat begun since")])  # none in the index yet: written
    broken = invoke("export", "--format", "sqlite", "-o", str(out))
    strict = invoke("--strict", "export", "--format", "sqlite", "-o", str(out))
    assert broken.exit_code == 0, broken.stderr
    rows, days = _index(out)
    assert rows == [(f"cursor:{S}", 34, "Refunds"), (f"cursor:{NEW}", None, "a chat begun since")]
    assert days == before[1]  # not deleted
    said = " ".join(broken.stderr.split())
    assert (f"1 Cursor session left as it was in the index (its row and token_days): its usage is kept in {db}, "
            "which could not be read this run (Cursor state DB not used (not a SQLite database))") in said, said
    assert "lost" not in said and "no sessions found" not in broken.stdout, (said, broken.stdout)
    assert strict.exit_code == 1
    db.write_bytes(good)  # read again: written whole
    assert invoke("export", "--format", "sqlite", "-o", str(out)).exit_code == 0
    assert _index(out)[0][0] == (f"cursor:{S}", 34, "Refunds")


# --- 2. tokens --json's window times are written as every other time in the JSON ------------

MILLIS = re.compile(r"^\d{4,5}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.mark.parametrize("args", [("--since", "3d"), ("--since", "2026-11", "--until", "2026-11", "--tz", "Asia/Tokyo"),
                                  ("--since", "0001-01-01", "--until", "9999-12-31", "--tz", "utc"),
                                  ("--since", "2026-11-01T10:00:00.123456Z")])
def test_window_times_are_to_the_millisecond(isolated_home: Path, args: tuple[str, ...]) -> None:
    result = invoke("tokens", *args, "--json")
    assert result.exit_code == 0, result.stderr
    window = orjson.loads(result.stdout)["window"]
    for bound in (window["since"], window["until"]):
        assert bound is None or MILLIS.match(bound), window
    if args[1] == "2026-11-01T10:00:00.123456Z":  # cut as ``timeutil.to_iso`` cuts a row's time
        assert window["since"] == "2026-11-01T10:00:00.123Z"


def test_a_far_bound_is_to_the_millisecond_however_its_float_falls() -> None:
    from agentscan.farbounds import _iso

    assert _iso(-62135596800.0) == "0001-01-01T00:00:00.000Z"
    assert _iso(-62135596800.5) == "0000-12-31T23:59:59.500Z"
    assert _iso(253402300800.0) == "10000-01-01T00:00:00.000Z"
    assert _iso(0.001) == "1970-01-01T00:00:00.001Z"  # (0.001 * 1000 is 0.99999… as a float)


# --- 3. the local zone named, when it can be known for sure ----------------------------------


@pytest.mark.parametrize(("tz", "name"), [("Europe/Berlin", "Europe/Berlin"), (":America/New_York", "America/New_York"),
                                          ("/usr/share/zoneinfo/posix/Asia/Tokyo", "Asia/Tokyo"),
                                          ("JST-9", None),  # a POSIX rule: no IANA name
                                          ("/usr/share/zoneinfo/right/Europe/Paris", None),  # leap seconds counted
                                          ("Europe/Berln", None)])  # names no zone: UTC, said in a note
def test_window_and_days_tz_name_the_local_zone(isolated_home: Path, tmp_path: Path, local_zone, tz: str,  # noqa: ANN001
                                               name: str | None) -> None:
    if tz.startswith("/") and not Path(tz).exists():
        pytest.skip("no zone files there")
    local_zone(tz)
    assert orjson.loads(invoke("tokens", "--by", "day", "--json").stdout)["window"]["tz"] == name
    assert orjson.loads(invoke("tokens", "--since", "2026-11-01", "--tz", "local", "--json").stdout)["window"]["tz"] == name
    exported = invoke("--demo", "export", "-f", "csv", "--days", "--tz", "local", "-o", str(tmp_path / "d.csv"), "--json")
    assert orjson.loads(exported.stdout)["days_tz"] == name


def test_such_times_still_order_as_asked(isolated_home: Path) -> None:
    empty = invoke("list", "--since", "0001-01-01T00:00+04:00", "--until", "0001-01-01T00:00+05:00")
    assert empty.exit_code == 2 and "the range is empty" in empty.stderr, empty.stderr
    assert invoke("list", "--since", "0001-01-01T00:00+05:00", "--until", "0001-01-01T00:00+04:00").exit_code == 0
    said = " ".join(invoke("list", "--until", "0001-01-01T00:00+05:00").output.split())
    assert "before 0000-12-31 19:00" in said or "no sessions found" in said, said


def test_one_session_not_found_is_said_in_the_singular(isolated_home: Path, tmp_path: Path) -> None:
    """A chat kept only in the state DB, not found while the DB is corrupt: "1 … was not
    found …: left as it was" ("left as they were" read as more than one)."""
    write_transcript(isolated_home, "p", S, [user("hello")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(S, name="Refunds", bubbles=["b1"]), composer_data(NEW, name="IDE only", bubbles=["b2"])],
        bubbles={S: [bubble("b1", 2, "reply", tokens=(30, 4))], NEW: [bubble("b2", 2, "reply", tokens=(5, 1))]})
    out = tmp_path / "index.sqlite"
    assert invoke("export", "--format", "sqlite", "-o", str(out), "-p", "cursor").exit_code == 0
    assert len(_index(out)[0]) == 2
    db.write_bytes(b"not a database at all" * 10)
    said = " ".join(invoke("export", "--format", "sqlite", "-o", str(out), "-p", "cursor").stderr.split())
    assert ("1 Cursor session in the index was not found, and Cursor's discovery could not read everything this run "
            "(see its warnings): left as it was, not marked gone") in said, said
