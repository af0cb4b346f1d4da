"""Pass 53 (mendB): the local zone's name, and the hints of a mistyped ``tokens`` id.

1. ``localzone.iana_name`` named ``TZ=right/Europe/Paris`` ``right/Europe/Paris`` (docs/json.md:
   a zone file in ``right/`` gives ``null``: leap seconds counted, no IANA name's times),
   ``TZ=localtime`` ``localtime`` and ``TZ=posixrules`` ``posixrules``: files that load, and
   no zone's name.  ``TZ=posix/Asia/Tokyo`` is ``Asia/Tokyo``, as its absolute path was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ZONES = Path("/usr/share/zoneinfo")


@pytest.mark.parametrize(("tz", "name"), [("right/Europe/Paris", None), (":right/Europe/Paris", None),
                                          ("localtime", None), ("posixrules", None), ("Factory", None),
                                          ("posix/Asia/Tokyo", "Asia/Tokyo"), ("Europe/Paris", "Europe/Paris"),
                                          ("US/Eastern", "US/Eastern")])
def test_only_a_zone_database_name_names_the_local_zone(local_zone, tz: str, name: str | None) -> None:  # noqa: ANN001
    from agentscan.localzone import iana_name

    if not (ZONES / tz.lstrip(":")).exists():
        pytest.skip("no such zone file here")
    local_zone(tz)
    assert iana_name() == name


# --- 2. a mistyped ``tokens`` id: the hint fits what was typed ---------------------------------
# ``tokens 2026-11-03T01`` suggested ``--since 2026-11-03t01`` (casefolded), ``tokens last`` got
# the generic "too short" while ``show last`` got ``list -n 1``, and ``tokens yesterdy`` got
# ``list --grep`` while ``--since yesterdy`` says "did you mean yesterday?".

@pytest.mark.parametrize(("word", "said"), [
    ("2026-11-03T01", "hint: `agentscan tokens --since 2026-11-03T01` counts tokens from then on (tokens takes session ids)"),
    ("last", "hint: `agentscan tokens -n 1` shows the newest session's tokens first, the others summed in one line "
             "(tokens takes session ids)"),
    ("yesterdy", "hint: `agentscan tokens --since yesterday` counts tokens from then on (did you mean yesterday? "
                 "tokens takes session ids)"),
    ("2026/11/01", "hint: `agentscan tokens --since 2026-11-01` counts tokens from then on (did you mean 2026-11-01? "
                   "tokens takes session ids)"),
])
def test_a_tokens_word_that_is_no_id_gets_its_own_hint(isolated_home: Path, word: str, said: str) -> None:
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

    native = "c0c0c0c0-0000-4000-8000-000000000053"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1))])
    result = invoke("tokens", word)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: no session matches {word!r}", said]

