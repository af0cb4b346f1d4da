"""``--grep`` finds a word whatever its Unicode spelling, as ``--cwd`` does (``scan/grepmatch.py``).

macOS writes decomposed names (NFD): a directory ``café app`` may be recorded as ``cafe`` and a
combining accent while the user types the composed ``é``.  ``--cwd`` found it; ``--grep`` did not.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from agentscan.scan import factfilter
from agentscan.scan.grepmatch import grep_key
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

NFC_DIR = unicodedata.normalize("NFC", "/Users/me/café app")
NFD_DIR = unicodedata.normalize("NFD", NFC_DIR)


def test_one_key_for_every_spelling_and_case() -> None:
    assert NFC_DIR != NFD_DIR
    assert grep_key(NFC_DIR) == grep_key(NFD_DIR) == grep_key(NFC_DIR.upper())
    assert grep_key("Straße") == grep_key("STRASSE") == "strasse"
    assert grep_key("Fix The Build") == "fix the build"


def _home(home: Path, count: int) -> None:
    for number in range(count):
        native = f"{number:08x}-2222-4000-8000-000000000000"
        cwd = NFD_DIR if number == 0 else (NFC_DIR if number == 1 else f"/src/app{number}")
        title = unicodedata.normalize("NFD", "Résumé parser") if number == 2 else f"task {number}"
        claude_session_file(home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", title, cwd=cwd),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(10, 1), cwd=cwd)])


@pytest.mark.parametrize("by_facts", [False, True])
@pytest.mark.parametrize(("word", "found"), [
    (unicodedata.normalize("NFC", "café"), {0, 1}),
    (unicodedata.normalize("NFD", "CAFÉ"), {0, 1}),
    (unicodedata.normalize("NFC", "résumé"), {2}),
])
def test_grep_finds_a_word_in_either_spelling(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, by_facts: bool,
                                              word: str, found: set[int]) -> None:
    # Rows read, or sessions ruled out by their files' facts unread (``factfilter``): one answer.
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 0 if by_facts else 10**9)
    _home(isolated_home, 12)
    result = invoke("list", "--all", "--grep", word, "--json")
    assert result.exit_code == 0, result.output
    ids = {row["native_id"] for row in json.loads(result.stdout)["sessions"]}
    assert ids == {f"{number:08x}-2222-4000-8000-000000000000" for number in found}
