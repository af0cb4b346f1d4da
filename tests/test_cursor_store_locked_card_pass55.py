"""``show`` of an Agent CLI chat whose ``store.db`` is locked (the CLI writing it) says what is
true of it (pass 55).

Its card said ``tokens   not known (could not be read)``: the CLI records no tokens, in its store
or anywhere (formats.md 4.2), so nothing unread held any; its tokens are "not recorded", as
``list`` and ``tokens`` say.  And it said ``title   -`` and ``counts   not known`` while ``list``
beside it showed the chat's name and counts from the row the index keeps at its fingerprint
(the store's stat in it: read from the store as it is).  Codex's partial counts still leave its
tokens "not known" (``test_show_codex_partial_counts_wording``)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.cli.show_text import tokens_line
from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import cli_chat_of_two_messages

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

C = "a5500000-0000-4000-8000-0000000000c5"


def _card(result) -> dict[str, str]:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return {line.split(None, 1)[0]: line.split(None, 1)[1] for line in result.stdout.splitlines()[1:]
            if line.startswith("  ") and len(line.split(None, 1)) == 2}


def test_a_locked_cli_store_card_says_tokens_not_recorded(isolated_home: Path) -> None:
    store = cli_chat_of_two_messages(isolated_home, C) / "store.db"
    with LiveWriter("exclusive", store):
        card = _card(invoke("show", C))  # nothing kept: its counts not known, its tokens none
    assert card["tokens"] == "not recorded"
    assert card["counts"] == "not known (could not be read)"


def test_a_locked_cli_store_card_takes_the_kept_row(isolated_home: Path) -> None:
    store = cli_chat_of_two_messages(isolated_home, C) / "store.db"
    read = orjson.loads(invoke("show", "--json", C).stdout)["session"]
    (listed,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]  # its row kept
    with LiveWriter("exclusive", store):
        card = invoke("show", C)
        shown = orjson.loads(invoke("show", "--json", C).stdout)["session"]
        (locked,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert "Agent CLI store not read" in card.stderr
    lines = _card(card)
    assert lines["title"] == "cli chat" == listed["title"] == locked["title"]
    assert lines["counts"] == "1 prompt, 1 response, 0 tool calls" and lines["tokens"] == "not recorded"
    for key in ("title", "cwd", "started_at", "updated_at", "tokens", "counts", "counts_partial"):
        assert shown[key] == read[key] == locked[key], key
    assert "tokens_unknown" not in shown


def test_show_codex_partial_counts_wording() -> None:
    # (the card's rule for a row whose counts are partial, Codex's: its usage is not known)
    assert tokens_line(None, unread=True) == "not known (could not be read)"
    assert tokens_line(None) == "not recorded"
