"""Pass 53 (mendB): an SQLite export of a legacy Gemini chat cut short (caught half rewritten).

One cut after some usage was counted by ``list`` and ``tokens`` (what was recovered), but the
export left its old row as it was, warning that its usage "is kept in …/session-….json, which
could not be read this run": ``export.unread.usage_unknown`` asked every session, and
Gemini's ``unknown_usage`` answers from the cut warning whatever the row holds.  Only a row of
no usage is held now (as ``tokens_unknown`` marks one), and its warning says the chat was read
up to its damage, not that it could not be read."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import legacy_chat

S = "11111111-aaaa-4bbb-8ccc-000000000053"
ID = f"gemini:{S}"


def _tokens(out: Path) -> list[tuple]:
    with closing(sqlite3.connect(out)) as conn:
        return conn.execute("SELECT id, tokens_total FROM sessions").fetchall()


def _export(out: Path) -> str:
    result = invoke("export", "--format", "sqlite", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stderr.split())


def test_a_chat_cut_after_some_usage_is_written_as_list_counts_it(isolated_home: Path, tmp_path: Path) -> None:
    path = legacy_chat(isolated_home, S)
    out = tmp_path / "index.sqlite"
    _export(out)
    whole = _tokens(out)[0][1]
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"updated every import")])  # the first reply's usage kept
    listed = orjson.loads(invoke("list", "--json").stdout)["sessions"][0]["tokens"]["total"]
    assert listed is not None and 0 < listed < whole
    said = _export(out)
    assert _tokens(out) == [(ID, listed)], said
    assert "left as it was" not in said and "could not be read this run" not in said, said


def test_a_chat_cut_before_any_usage_keeps_its_row_and_says_it_was_read_in_part(isolated_home: Path,
                                                                               tmp_path: Path) -> None:
    path = legacy_chat(isolated_home, S)
    out = tmp_path / "index.sqlite"
    _export(out)
    before = _tokens(out)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"renamed")])  # the first prompt alone is whole
    assert orjson.loads(invoke("list", "--json").stdout)["sessions"][0]["tokens"] is None
    said = _export(out)
    assert _tokens(out) == before
    assert (f"1 Gemini CLI session left as it was in the index (its row and token_days): its usage is kept in {path}, "
            "read this run only up to its damage, before any usage (chat file is cut short") in said, said
