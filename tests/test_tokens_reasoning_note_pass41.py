"""The note under ``tokens``' text table that REASONING is a part of OUTPUT (``tokens_notes``).

REASONING sits between OUTPUT and TOTAL: a reader adding the columns before TOTAL counted
it twice.  The note is said on a terminal when the column is shown and some reasoning is
not 0, and alike whether the table was made whole or patched from the kept text
(``cli.tablepatch``); ``--json`` and the table's lines are as they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.tokens_notes import REASONING_NOTE
from gemini_builders import gemini, meta, tokens as gemini_tokens, write_chat
from patch_builders import BASE, IDS, append, session, turn

runner = CliRunner()
CHAT_ID = "abcdef12-0000-4000-8000-000000000001"


def table(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def thinking_chat(home: Path, thoughts: int, mtime: float = BASE) -> Path:
    """A Gemini chat of one reply that thought ``thoughts`` tokens (a part of its output)."""
    return write_chat(home, "proj", f"session-2026-05-01T10-00-{CHAT_ID[:8]}.jsonl",
                      [meta(CHAT_ID), gemini("g1", "2026-05-01T10:00:02.000Z", "ok",
                                             usage=gemini_tokens(100, 10, thoughts=thoughts))], mtime=mtime)


def said(err: str) -> bool:
    return REASONING_NOTE in " ".join(err.split())  # (a note wraps to the terminal)


def test_a_table_with_reasoning_says_it_is_part_of_output(isolated_home: Path, tty: Callable[..., None]) -> None:
    tty(200, color=False)
    thinking_chat(isolated_home, 7)
    session(isolated_home, IDS[0], 1, 100)
    for by in ("session", "model", "provider", "day", "cwd"):
        out, err = table("--by", by)
        assert "REASONING" in out.splitlines()[0] and said(err), by
        assert REASONING_NOTE not in out  # a note to the reader: stdout's lines are the table's


def test_no_reasoning_no_note(isolated_home: Path, tty: Callable[..., None]) -> None:
    tty(200, color=False)
    thinking_chat(isolated_home, 0)
    session(isolated_home, IDS[0], 1, 100)
    out, err = table()
    assert "REASONING" in out.splitlines()[0] and not said(err)


def test_reasoning_left_out_to_fit_is_not_explained(isolated_home: Path, tty: Callable[..., None]) -> None:
    # (pass 49: at 60 columns the parts that are 0 in every row go first, and REASONING, which
    # has a figure, is kept: narrower still, it goes)
    tty(45, color=False)
    thinking_chat(isolated_home, 7)
    out, err = table("--by", "model")
    assert "REASONING" not in out.splitlines()[0]
    assert "REASONING" in err and not said(err)  # named among the columns left out, not explained


def test_the_note_is_for_the_terminal_alone(isolated_home: Path) -> None:
    """Piped, nothing changes: the table's lines, and stderr, are as they were."""
    thinking_chat(isolated_home, 7)
    out, err = table()
    assert not said(err) and REASONING_NOTE not in out
    json_out, json_err = table("--json")
    assert REASONING_NOTE not in json_out + json_err
    (row,) = orjson.loads(json_out)["rows"]
    assert row["tokens"]["reasoning"] == 7 and row["tokens"]["output"] == 17


def test_a_patched_table_says_it_as_a_whole_one_does(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None]) -> None:
    tty(200, color=False)
    paths = [session(isolated_home, native_id, index, 1000 * (index + 1)) for index, native_id in enumerate(IDS[:3])]
    assert not said(table()[1])
    chat = thinking_chat(isolated_home, 7, BASE + 3000)  # reasoning comes, the layout kept
    made = table()
    assert (table_ways[-1], table_splices[-1]) == ("patched", True)  # printed from the kept text
    assert made == table("--no-cache") and said(made[1])
    append(paths[1], turn(IDS[1], 30, 123_456_789), BASE + 3600)  # wider numbers: laid out again
    made = table()
    assert (table_ways[-1], table_splices[-1]) == ("patched", False)
    assert made == table("--no-cache") and said(made[1])
    chat.unlink()  # reasoning gone
    made = table()
    assert table_ways[-1] == "patched"
    assert made == table("--no-cache") and not said(made[1])
