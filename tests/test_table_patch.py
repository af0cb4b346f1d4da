"""``tokens``' text table patched from the last whole one by the sessions that changed (``cli.tablepatch``).

Every test compares the patched table (and the notes on stderr) with one
made afresh (``--no-cache``), byte for byte, and checks which way it was made.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from gemini_builders import gemini, meta, sha256_hex, tokens as gemini_tokens, write_chat, write_claude_transcript
from patch_builders import (ACTIONS, BASE, IDS, Changes, append, null_session, rewrite_basis, session, sessions,
                            sidechain_call, turn, with_extras, with_section)

runner = CliRunner()
TABLE_BASIS = "basis:tokens-text:session"


@pytest.fixture(autouse=True)
def _no_progress_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress line on a terminal's stderr, however long a run takes: the tests compare a
    patched table's stderr with a fresh one's, and a run slower than ``DELAY_S`` (a loaded
    machine: Hypothesis reported one) drew its line, erased with ``\r\x1b[K``, in one of the
    two.  The line is tested where it is the subject (tests/test_progress*.py)."""
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", float("inf"))




def table(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def assert_patched_as_fresh(table_ways: list[str], expected: str = "patched") -> str:
    made = table()
    assert table_ways[-1] == expected
    assert made == table("--no-cache")
    assert table() == made  # remembered now: the same text again
    return made[0]


def test_a_grown_session_is_patched_into_the_table_and_moves_to_the_top(isolated_home: Path, table_ways: list[str]) -> None:
    first = sessions(isolated_home, 4)[0]
    table()
    assert table_ways == ["whole"]  # no basis yet
    before = table("--no-cache")[0]
    append(first, turn(IDS[0], 30, 7, model="claude-opus-4-1-20250805"), BASE + 3600)
    text = assert_patched_as_fresh(table_ways)
    assert text != before
    assert text.splitlines()[1].startswith(f"claude:{IDS[0]}")


@pytest.mark.parametrize("width", [None, 150, 70])
def test_a_change_that_keeps_the_layout_is_printed_from_the_kept_text(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None], width: int | None) -> None:
    if width is not None:
        tty(width, color=True)
    paths = [session(isolated_home, native_id, index, 1000 * (index + 1)) for index, native_id in enumerate(IDS[:5])]
    null_session(isolated_home, IDS[5], BASE + 900)
    table()
    append(paths[1], turn(IDS[1], 30, 9), BASE + 3600)  # its numbers as wide as before: the layout is the same
    text = assert_patched_as_fresh(table_ways)
    assert table_splices == [True]
    assert IDS[1][:8] in text.splitlines()[1]  # moved to the top, the others as kept
    append(paths[3], turn(IDS[3], 31, 123_456_789), BASE + 3700)  # wider numbers: laid out again
    assert_patched_as_fresh(table_ways)
    assert table_splices == [True, False]


@pytest.mark.parametrize("width", [None, 70, 60])  # piped, fitted, fitted and rounded (until it goes)
def test_a_session_gone_that_made_a_column_wide_lays_the_table_out_again(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None], width: int | None) -> None:
    """The widths a row's kept lines counted are taken back out with it."""
    if width is not None:
        tty(width)
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index, 100 * (index + 1))
    widest = session(isolated_home, IDS[3], 4, 987_654_321)
    table()
    widest.unlink()
    assert_patched_as_fresh(table_ways)
    assert table_splices == [False]


def test_a_rounded_table_whose_widest_row_comes_and_goes_is_laid_out_again(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None]) -> None:
    """The rounded lines' widths are counted in and out too: the table stays rounded (at 85
    columns, rounded with and without the widest row: pass 40's order kept 64 exact; at 80,
    pass 57's order drops CACHE READ before it rounds)."""
    tty(85)
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index, 100_000_000 * (index + 1))
    assert "numbers rounded" in " ".join(table()[1].split())  # (the note wraps at 80)
    widest = session(isolated_home, IDS[3], 40, 9_876_543_210)
    out, err = assert_patched_as_fresh(table_ways), table()[1]
    assert "numbers rounded" in " ".join(err.split()) and "$59,259" in out
    widest.unlink()
    out, err = assert_patched_as_fresh(table_ways), table()[1]
    assert "numbers rounded" in " ".join(err.split()) and "59,259" not in out
    assert table_splices == [False, True]  # gone again: the table as it was kept


