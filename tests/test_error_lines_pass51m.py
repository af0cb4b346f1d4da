"""Every line an error says, wrapped alike; a note on a stderr that cannot hold ``≥`` (pass 51).

At 40 columns the ``error:`` line of an ambiguous id was wrapped and the ``hint:`` under it
(one of the error's details) ran 68 columns wide: ``say_error`` wrapped five of its prints
by hand, and printed the details as they were.  On an ASCII stderr the partial-reasoning note
said ``REASONING \\u2265N`` under a table that showed ``>2,117,717``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Callable

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from agentscan.cli import recorded, render
from agentscan.cli.term import width_of
from agentscan.cli.tokens_notes import PARTIAL_REASONING_NOTE

HINT = "hint: give more characters of the id, or one of the ids above in full"


def _sessions(home: Path, count: int) -> list[str]:
    """``count`` Claude sessions whose ids all start ``abcdef``."""
    ids = []
    for index in range(count):
        native = f"abcdef{index:02x}-0000-4000-8000-{index:012x}"
        when = f"2026-11-0{index + 1}T09:00:00.000Z"
        cwd = f"/home/dev/src/project-{index}"
        claude_session_file(home, native, [
            claude_user(native, when, f"prompt {index}", cwd=cwd),
            claude_assistant(native, when, msg_id=f"m{index}", request_id=f"r{index}", usage=claude_usage(3, 1), cwd=cwd),
        ])
        ids.append(f"claude:{native}")
    return ids


def test_an_ambiguous_ids_hint_and_candidates_are_wrapped_as_its_error_is(isolated_home: Path,
                                                                         tty: Callable[..., None]) -> None:
    ids = _sessions(isolated_home, 3)
    tty(40, color=False)
    result = invoke("show", "abcdef")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    # Each line fits, but a whole id (45 columns with its indent: the terminal folds it, whole)
    assert all(width_of(line) <= 40 or line.strip() in ids for line in lines), lines
    assert "hint: give more characters of the id, or" in lines and "  one of the ids above in full" in lines
    for candidate in ids:  # each id whole on its line, to be copied; its time and project under it
        at = lines.index(f"  {candidate}")
        assert lines[at + 1].startswith("    2026-11-0") and lines[at + 2].startswith("    /home/dev/src/")


def test_a_piped_ambiguous_id_says_each_detail_on_one_line(isolated_home: Path) -> None:
    ids = _sessions(isolated_home, 3)
    lines = invoke("show", "abcdef").stderr.splitlines()
    assert len(lines) == 5 and lines[-1] == HINT
    assert [line.split()[0] for line in lines[1:4]] == list(reversed(ids))


@pytest.mark.parametrize("args", [["tokens", "--by", "foo"], ["list", "--verbos"]], ids=["agentscan's", "click's"])
def test_where_the_help_is_is_never_broken_inside_its_command(tty: Callable[..., None], args: list[str]) -> None:
    """``Try 'agentscan tokens --help' for help.`` wrapped as ``Try 'agentscan tokens`` and
    ``--help' for help.``: the command to copy split across two lines."""
    tty(24, color=False)
    result = invoke("--demo", *args)
    assert result.exit_code == 2
    assert any(f"'agentscan {args[0]} --help'" in line for line in result.stderr.splitlines()), result.stderr


# --- a note on a stderr that cannot hold every character -------------------------------------


def _ascii_stderr(monkeypatch: pytest.MonkeyPatch) -> io.TextIOWrapper:
    """stderr as ``PYTHONIOENCODING=ascii`` makes it: ``backslashreplace``, which never fails."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="backslashreplace")
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def _said(stream: io.TextIOWrapper) -> str:
    stream.flush()
    assert isinstance(stream.buffer, io.BytesIO)
    return stream.buffer.getvalue().decode("ascii")


def test_a_note_on_an_ascii_stderr_stands_in_as_a_table_does(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _ascii_stderr(monkeypatch)
    render.note(PARTIAL_REASONING_NOTE)
    render.note("cost of caf\u00e9 \u00d7 2: \u5bb6")  # (a ``?`` a column: a wide one two)
    said = _said(stream)
    assert said.startswith("REASONING >N: at least N") and "\\u2265" not in said
    assert said.splitlines()[1] == "cost of caf? x 2: ??"


def test_a_remembered_tables_notes_stand_in_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table printed again from the index (``cli.recorded``) writes the notes it kept."""
    stream = _ascii_stderr(monkeypatch)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    recorded.write("", PARTIAL_REASONING_NOTE + "\n")
    assert _said(stream).startswith("REASONING >N: at least N")


def test_a_utf8_stderr_keeps_the_note_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    monkeypatch.setattr(sys, "stderr", stream)
    render.note(PARTIAL_REASONING_NOTE)
    stream.flush()
    assert isinstance(stream.buffer, io.BytesIO)
    assert stream.buffer.getvalue().decode().startswith("REASONING ≥N: at least N")


# --- REASONING in a pipe and in --json, as docs/cli.md says -------------------------------------


def test_json_reasoning_is_a_number_where_a_pipe_says_dash() -> None:
    """A Claude-only day prints ``-`` piped (no agent of it records reasoning apart); ``--json``
    gives the number, 0, and a mixed day the other agents' figure."""
    document = orjson.loads(invoke("--demo", "tokens", "--by", "day", "--json").stdout)
    reasoning = {row["key"]: row["tokens"]["reasoning"] for row in document["rows"]}
    assert reasoning["2026-11-28"] == 0 and reasoning["2026-11-27"] == 3306
    assert document["total"]["reasoning"] == 6157


def test_the_card_keeps_the_tool_call_names_tests_and_show_full_import() -> None:
    from agentscan.cli import show_text, show_tools

    assert show_text.UNKNOWN_MEANING is show_tools.UNKNOWN_MEANING
    assert show_text.unknown_legend is show_tools.unknown_legend and show_text._tool_summary is show_tools.tool_summary
