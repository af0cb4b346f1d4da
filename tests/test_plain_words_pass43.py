"""Pass 43: what agentscan says to a person is in plain words.

* A line that is not JSON is said as what is wrong with it and where (``unexpected "NaN"
  at column 7``), never in orjson's words (``unexpected character, expected a JSON value``,
  ``invalid literal, expected 'null'``, ``unexpected content after document``).
* ``agentscan help list --json`` asks for ``list``'s help: it prints it (exit 0), and says
  on stderr what it ignored; an unknown command is still a usage error.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from agentscan.toolkit.jsonerrors import short_json_error
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke
from builders import orjson_refusal
from codex_builders import agent_message, at, meta, rollout_path, token_count, turn_context, usage, user_message
from codex_builders import session_index_entry, write_rollout, write_session_index

SESSION = "bbbbbbbb-4343-4343-4343-444444444444"
THREAD = "019a0000-0000-7000-8000-000000004343"


def _transcript_with(home: Path, bad_line: bytes) -> Path:
    """A Claude transcript of a prompt and a reply with ``bad_line`` between them (line 2)."""
    path = claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-11-01T10:00:00.000Z", "hello"),
        claude_assistant(SESSION, "2026-11-01T10:00:01.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(input=3, output=2)),
    ])
    good = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(good[0] + bad_line + b"\n" + good[1])
    return path


#: broken lines as agents' files hold them, and what a warning says of each
BROKEN = [
    (b'{"type": "user", "n": 1', "it stops mid-record at column 24"),
    (b'{"a": 1}xyz', "more text after the record's end at column 9"),
    (b'{"a": 1} {"b": 2}', "more text after the record's end at column 10"),
    (b'{"a": NaN}', 'unexpected "NaN" at column 7'),
    (b'{"a": Infinity}', 'unexpected "Infinity" at column 7'),
    (b'{"a": -Infinity}', "a malformed number at column 8"),
    (b"hello world", 'unexpected "hello" at column 1'),
    (b'{"a": nul}', 'unexpected "nul" at column 7'),
    (b'{"a": True}', 'unexpected "True" at column 7'),
    (b'{"a": "x\x01y"}', "a raw control character (U+0001) inside quotes at column 9"),
    (b'{"a": "\xff"}', "not valid UTF-8 (byte 0xff at column 8)"),
    (b'{"a": }', "a missing value at column 7"),
    (b"{,}", "a stray comma at column 2"),
    (b'{"a": 1,, "b": 2}', "a stray comma at column 9"),
    (b"[1,,2]", "a stray comma at column 4"),
    (b'{"a": 1,}', "an extra comma before a closing bracket at column 8"),
    (b'{"a" 1}', 'a missing ":" after a key at column 6'),
    (b'{"a": 1 "b": 2}', 'a missing "," or "}" at column 9'),
    (b"[1 2]", 'a missing "," or "]" at column 4'),
    (b"{'a': 1}", "a key not in double quotes (\"'a'\") at column 2"),
    (b'{"a": 1\xef\xbb\xbf}', "a stray byte order mark (BOM) at column 8"),
    (b'\xef\xbb\xbf{"a": 1}', "a stray byte order mark (BOM) at column 1"),
    (b"\x00\x00\x00", "an invisible character (U+0000) at column 1"),
    (b'{"a": "\\q"}', "a bad backslash escape inside quotes at column 8"),
    (b'{"a": 01}', "a number with a leading zero at column 7"),
    (b'{"a": 1e999}', "a number too large to read at column 7"),
    (b"[" * 2000 + b"]" * 2000, "nested too deeply at column 1026"),
]


@pytest.mark.parametrize(("line", "said"), BROKEN)
def test_a_broken_line_is_said_in_plain_words_with_its_place(line: bytes, said: str) -> None:
    error = orjson_refusal(line)
    assert short_json_error(error, line) == said
    assert short_json_error(error, line.decode("utf-8", "surrogateescape")) == said  # a line decoded already


@pytest.mark.parametrize("line", [line for line, _ in BROKEN])
def test_no_warning_repeats_the_decoder_s_words(line: bytes) -> None:
    error = orjson_refusal(line)
    for data in (line, None):
        said = short_json_error(error, data)
        jargon = error.msg.split(",")[0].split(":")[0]
        assert jargon not in said, said
        assert not re.search(r"\bexpected\b|document|literal|surrogate|\(char|line 1", said), said


def test_without_the_line_nothing_is_guessed_of_what_was_found() -> None:
    # The word at the place is not known: "a missing value" would be a guess.
    assert short_json_error(orjson_refusal(b'{"a": NaN}')) == "unexpected text at column 7"
    assert short_json_error(orjson_refusal(b'{"a": 1,, "b": 2}')) == "unexpected text at column 9"


def test_a_message_not_known_is_said_generically_with_its_place() -> None:
    unknown = orjson.JSONDecodeError("some words orjson may add one day", '{"a": x}', 6)
    assert short_json_error(unknown, '{"a": x}') == "malformed at column 7"
    assert short_json_error(ValueError("Expecting value: line 1 column 1 (char 0)")) == "malformed"


def test_a_document_s_place_is_its_line_and_column() -> None:
    document = b'{"a": 1,\n "b": 2,\n oops}'
    assert short_json_error(orjson_refusal(document), document) == 'a key not in double quotes ("oops") at line 3, column 2'


def test_what_is_quoted_is_short_and_shows_no_invisible_character() -> None:
    long_word = b'{"a": undefined_and_then_some}'
    assert short_json_error(orjson_refusal(long_word), long_word) == 'unexpected "undefined_an\u2026" at column 7'
    override = '{"a": \u202eevil}'.encode()  # a bidi override would turn the rest of the warning around
    assert short_json_error(orjson_refusal(override), override) == "an invisible character (U+202E) at column 7"


def test_a_transcript_s_bad_line_is_warned_of_in_plain_words_and_grouped_as_before(isolated_home: Path) -> None:
    _transcript_with(isolated_home, b'{"type": "user", "n": NaN}')
    warnings = [(w["line"], w["message"]) for w in cli_json("list")["warnings"]]
    assert warnings == [(2, 'invalid JSON skipped: unexpected "NaN" at column 23')]
    # The doctor groups warnings by what their message says before its details: the same kind.
    (claude,) = [report for report in cli_json("doctor")["providers"] if report["provider"] == "claude"]
    assert claude["warnings"] == {"invalid JSON skipped": 1}


def test_a_session_index_line_indented_is_quoted_at_its_place(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), "fix it"),
        agent_message(at(2), "done"), token_count(at(3), usage(100, output=10))])
    # The decoder's column counts the indent: the word quoted is the one at that column.
    write_session_index(codex, [b'   {"id": "x", "thread_name": nope}',
                                session_index_entry(THREAD, "Named", at(5))])
    listed = cli_json("list", "--provider", "codex")
    assert [row["title"] for row in listed["sessions"]] == ["Named"]
    assert [w["message"] for w in listed["warnings"]] == ['invalid JSON skipped: unexpected "nope" at column 31']


# -- agentscan help COMMAND [options] ----------------------------------------------------


@pytest.mark.parametrize("words", [["list"], ["hooks", "install"], ["tokens"]])
@pytest.mark.parametrize("options", [["--json"], ["--since", "3d", "--json"], ["-n", "5"], ["--home", "/tmp", "--json"]])
def test_help_of_a_command_ignores_the_options_that_follow_it(words: list[str], options: list[str]) -> None:
    asked = invoke("help", *words, *options)
    assert asked.exit_code == 0, asked.output
    assert asked.stdout == invoke(*words, "--help").stdout
    ignored = " ".join(options[2:] if options[0] == "--home" else options)  # --home is help's own
    assert asked.stderr == f"note: ignored {ignored} (this is the help of agentscan {' '.join(words)}, not its output)\n"


def test_quiet_says_nothing_of_the_options_ignored() -> None:
    asked = invoke("--quiet", "help", "list", "--json")
    assert asked.exit_code == 0 and asked.stdout == invoke("list", "--help").stdout
    assert asked.stderr == ""


@pytest.mark.parametrize(("words", "error"), [
    (["nosuchcmd", "--json"], "error: No such command 'nosuchcmd'.\n"),
    (["lst", "--json"], "error: No such command 'lst'. Did you mean 'list'?\n"),
    (["list", "extra", "--json"], "error: No such command 'extra': agentscan list has no commands of its own.\n"),
])
def test_help_of_an_unknown_command_is_still_a_usage_error(words: list[str], error: str) -> None:
    asked = invoke("help", *words)
    assert asked.exit_code == 2 and asked.stdout == ""
    assert asked.stderr.startswith(error) and "note:" not in asked.stderr


@pytest.mark.parametrize(("options", "note"), [
    (["-h"], ""), (["--help"], ""),  # what was asked for: nothing ignored
    (["--", "--json"], "note: ignored --json (this is the help of agentscan list, not its output)\n"),
    (["-vq"], ""),  # help's own flags, run together
    (["-vh"], ""),  # ... but with -h, the command's help
])
def test_help_of_a_command_and_its_own_help_flag_or_a_double_dash(options: list[str], note: str) -> None:
    asked = invoke("help", "list", *options)
    assert asked.exit_code == 0, asked.output
    assert asked.stdout == invoke("list", "--help").stdout and asked.stderr == note


def test_an_empty_home_value_takes_no_command_name_for_its_value() -> None:
    asked = invoke("help", "--home=", "list")
    assert asked.exit_code == 2 and "--home is empty" in asked.stderr


def test_an_option_before_any_command_is_still_refused() -> None:
    asked = invoke("help", "--json")
    assert asked.exit_code == 2 and "No such option: --json" in asked.stderr


def test_a_hook_config_that_is_not_json_is_placed_as_an_editor_shows_it(isolated_home: Path, project: Path) -> None:
    # Python's own words ended with "(char 40)", an offset no editor shows.
    config = project / ".claude" / "settings.local.json"
    config.parent.mkdir()
    config.write_text('{\n  "hooks": {\n    "a" 1\n  }\n}\n')
    result = invoke("hooks", "install", "claude", "--scope", "project")
    assert result.exit_code == 1
    assert "is not valid JSON (expecting ':' delimiter at line 3, column 9)" in result.stderr
    assert "(char " not in result.stderr


def test_an_indented_bad_line_in_a_codex_head_quotes_the_word_at_its_column(isolated_home: Path) -> None:
    # The header read quoted the stripped line at the unstripped line's column: a wrong word.
    from datetime import datetime, timezone

    path = rollout_path(isolated_home / ".codex", "019a0000-0000-7000-8000-0000000000aa",
                        datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc))
    write_rollout(path, [])
    path.write_bytes(b'    {"type": nope}\n')
    warnings = [w["message"] for w in cli_json("list", "--provider", "codex")["warnings"]]
    assert any('(line 1: invalid JSON (unexpected "nope" at column 14))' in message for message in warnings), warnings


@pytest.mark.parametrize("reader", ["whole", "tokens", "show"])
def test_an_indented_bad_transcript_line_is_placed_at_its_own_column(isolated_home: Path, reader: str) -> None:
    # Decoded stripped, the column counted from the record's first brace: 6 too few here.
    # A line with usage in it, which ``tokens``' reader of usage lines alone decodes too.
    _transcript_with(isolated_home, b'      {"type": "assistant", "usage":{"n": NaN}}')
    command = {"whole": ["list"], "tokens": ["tokens"], "show": ["show", SESSION]}[reader]
    warnings = [(w["line"], w["message"]) for w in cli_json(*command)["warnings"]]
    assert warnings == [(2, 'invalid JSON skipped: unexpected "NaN" at column 43')]


def test_an_indented_bad_line_of_a_codex_rollout_is_placed_alike_by_list_and_tokens(isolated_home: Path) -> None:
    # ``list`` reads a small rollout whole in its window (``headtail``); ``tokens`` by its own pass.
    path = rollout_path(isolated_home / ".codex", THREAD, at(0))
    write_rollout(path, [meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), "fix it"),
                         token_count(at(3), usage(100, output=10))])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]) + b'    {"type": "event_msg", "n": nope}\n' + b"".join(lines[3:]))
    said = 'invalid JSON skipped: unexpected "nope" at column 32'
    assert [(w["line"], w["message"]) for w in cli_json("list")["warnings"]] == [(4, said)]
    assert [(w["line"], w["message"]) for w in cli_json("show", THREAD)["warnings"]] == [(4, said)]