def test_an_id_shown_longer_is_not_printed_as_kept(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None]) -> None:
    """A session that came makes another's shown id longer, in a column as wide as before
    (two others' ids are shown whole): that row is laid out again, the rest printed as kept."""
    tty(250)
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index, 100 * (index + 1))
    for last in "45":
        twin = IDS[3][:-1] + last
        session(isolated_home, twin, 5, 100)
    table()
    session(isolated_home, IDS[0][:12] + "9" + IDS[0][13:], 30, 100)
    text = assert_patched_as_fresh(table_ways)
    assert table_splices == [True]
    assert f"claude:{IDS[0][:13]}" in text


def test_a_project_revealed_in_a_column_as_wide_as_before(isolated_home: Path, table_ways: list[str],
                                                         table_splices: list[bool]) -> None:
    """An unchanged Gemini row whose project another provider reveals is laid out again,
    even when nothing else about the table's layout changes."""
    cwd = "/home/dev/src/revealed"
    write_chat(isolated_home, sha256_hex(cwd), "session-2026-05-01T10-00-abcdef12.jsonl",
               [meta("abcdef12-0000-4000-8000-000000000001", project_hash=sha256_hex(cwd)),
                gemini("g1", "2026-05-01T10:00:02.000Z", "ok", usage=gemini_tokens(100, 10))], mtime=BASE)
    wide = "/home/dev/src/a-project-with-a-longer-name"
    claude_session_file(isolated_home, IDS[0], [
        claude_user(IDS[0], "2026-11-01T09:00:00Z", "hi", cwd=wide),
        claude_assistant(IDS[0], "2026-11-01T09:00:01Z", msg_id="m-wide", request_id="r-wide",
                         usage=claude_usage(5, 1), cwd=wide)], mtime=BASE)
    session(isolated_home, IDS[1], 1, 100)
    table()
    write_claude_transcript(isolated_home, cwd, IDS[2])
    text = assert_patched_as_fresh(table_ways)
    assert table_splices == [True]
    assert text.count(cwd) == 2


@pytest.mark.parametrize("width, color", [(200, False), (120, True), (90, False), (60, True)])
def test_a_terminal_of_any_width_gets_the_table_a_fresh_run_prints(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], width: int, color: bool) -> None:
    """Fitted, rounded or cut, in colour or not, with short ids and subagents' lines."""
    tty(width, color=color)
    paths = [session(isolated_home, native_id, index, 10 ** (index + 2)) for index, native_id in enumerate(IDS[:4])]
    agent = claude_subagent_file(isolated_home, IDS[1], "a1", [sidechain_call(IDS[1], "a1", 0, 40)])
    os.utime(agent, (BASE + 300, BASE + 300))
    null_session(isolated_home, IDS[4], BASE + 400)
    table()
    append(paths[2], turn(IDS[2], 30, 123_456_789), BASE + 3600)  # wider numbers: the layout changes
    assert_patched_as_fresh(table_ways)
    append(agent, [sidechain_call(IDS[1], "a1", 1, 60)], BASE + 3700)
    assert_patched_as_fresh(table_ways)


def test_new_and_gone_sessions_change_the_ids_shown_on_a_terminal(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None]) -> None:
    tty(160)
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index, 100 + index)
    table()
    # A session whose id starts as another's does: both are shown longer.
    twin = IDS[0][:12] + "9" + IDS[0][13:]
    session(isolated_home, twin, 30, 5000)
    text = assert_patched_as_fresh(table_ways)
    assert f"claude:{IDS[0][:13]}" in text
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{twin}.jsonl").unlink()
    assert_patched_as_fresh(table_ways)


