"""A Cursor chat's ``updated_at`` follows the Agent CLI's ``meta.json`` ``updatedAtMs``.

The CLI moves ``updatedAtMs`` on when a chat is used again; the row, the
``list`` order (its recency bound, cold and warm) and ``--since`` follow it.
A file's mtime stands in only when nothing recorded a time (docs/cli.md,
"UPDATED": a copied home has every mtime at the copy time).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.scan.scanner import Scanner
from builders import cli_json, forget_remembered_answers
from cursor_builders import (
    add_store_messages,
    assistant,
    tool,
    user,
    write_chat_store,
    write_transcript,
)

UTC = timezone.utc
CHAT = "a2900000-0000-4000-8000-000000000001"
OTHER = "b2900000-0000-4000-8000-000000000002"
STORE = "c2900000-0000-4000-8000-000000000003"
CWD = "/home/me/proj"
CREATED = datetime(2026, 7, 11, 2, 43, 52, tzinfo=UTC)
UPDATED = datetime(2026, 7, 14, 2, 43, 52, tzinfo=UTC)  # three days on
OTHER_MTIME = datetime(2026, 7, 12, 9, 0, tzinfo=UTC)


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _home(home: Path) -> None:
    """CHAT: created 07-11, used again 07-14 (meta.json says so and was written
    then); its transcript was last written at creation.  OTHER: no recorded time,
    a transcript written 07-12 (between the two)."""
    write_transcript(home, "home-me-proj", CHAT, [
        user("read foo.txt"), assistant("Reading it.", tool("Read", path=f"{CWD}/foo.txt")),
    ], mtime=CREATED.timestamp())
    directory = write_chat_store(home, CWD, CHAT, meta={
        "schemaVersion": 1, "createdAtMs": _ms(CREATED), "hasConversation": True,
        "updatedAtMs": _ms(UPDATED), "cwd": CWD,
    })
    os.utime(directory / "meta.json", (UPDATED.timestamp(), UPDATED.timestamp()))
    write_transcript(home, "empty-window", OTHER, [user("what is 2+2?", wrap=False)],
                     mtime=OTHER_MTIME.timestamp())


def _ids(doc: dict) -> list[str]:
    return [row["native_id"] for row in doc["sessions"]]


def test_meta_json_updated_at_ms_is_the_rows_updated_at(isolated_home: Path) -> None:
    _home(isolated_home)
    rows = {row.native_id: row for row in Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()}
    assert rows[CHAT].started_at == CREATED
    assert rows[CHAT].updated_at == UPDATED  # not the creation time
    assert rows[OTHER].updated_at == OTHER_MTIME  # nothing recorded: the mtime


@pytest.mark.parametrize("extra", [(), ("--no-cache",)])
def test_list_order_and_since_follow_updated_at_ms_cold_and_warm(isolated_home: Path, extra: tuple[str, ...]) -> None:
    _home(isolated_home)
    for run in range(3):
        if run == 2 and not extra:
            forget_remembered_answers()  # made again from the index, not printed again
        doc = cli_json(*extra, "list")
        assert _ids(doc) == [CHAT, OTHER], run
        assert doc["sessions"][0]["updated_at"] == "2026-07-14T02:43:52.000Z"
        # Only one shown: the transcript's old mtime must not stop the read before it.
        assert _ids(cli_json(*extra, "list", "--limit", "1")) == [CHAT], run
        assert _ids(cli_json(*extra, "list", "--since", "2026-07-13")) == [CHAT], run
        assert _ids(cli_json(*extra, "list", "--since", "2026-07-12")) == [CHAT, OTHER], run


def test_a_store_only_chat_keeps_its_recorded_time_over_the_store_mtime(isolated_home: Path) -> None:
    """A chat known only by its store.db (no transcript): the store's mtime (here the
    copy's: now) is no update time when meta.json recorded one."""
    directory = write_chat_store(isolated_home, CWD, STORE, meta={
        "schemaVersion": 1, "createdAtMs": _ms(CREATED), "hasConversation": True,
        "updatedAtMs": _ms(UPDATED), "cwd": CWD,
    }, store={"agentId": STORE, "name": "Store chat", "createdAt": _ms(CREATED)})
    add_store_messages(directory, [
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nhello\n</user_query>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    ])
    (row,) = Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()
    assert row.native_id == STORE
    assert (row.started_at, row.updated_at) == (CREATED, UPDATED)
