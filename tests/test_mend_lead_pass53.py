"""Pass 53 (mendLead): a Cursor session read without its locked state DB, in a window.

Its transcript alone has no start time, and Cursor touches it after the window is over: the
window then took its file's time for its start and left it out, unread note and all, so a
``tokens --since … --until …`` made no mention of the Cursor usage it could not count.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import refund_chat

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

S = "11111111-aaaa-4bbb-8ccc-000000000053"
T0 = 1_780_000_000_000  # 2026-05-28T20:26:40Z


def _home(home: Path) -> Path:
    later = datetime(2026, 6, 10, 9, tzinfo=timezone.utc).timestamp()  # Cursor touched it after May
    return refund_chat(home, S, T0, mtime=later)[0]


def test_a_window_names_the_session_it_could_not_read(isolated_home: Path) -> None:
    db = _home(isolated_home)
    with LiveWriter("exclusive", db):
        table = invoke("tokens", "--since", "2026-05", "--until", "2026-05", "--by", "provider")
        report = invoke("tokens", "--since", "2026-05", "--until", "2026-05", "--by", "provider", "--json")
        after = invoke("tokens", "--since", "2026-06-11", "--by", "provider", "--json")
    assert table.exit_code == 0, table.stderr
    said = " ".join((table.stdout + table.stderr).split())
    assert f"(+ 1 session that could not be read, not counted: cursor:{S}" in said, said
    assert "made no call" not in said  # not known of a session not read: its own line says why
    assert [entry["id"] for entry in orjson.loads(report.stdout)["unreadable"]] == [f"cursor:{S}"]
    # last touched before the window: not active in it, whenever it started
    assert orjson.loads(after.stdout)["unreadable"] == []


def test_an_empty_window_blames_only_the_sessions_it_read() -> None:
    from agentscan.cli.tokens_empty import explain_empty

    since, until = datetime(2026, 5, 1, tzinfo=timezone.utc), datetime(2026, 6, 1, tzinfo=timezone.utc)
    said = explain_empty(4, asked_for=False, providers=(), since=since, until=until, zone=timezone.utc, unread=3)
    assert said is not None and said.endswith(": the 1 session read of 4 made no call in that range"), said
    said = explain_empty(4, asked_for=False, providers=(), since=since, until=until, zone=timezone.utc, unread=1)
    assert said is not None and said.endswith(": none of the 3 sessions read of 4 made a call in that range"), said


def test_doctor_does_not_say_tokens_shows_nothing_of_an_unchanged_locked_db(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("tokens").exit_code == 0  # read whole once: its figures kept
    with LiveWriter("exclusive", db):
        table = invoke("tokens", "--json")
        doctor = invoke("doctor")
    # the DB as last read (not written since): its figures are the session's still
    assert orjson.loads(table.stdout)["total"]["total"] == 54_130
    said = " ".join((doctor.stdout + doctor.stderr).split())
    assert "the tokens it holds not known but for sessions unchanged since its last read" in said, said

