"""Pass 53, a script writer over ``--json`` and ``export``.

1. ``tokens --json`` left out the sessions it could not read (a Cursor state DB corrupt or
   locked, a transcript it may not open) without a word a script could read (the table names
   them): ``unreadable`` lists them, each with the file and why.
2. ``list --json`` gave ``"tokens": null`` alike to a session that recorded no usage and to one
   whose usage could not be read this run: ``tokens_unknown``, as ``show --json`` has it.
3. ``--since 0001-01-01`` was said as ``1970-01-02`` in ``window``, and ``--since 0001-01-01
   --until 0001-02-01`` refused as an empty range: both times were clamped to one instant.
4. ``export --lock-timeout 0`` flashed "waiting … (up to 0 s)" before its error.
5. ``SIGHUP`` (a closed terminal) during an export killed it at once, its temp file left.
6. ``export --json`` of day records said nothing of the zone of their ``day``: ``days_tz``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builders import (claude_one_call, claude_sessions, deny_access, invoke)
from cursor_builders import state_db_path, user, write_transcript

CURSOR = "aaaaaaaa-1111-4222-8333-444444444444"
READ = "1aaa0000-0000-4000-8000-000000000001"
DENIED = "06090cb1-0000-4000-8000-000000000002"


@pytest.fixture
def broken_cursor_db(isolated_home: Path) -> Path:
    """A Claude session that reads, and a Cursor chat whose state DB (its usage) is corrupt."""
    claude_one_call(isolated_home, READ)
    write_transcript(isolated_home, "p", CURSOR, [user("still here")])
    db = state_db_path(isolated_home)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database at all")
    return db


def _json(*args: str) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


# --- 1. tokens --json names what it could not read ------------------------------------------


@pytest.mark.parametrize("by", ["session", "day", "model"])
def test_tokens_json_lists_a_chat_whose_usage_db_cannot_be_read(broken_cursor_db: Path, by: str) -> None:
    for _ in ("cold", "warm"):
        document = _json("tokens", "--by", by)
        assert document["unreadable"] == [{"id": f"cursor:{CURSOR}", "path": str(broken_cursor_db),
                                           "reason": "Cursor state DB not used (not a SQLite database)"}]
        assert document["total"]["total"] == 110
        assert list(document).index("unreadable") == list(document).index("unpriced_models") + 1


def test_tokens_json_lists_a_transcript_it_may_not_open(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_one_call(isolated_home, READ)
    path = claude_one_call(isolated_home, DENIED)
    deny_access(monkeypatch, path)
    document = _json("tokens")
    assert document["unreadable"] == [{"id": f"claude:{DENIED}", "path": str(path), "reason": "Permission denied"}]


def test_tokens_json_of_what_reads_has_an_empty_list(isolated_home: Path) -> None:
    claude_one_call(isolated_home, READ)
    for _ in ("cold", "warm", "patched"):
        assert _json("tokens")["unreadable"] == []


# --- 2. list --json: not known is not "recorded none" ---------------------------------------


def test_list_json_marks_tokens_not_known_as_show_does(broken_cursor_db: Path) -> None:
    for _ in ("cold", "warm"):
        rows = {row["id"]: row for row in _json("list")["sessions"]}
        assert rows[f"cursor:{CURSOR}"]["tokens"] is None and rows[f"cursor:{CURSOR}"]["tokens_unknown"] is True
        assert "tokens_unknown" not in rows[f"claude:{READ}"]
    assert _json("show", CURSOR[:8])["session"]["tokens_unknown"] is True


def test_list_json_of_a_chat_that_recorded_no_usage_has_no_mark(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", CURSOR, [user("no db at all")])  # (no state DB: none recorded)
    (row,) = _json("list")["sessions"]
    assert row["tokens"] is None and "tokens_unknown" not in row


# --- 3. a window before 1970 ----------------------------------------------------------------


def test_a_since_before_1970_is_said_as_asked(isolated_home: Path) -> None:
    claude_one_call(isolated_home, READ)
    document = _json("tokens", "--since", "0001-01-01", "--tz", "UTC")
    assert document["window"] == {"since": "0001-01-01T00:00:00.000Z", "until": None, "tz": "UTC"}
    assert document["total"]["total"] == 110
    late = _json("tokens", "--until", "9999-12-31", "--tz", "UTC")
    assert late["window"]["until"] == "10000-01-01T00:00:00.000Z" and late["total"]["total"] == 110


def test_a_range_before_1970_holds_nothing_rather_than_being_empty(isolated_home: Path) -> None:
    claude_one_call(isolated_home, READ)
    document = _json("tokens", "--since", "0001-01-01", "--until", "0001-02-01", "--tz", "UTC")
    assert document["window"] == {"since": "0001-01-01T00:00:00.000Z", "until": "0001-02-02T00:00:00.000Z", "tz": "UTC"}
    assert document["rows"] == [] and document["total"]["total"] == 0
    said = invoke("tokens", "--since", "0001-01-01", "--until", "0001-02-01", "--tz", "UTC")
    assert said.exit_code == 0 and "between 0001-01-01 00:00 and 0001-02-02 00:00" in said.output, said.output
    listed = invoke("list", "--since", "0001-01-01", "--until", "0001-02-01")
    assert listed.exit_code == 0, listed.output
    # A range that does end before it starts is still refused, before 1970 too.
    backwards = invoke("tokens", "--since", "0001-02-01", "--until", "0001-01-01")
    assert backwards.exit_code == 2 and "the range is empty" in backwards.stderr


# --- 4. --lock-timeout 0 ---------------------------------------------------------------------


def test_lock_timeout_0_says_no_wait(isolated_home: Path, tmp_path: Path) -> None:
    from filelock import FileLock

    from agentscan.errors import ExportFailed
    from agentscan.export.locks import lock_path, output_lock

    out = tmp_path / "s.csv"
    lock = lock_path(out, os.environ)
    lock.parent.mkdir(parents=True, exist_ok=True)
    said: list[str] = []
    with FileLock(str(lock)), pytest.raises(ExportFailed) as failed:
        with output_lock(out, os.environ, 0, waiting=said.append):
            pass
    assert said == []
    assert "did not wait (--lock-timeout 0" in str(failed.value) and "after 0 s" not in str(failed.value)


# --- 5. SIGHUP unwinds an export as SIGTERM does ---------------------------------------------

#: a run whose last check before the rename gets SIGHUP (its terminal closed), in a process of
#: its own: without the handler, the signal ends the process at once
_HUNG_UP_RUN = """
import os, signal, sys, time
from pathlib import Path
from agentscan.export.run import run_export
from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner

