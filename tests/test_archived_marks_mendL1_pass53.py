"""``tokens --json`` marks an archived session however its rows are found (pass 53, mendL1).

A Cursor chat archived in Cursor's chat list had ``"archived": true`` in ``list --json`` and
``(archived)`` in the tokens table, but never in ``tokens --json``: its provider said it archives
(``can_archive``) without saying which rows are archived unread (``archived_unread``).  And a
Codex rollout filed by date under ``archived_sessions/YYYY/MM/DD/`` was archived for discovery
(any depth) but not for a ref the index remembered (the parent folder's name alone): a warm
windowed ``tokens --json`` dropped its mark.  Both now follow the row's one rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cli_json
from codex_builders import Calls, at, meta, turn_context, user_message, write_rollout
from test_cursor_archived_pass53 import GONE, KEPT, TABLED
from test_cursor_archived_pass53 import _home as _cursor_home

NESTED = "019c1111-0000-7000-8000-0000000000e1"
ACTIVE = "019c1111-0000-7000-8000-0000000000e2"


def _marks(*args: str) -> dict[str, bool]:
    return {row["key"].split(":", 1)[1]: row.get("archived", False) for row in cli_json("tokens", *args)["rows"]}


def test_tokens_json_marks_an_archived_cursor_chat(isolated_home: Path, only_cursor: None) -> None:
    _cursor_home(isolated_home)
    want = {GONE: True, TABLED: True, KEPT: False}
    assert _marks() == want  # made now
    assert _marks() == want  # taken back from the index
    for _ in range(3):  # a window's rows are made each run, of the sessions the index remembered
        assert _marks("--since", "2020-01-01") == want
    assert _marks() == want


def test_a_remembered_cursor_ref_is_told_archived_from_the_state_db(isolated_home: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.cursor.provider import CursorProvider
    from agentscan.scan.memorefs import MemoRef

    _cursor_home(isolated_home)
    ctx = ScanContext(home=isolated_home, env={})
    provider = CursorProvider()
    told = {native_id: provider.archived_unread(MemoRef("cursor", native_id, None, 0.0, [], (), "x"), ctx)
            for native_id in (GONE, TABLED, KEPT)}
    assert told == {GONE: True, TABLED: True, KEPT: False}


def _codex_home(home: Path) -> Path:
    codex = home / ".codex"
    for thread, start, folder in ((NESTED, 0, "archived_sessions"), (ACTIVE, 100, "sessions")):
        calls = Calls()
        name = f"rollout-{at(start).strftime('%Y-%m-%dT%H-%M-%S')}-{thread}.jsonl"
        write_rollout(codex / folder / at(start).strftime("%Y/%m/%d") / name, [
            meta(thread, at(start)), turn_context(at(start + 1)), user_message(at(start + 1), "hi"),
            calls.call(at(start + 10), 100, 0, 10)])
    return codex


def test_a_rollout_archived_by_date_keeps_its_mark_warm(isolated_home: Path) -> None:
    _codex_home(isolated_home)
    want = {NESTED: True, ACTIVE: False}
    assert _marks() == want
    for _ in range(3):
        assert _marks("--since", "2020-01-01") == want
    assert _marks() == want


@pytest.mark.parametrize(("parts", "archived"), [
    (("archived_sessions", "rollout.jsonl"), True),
    (("archived_sessions", "2025", "09", "19", "rollout.jsonl"), True),
    (("sessions", "2025", "09", "19", "rollout.jsonl"), False),
    # A home that lies under a folder of that name is not archived whole: the nearest one tells.
    (("archived_sessions", "me", ".codex", "sessions", "2025", "rollout.jsonl"), False),
])
def test_one_rule_for_discovery_and_a_remembered_ref(isolated_home: Path, parts: tuple[str, ...], archived: bool) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.codex.index import archived_at
    from agentscan.providers.codex.roots import in_archived_sessions

    path = Path("/x", *parts)
    assert in_archived_sessions(path) is archived
    assert archived_at(path, ACTIVE, ScanContext(home=isolated_home, env={})) is archived
