"""An Agent CLI chat whose ``store.db`` cannot be read has its counts not known (pass 54).

While the Agent CLI writes its store (a lock) or when the store is damaged, the chat is still
listed (from its folder and ``meta.json``), but its messages are not read: ``show`` said
``counts 0 prompts, 0 responses, 0 tool calls``, a count nobody made, under the warning that
the store was not read.  Its row's counts are partial now (``counts_partial``), and the card
says ``not known (could not be read)``, as for a composer listed from a workspace DB."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.toolkit import sqlite_ro
from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import break_schema, cli_chat_of_two_messages

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

C = "a5400000-0000-4000-8000-0000000000d5"


def _chat(home: Path) -> Path:
    directory = cli_chat_of_two_messages(home, C)
    return directory / "store.db"


def _card_counts() -> str:
    card = invoke("show", C)
    assert card.exit_code == 0, card.stderr
    assert "Agent CLI store not read" in card.stderr
    return next(line for line in card.stdout.splitlines() if line.split()[:1] == ["counts"])


def test_a_locked_store_has_its_counts_not_known(isolated_home: Path) -> None:
    store = _chat(isolated_home)
    with LiveWriter("exclusive", store):
        assert _card_counts().split(None, 1)[1] == "not known (could not be read)"
        (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert row["counts_partial"] is True
    # Read again once the lock is gone: its counts, as before.
    (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert row["counts"]["prompts"] == 1 and row["counts_partial"] is False


def test_a_damaged_store_too(isolated_home: Path) -> None:
    break_schema(_chat(isolated_home))
    assert _card_counts().split(None, 1)[1] == "not known (could not be read)"


def test_a_locked_store_is_waited_for_once_a_scan(isolated_home: Path) -> None:
    # Its meta and its messages are read apart: each open waited out the busy timeout (three
    # chats of locked stores took 12 s to list, 2 s a store would do).
    store = _chat(isolated_home)
    opened = len(sqlite_ro.OPENED_URIS)
    with LiveWriter("exclusive", store):
        assert invoke("list").exit_code == 0
    tried = [uri for uri in sqlite_ro.OPENED_URIS[opened:] if "store.db" in uri]
    assert len(tried) == 1, tried