def empty_reply(native_id: str, n: int) -> dict:
    """A priced reply of 0 tokens (one of a model with no price keeps no basis)."""
    return claude_assistant(native_id, f"2026-11-01T10:{n:02d}:01Z", msg_id=f"empty-{n}", request_id=f"r-empty-{n}",
                            usage=claude_usage(0, 0))


def test_rows_of_nothing_fold_and_unfold(isolated_home: Path, table_ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    empty = null_session(isolated_home, IDS[1], BASE + 180)
    nothing = claude_session_file(isolated_home, IDS[2], [empty_reply(IDS[2], 1)], mtime=BASE + 240)
    # The line naming them is on stderr in a pipe (pass 42).
    assert "(+ 1 session with 0 tokens" in table()[1]
    append(empty, turn(IDS[1], 5, 9), BASE + 3600)  # "not recorded" gets tokens
    assert_patched_as_fresh(table_ways)
    append(nothing, [empty_reply(IDS[2], 2)], BASE + 3700)  # still 0 tokens: folded under the table
    assert_patched_as_fresh(table_ways)
    assert "(+ 1 session with 0 tokens" in table()[1]
    append(nothing, turn(IDS[2], 6, 5), BASE + 3800)  # tokens at last: a line of its own
    assert_patched_as_fresh(table_ways)
    assert "with 0 tokens" not in "".join(table())


def test_a_project_another_provider_reveals_is_shown_in_an_unchanged_row(isolated_home: Path, table_ways: list[str]) -> None:
    """A Gemini chat names its project by a hash: a Claude session started in that directory
    later tells it, with no file of the chat changed."""
    cwd = "/home/dev/src/revealed"
    write_chat(isolated_home, sha256_hex(cwd), "session-2026-05-01T10-00-abcdef12.jsonl",
               [meta("abcdef12-0000-4000-8000-000000000001", project_hash=sha256_hex(cwd)),
                gemini("g1", "2026-05-01T10:00:02.000Z", "ok", usage=gemini_tokens(100, 10))], mtime=BASE)
    session(isolated_home, IDS[0], 1, 100)
    assert cwd not in table()[0]
    write_claude_transcript(isolated_home, cwd, IDS[1])
    text = assert_patched_as_fresh(table_ways)
    assert text.count(cwd) == 2  # the new session's row and the chat's


def test_a_change_with_a_warning_is_made_whole(isolated_home: Path, table_ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    table()
    append(first, [b'{"type": "assistant", "message": {"usage": '], BASE + 3600)
    made = table()
    assert table_ways[-1] == "whole"
    assert made == table("--no-cache")
    assert "warning" in made[1]


def test_the_json_answers_basis_and_the_tables_are_apart(isolated_home: Path, table_ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    runner.invoke(app, ["tokens", "--json"])
    table()
    assert table_ways == ["whole"]  # the table made whole: --json's basis is not the table's
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(table_ways)
    result = runner.invoke(app, ["tokens", "--json"])
    assert result.stdout_bytes == runner.invoke(app, ["tokens", "--json", "--no-cache"]).stdout_bytes


# Every row's extras (a changed session's old lines are read: a row printed as kept is not).
@pytest.mark.parametrize("damage", [
    lambda extras: b"[]",
    lambda extras: extras.replace(b"[[", b"[{"),
    lambda extras: extras.replace(b'"claude:', b'7,"'),
    lambda extras: extras + b"\n[null,false,[],null]",
    lambda extras: extras.replace(b",false,", b',"no",'),
])
def test_a_basis_sealed_whole_but_with_extras_of_another_shape_is_not_used(
        isolated_home: Path, table_ways: list[str], damage: Callable[[bytes], bytes]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    table()
    rewrite_basis(TABLE_BASIS, with_extras(damage))
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(table_ways, "whole")


def _swapped_places(places: bytes) -> bytes:
    return places[16:32] + places[:16] + places[32:]


@pytest.mark.parametrize("name, damage", [
    ("table", lambda table: b"{}"),
    ("table", lambda table: table.replace(b'"terminal":[true,150', b'"terminal":[true,151')),
    ("table", lambda table: table.replace(b'"revisable":[]', b'"revisable":[99]')),
    ("table", lambda table: table.replace(b'"compact":false', b'"compact":0')),
    ("table-places", _swapped_places),
    ("table-places", lambda places: places[:-8]),
    ("table-when", lambda when: when + b"\0" * 8),
    ("table-keys", lambda keys: keys + b"\nclaude:extra"),
    ("table-text", lambda text: text[:-1]),
    ("table-text", lambda text: text + b"\n"),
])
def test_a_basis_whose_kept_text_is_of_another_shape_is_laid_out_again(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None], name: str,
        damage: Callable[[bytes], bytes]) -> None:
    tty(150)
    first = sessions(isolated_home, 4)[0]
    table()
    rewrite_basis(TABLE_BASIS, with_section(name, damage))
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(table_ways)
    assert table_splices == []  # not printed from a kept text it could not vouch for


@pytest.mark.parametrize("action, which, expected", [
    ("grow", 0, "patched"), ("add", 4, "patched"), ("null", 4, "patched"), ("remove", 0, "patched"),
    ("subagent", 1, "patched"), ("new subagent", 2, "patched"), ("codex", 0, "patched"), ("gemini", 0, "patched"),
    ("new gemini", 0, "patched"), ("remove gemini", 1, "patched"),
    ("synthetic", 0, "patched"),  # a reply of no model and no tokens costs nothing
    ("share", 0, "whole"),  # calls copied from another session: only a whole report merges them
])
def test_each_kind_of_change_is_patched_or_made_whole(isolated_home: Path, table_ways: list[str], action: str,
                                                      which: int, expected: str) -> None:
    home = Changes(isolated_home)
    table()
    home.apply(action, which, 77)
    assert_patched_as_fresh(table_ways, expected)


@pytest.mark.parametrize("width", [None, 70, 130])  # piped, and terminals that fit and round it
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 5), st.integers(1, 900)), min_size=1, max_size=5))
def test_any_sequence_of_changes_prints_the_table_a_fresh_report_does(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], steps: list[tuple[str, int, int]],
        width: int | None) -> None:
    for path in Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*"):
        path.unlink()
    if width is not None:
        tty(width)
    home = Changes(isolated_home)
    assert table() == table("--no-cache")
    for action, which, amount in steps:
        home.apply(action, which, amount)
        assert table() == table("--no-cache"), (action, table_ways)


