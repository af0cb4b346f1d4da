"""A line that is not UTF-8 and not JSON is said as such, with the byte and its column:
orjson's own words ("str is not valid UTF-8: surrogates not allowed") sent the reader
looking for surrogates in a file that held none."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.toolkit.jsonerrors import short_json_error
from builders import orjson_refusal

CLAUDE = "bbbbbbbb-1111-2222-3333-444444444444"
CODEX = "019a0000-0000-7000-8000-000000000039"




@pytest.mark.parametrize(("data", "said"), [
    (b'\xff\xfe{"type":"user"}', "not valid UTF-8 (byte 0xff at column 1)"),
    # The column counts characters, as orjson's other errors do: "é" is one.
    ('{"é":1,'.encode() + b"\xc3(", "not valid UTF-8 (byte 0xc3 at column 8)"),
    ('{"a":1} \udcfe'.encode("utf-8", "surrogateescape"), "not valid UTF-8 (byte 0xfe at column 9)"),
])
def test_the_first_byte_that_is_not_utf8_is_named_with_its_column(data: bytes, said: str) -> None:
    error = orjson_refusal(data)
    assert short_json_error(error, data) == said
    # Read with ``surrogateescape`` (a reader that decoded the line already): the same words.
    assert short_json_error(error, data.decode("utf-8", "surrogateescape")) == said
    # Without the line, no place is made up.
    assert short_json_error(error) == "not valid UTF-8"


@pytest.mark.parametrize("data", [b'{"b": "\xff" , x}', b'\x00\x9f binary'])
def test_a_line_that_fails_elsewhere_is_told_where_it_fails(data: bytes) -> None:
    # The byte alone is read (``laxjson.reparse``: U+FFFD, with a note); what stops the
    # decoder is another fault: the unquoted ``x``, the NUL before the byte.
    said = short_json_error(orjson_refusal(data), data)
    assert said == ('a key not in double quotes ("x") at column 13' if data.startswith(b"{")
                    else "an invisible character (U+0000) at column 1")


def test_other_errors_are_said_in_plain_words_with_their_column() -> None:
    assert short_json_error(orjson_refusal(b'{"a":1,}'), b'{"a":1,}') == "an extra comma before a closing bracket at column 7"


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_claude_and_codex_transcripts_say_it_so(isolated_home: Path) -> None:
    write(isolated_home / ".claude" / "projects" / "p" / f"{CLAUDE}.jsonl", b'\xff\xfe{"type":"user"}\n')
    write(isolated_home / ".codex" / "sessions" / "2026" / "11" / "01" / f"rollout-2026-11-01T10-00-00-{CODEX}.jsonl",
          b'{"a":1}\n\x9f\x00 binary\n')
    result = CliRunner().invoke(app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    messages = {Path(w["path"]).suffix + ":" + w["message"] for w in orjson.loads(result.stdout)["warnings"]}
    assert ".jsonl:invalid JSON skipped: not valid UTF-8 (byte 0xff at column 1)" in messages
    assert ".jsonl:invalid JSON skipped: not valid UTF-8 (byte 0x9f at column 1)" in messages
    assert not any("surrogates" in message for message in messages)
