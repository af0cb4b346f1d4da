"""A long-lived ``Scanner`` reads an Agent CLI store again once its lock is gone (pass 54).

A store found locked was remembered as unread in ``ctx.memo`` for the scanner's whole life, so
a library scanner (a dashboard's, a notebook's) never read that chat's messages again.  It is
remembered now with its files' stamp, and for ``RETRY_AFTER_S`` at most: still waited out once
a question, read again when the store changed or the time went by."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan import Scanner
from agentscan.providers.cursor import storechat
from bad_corpus import LiveWriter
from cursor_builders import add_store_messages, cli_chat_of_two_messages

C = "a5400000-0000-4000-8000-0000000000d6"

pytestmark = pytest.mark.usefixtures("short_sqlite_wait")


def _chat(home: Path) -> Path:
    directory = cli_chat_of_two_messages(home, C)
    return directory


def test_a_store_written_after_its_lock_is_read_again(isolated_home: Path) -> None:
    directory = _chat(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    with LiveWriter("exclusive", directory / "store.db"):
        (row,) = scanner.list_sessions()
        assert row.counts_partial
    add_store_messages(directory, [
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nmore\n</user_query>"}]}])
    (row,) = scanner.list_sessions()
    assert not row.counts_partial and row.counts.prompts == 2
    assert scanner.show(C).row.counts.prompts == 2


def test_a_lock_let_go_with_no_write_is_tried_again_after_a_while(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _chat(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    with LiveWriter("exclusive", directory / "store.db"):
        (row,) = scanner.list_sessions()
        assert row.counts_partial
    monkeypatch.setattr(storechat, "RETRY_AFTER_S", 0.0)
    (row,) = scanner.list_sessions()
    assert not row.counts_partial and row.counts.prompts == 1