def test_a_basis_rewritten_as_it_was_still_patches(isolated_home: Path, table_ways: list[str]) -> None:
    """The control for the damaged bases below: rewriting alone does not stop a patch."""
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    table()
    rewrite_basis(TABLE_BASIS, with_extras(lambda extras: extras))
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(table_ways)


@pytest.mark.parametrize("damage", [
    # A style ``Terminal.style`` does not know: a KeyError in the middle of rendering.
    lambda extras: extras.replace(b",null,null]", b',"blink",null]'),
    # A span ``row_lines`` never makes (over the id, on a row with numbers): a garbled table.
    lambda extras: extras.replace(b",null,null]", b",null,[0,10]]"),
    # Rounded lines that are not the full lines rounded (fewer of them).
    lambda extras: b"\n".join(orjson.dumps([*row[:3], row[3][:-1]]) for row in map(orjson.loads, extras.split(b"\n"))),
])
def test_lines_of_a_kind_row_lines_never_makes_are_not_used_in_colour(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], damage: Callable[[bytes], bytes]) -> None:
    tty(120, color=True)
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    table()
    rewrite_basis(TABLE_BASIS, with_extras(damage))
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    result = runner.invoke(app, ["tokens"])
    assert result.exit_code == 0, repr(result.exception)
    assert table_ways[-1] == "whole"
    assert (result.stdout, result.stderr) == table("--no-cache")
