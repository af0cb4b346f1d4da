"""Pass 54: the three hints that tell a session id from another word ask one predicate
(``cli.idwords.looks_like_id``), each saying how its question differs, so the rules are read
side by side instead of in three hand-written regexes that had drifted apart:

- a command line's first word (``agentscan 7f3c9a12``: ``misplaced.session_id_command``):
  6+ hex digits with a digit, or a known agent's name and a colon and anything; a bare date
  is no id, ``20261101`` is;
- an extra word of ``list`` (``list 7f3c9a12``: ``usagewords._word_meant``): 6+ hex digits
  with a digit, after any lowercase word and a colon; anything ``--since`` reads is no id;
- a word typed as ``tokens``' id (``idwords.meant_instead``): hex of any length, digit or
  not (a mistyped id is no misspelt day), asked of the word casefolded.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.idwords import looks_like_id, meant_instead
from agentscan.cli.misplaced import session_id_command
from agentscan.cli.usagewords import _word_meant

# word: (a first word, a list's extra word, tokens' id casefolded), as each rule read before
TABLE = {
    "7f3c9a12": (True, True, True),
    "7F3C9A12": (True, True, True),
    "123456": (True, True, True),
    "abc-123456": (True, True, True),
    "deadbeef": (False, False, True),  # no digit: a word
    "7f3c9": (False, False, True),  # five: too short for the first two
    "------": (False, False, True),
    "a1": (False, False, True),
    "3d": (False, False, True),
    "": (False, False, True),
    "2026-11-01": (False, False, True),
    "2026-11": (False, False, True),
    "20261101": (True, False, True),  # a date only --since reads
    "2026-11-01T10": (False, False, False),
    "claude:7f3c9a12": (True, True, False),
    "Claude:7f3c9a12": (True, False, False),  # an agent's name in any case; a word prefix in lowercase
    "claude:anything": (True, False, False),
    "codex:deadbeef": (True, False, False),
    "CLAUDE:x": (True, False, False),
    "bogus:7f3c9a12": (False, True, False),  # any word before the colon, unchecked
    "claude:": (False, False, False),
    "today": (False, False, False),
    "１２３４５６": (False, False, False),  # full-width digits: no hex
}


@pytest.mark.parametrize("word", list(TABLE))
def test_each_caller_s_rule(word: str) -> None:
    first, extra, typed_id = TABLE[word]
    assert looks_like_id(word, prefix="agent", not_a="date") is first
    assert looks_like_id(word, prefix="word", not_a="time") is extra
    assert looks_like_id(word.casefold(), least=0, digit=False) is typed_id


class _Grep:
    opts = ["--grep"]


@pytest.mark.parametrize("word", list(TABLE))
def test_the_callers_ask_it(word: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first, extra, _ = TABLE[word]
    monkeypatch.setattr("agentscan.cli.misplaced.typed_again", lambda ctx, command, typed: f"agentscan {command} {typed}")
    assert (session_id_command(word, None) is not None) is first
    assert ("a session's id goes after show" in _word_meant(word, [_Grep()])) is extra


def test_a_hex_word_is_no_misspelt_day() -> None:
    # ``dae`` is hex, and close to ``day``: a mistyped id, never ``--since day``'s guess
    assert meant_instead("dae", "tokens", "agentscan") is None
    assert meant_instead("yesterdy", "tokens", "agentscan") is not None


def test_a_first_word_that_is_an_id_is_shown() -> None:
    result = CliRunner().invoke(app, ["7f3c9a12"])
    assert result.exit_code == 2
    assert "show 7f3c9a12 (a session's id goes after show)" in result.stderr