def hung_up():
    os.kill(os.getpid(), signal.SIGHUP)  # (the handler runs at the next instruction)
    time.sleep(5)

with Scanner(use_cache=False) as scanner:
    try:
        run_export(scanner, sys.argv[1], Path(sys.argv[2]), filters=ListFilter(), before_rename=hung_up)
    except BaseException as exc:
        print("caught", type(exc).__name__)
    print("went on")
"""


@pytest.mark.skipif(os.name == "nt" or not hasattr(signal, "SIGHUP"), reason="SIGHUP is POSIX's")
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_sighup_while_writing_leaves_no_temp_file_nor_lock(isolated_home: Path, tmp_path: Path, fmt: str) -> None:
    claude_sessions(isolated_home, 2)
    out = tmp_path / f"idx.{fmt}"
    done = subprocess.run([sys.executable, "-c", _HUNG_UP_RUN, fmt, str(out)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == -signal.SIGHUP, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert not out.exists() and [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []
    assert list((tmp_path / "agentscan-locks").iterdir()) == []


def test_an_ignored_sighup_is_left_ignored(isolated_home: Path, tmp_path: Path) -> None:
    """``nohup agentscan export …`` ignores SIGHUP: the export must not take it back."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        from agentscan.export import locks

        with locks._terminated_cleanly():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


# --- 6. the zone of an export's days ---------------------------------------------------------


@pytest.mark.parametrize(("args", "zone"), [
    (("-f", "csv", "--days"), "UTC"),
    (("-f", "jsonl", "--days", "--tz", "Asia/Tokyo"), "Asia/Tokyo"),
    (("-f", "csv", "--days", "--tz", "local"), "Pacific/Auckland"),  # (json2: the local zone's name, known)
    (("-f", "sqlite"), "UTC"),
])
def test_export_json_says_the_zone_of_its_days(isolated_home: Path, tmp_path: Path, args: tuple, zone: str | None,
                                               local_zone) -> None:  # noqa: ANN001 - conftest's fixture
    local_zone("Pacific/Auckland")
    document = _json("--demo", "export", *args, "-o", str(tmp_path / "out"))
    assert document["days_tz"] == zone and document["usage_days"] > 0
    assert list(document).index("days_tz") == list(document).index("usage_days") + 1


def test_export_json_of_sessions_alone_has_no_days_zone(isolated_home: Path, tmp_path: Path) -> None:
    assert "days_tz" not in _json("--demo", "export", "-f", "csv", "-o", str(tmp_path / "out.csv"))


def test_a_time_before_1970_keeps_what_was_asked_through_a_pickle() -> None:
    """A helper process gets its window pickled: the clamp alone came back."""
    import pickle
    from datetime import timezone

    from agentscan.farbounds import instant_of
    from agentscan.whentext import parse_when

    asked = parse_when("0001-01-01", tz=timezone.utc)
    again = pickle.loads(pickle.dumps(asked))
    assert again == asked and getattr(again, "asked", None) == "0001-01-01T00:00:00.000Z"
    assert instant_of(again) == instant_of(asked) < 0


def test_an_export_s_json_lines_mark_tokens_not_known(broken_cursor_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    assert invoke("export", "-f", "jsonl", "-o", str(out)).exit_code == 0
    lines = {line["id"]: line for line in map(orjson.loads, out.read_bytes().splitlines())}
    assert lines[f"cursor:{CURSOR}"]["tokens"] is None and lines[f"cursor:{CURSOR}"]["tokens_unknown"] is True
    assert "tokens_unknown" not in lines[f"claude:{READ}"]
