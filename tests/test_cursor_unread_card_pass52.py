"""A Cursor chat whose usage could not be read (the global DB corrupt) is said so (pass 52).

``list`` showed its tokens as ``-``, ``--json`` ``tokens: null`` and ``counts_partial``,
``tokens`` named it among the sessions that could not be read, but ``show``'s card said
``tokens   not recorded`` and ``counts   0 prompts…``: a count nobody made.  And the
warning said "transcripts are listed without it" though workspace chats are listed too.
"""

from __future__ import annotations

from pathlib import Path

from builders import invoke
from cursor_builders import break_schema, bubble, composer_data, make_state_db, make_workspace_db, state_db_path

A = "a5200000-0000-4000-8000-0000000000a1"
B = "a5200000-0000-4000-8000-0000000000b2"


def _corrupt_home(home: Path) -> None:
    db = make_state_db(state_db_path(home), composers=[composer_data(A, name="global chat", bubbles=["u", "a"])],
                       bubbles={A: [bubble("u", 1, "hello"), bubble("a", 2, "hi", tokens=(10, 20))]})
    make_workspace_db(home, "file:///work/proj", [
        {"composerId": A, "name": "global chat", "createdAt": 1764000000000, "lastUpdatedAt": 1764000500000},
        {"composerId": B, "name": "second chat", "createdAt": 1764100000000, "lastUpdatedAt": 1764100500000},
    ])
    break_schema(db)


def test_the_card_says_unread_usage_is_not_known(isolated_home: Path) -> None:
    _corrupt_home(isolated_home)
    result = invoke("show", f"cursor:{B}")
    assert result.exit_code == 0, result.output
    card = dict(line.split(None, 1) for line in result.stdout.splitlines()[1:] if len(line.split(None, 1)) == 2)
    assert card["tokens"] == "not known (could not be read)"
    assert card["counts"] == "not known (could not be read)"
    assert "chats are listed without it, those only it holds left out, the tokens it holds not known" in result.stderr
    assert "transcripts are listed" not in result.stderr
