"""A legacy Gemini chat cut just after a ``}`` is cut short, not corrupt (pass 52).

A pretty-printed chat caught mid-rewrite ends wherever the writer was: just after a
message's ``}`` too.  ``legacy._salvage`` took a text ending with ``}`` for a whole
document that does not parse, "truncated or corrupt", and ``list --strict`` failed while
the file was young; a cut is told by where the parse fails (at the end of the input)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from gemini_builders import legacy_chat

S1 = "11111111-aaaa-4bbb-8ccc-000000000052"


def _chat(home: Path) -> Path:
    return legacy_chat(home, S1)


def _warnings(path: Path) -> list[str]:
    document = orjson.loads(invoke("list", "--json").stdout)
    return [w["message"] for w in document["warnings"] if w["path"] == str(path)]


@pytest.mark.parametrize("after", ["now update the imports", "updated every import"])
def test_a_chat_cut_after_a_brace_is_cut_short(isolated_home: Path, after: str) -> None:
    path = _chat(isolated_home)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"}", data.index(after.encode())) + 1])  # just after a message's (or its usage's) }
    assert path.read_bytes().rstrip().endswith(b"}")
    [said] = _warnings(path)
    assert said.startswith("chat file is cut short (file still being written?)"), said
    assert invoke("list", "--strict").exit_code == 0


def test_a_stray_byte_inside_is_corrupt(isolated_home: Path) -> None:
    path = _chat(isolated_home)
    data = path.read_bytes()
    at = data.index(b"now update the imports") - 2
    path.write_bytes(data[:at] + b"#" + data[at + 1:])  # whole, but broken inside
    [said] = _warnings(path)
    assert said.startswith("chat file is truncated or corrupt"), said
    assert invoke("list", "--strict").exit_code == 1


def test_half_an_emoji_before_the_cut_is_no_corruption(isolated_home: Path) -> None:
    # ``JSON.stringify`` writes a lone surrogate as its escape: orjson stops there, not at the end.
    path = _chat(isolated_home)
    data = path.read_bytes().replace(b"rename the module", b"rename the module \\ud83d")
    path.write_bytes(data[: data.index(b"}", data.index(b"now update the imports")) + 1])
    [said] = _warnings(path)
    assert said.startswith("chat file is cut short (file still being written?)"), said
