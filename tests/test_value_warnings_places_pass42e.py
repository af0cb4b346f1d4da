"""Where a bad value is told from when no JSONL reader reads it (``toolkit.valuewarnings``).

A truncated legacy Gemini chat is salvaged with its ``null`` messages kept (so a bad value's
message is found at its line again), but "read the N complete messages" counts the messages
(objects) alone, as it did before values were told.  A Cursor composer that two workspace
DBs list (a folder reopened) is counted once, from the copy that holds more bubbles: its bad
values are told once too, that copy's, not once a copy.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from builders import cli_json, forget_remembered_answers
from gemini_builders import gemini, tokens, user, write_legacy
from gemini_builders import meta as gemini_meta

from agentscan.toolkit.valuewarnings import USAGE_HEAD

SESSION = "9a420000-0000-4000-8000-0000000000e1"
COMPOSER = "c4200000-0000-4000-8000-0000000000e1"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def _runs(*args: str) -> list[dict]:
    """``tokens --json`` cold, warm (its remembered answer dropped), remembered, and without the cache."""
    reports = [cli_json("tokens", *args)]
    forget_remembered_answers()
    reports += [cli_json("tokens", *args), cli_json("tokens", *args), cli_json("tokens", "--no-cache", *args)]
    return reports


def _line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_salvaged_legacy_chat_counts_its_messages_not_its_nulls(isolated_home: Path) -> None:
    counts: dict[str, Any] = tokens(100, 10)
    counts["output"] = -5
    path = write_legacy(isolated_home, "proj", "session-2026-05-01T10-00-9a4200e1.json", {
        **gemini_meta(SESSION),
        "messages": [user("u1", "2026-05-01T10:00:00.000Z", "hello"), None, None,
                     gemini("g1", "2026-05-01T10:00:01.000Z", "hi", usage=counts),
                     user("u2", "2026-05-01T10:00:02.000Z", "again"),
                     gemini("g2", "2026-05-01T10:00:03.000Z", "cut here", usage=tokens(1, 1))]})
    text = path.read_text()
    path.write_text(text[: text.rindex("cut here")])  # (cut inside the last message)
    os.utime(path, (1_756_713_600, 1_756_713_600))  # still since: no longer "being written?" (pass 52)
    for report in _runs():
        said = [(Path(w["path"]).name, w["message"], w.get("line")) for w in report["warnings"]]
        assert said == [
            (path.name, "chat file is truncated or corrupt; read the 3 complete messages before the damage", None),
            # (the nulls before it kept in the salvaged list: the message is found at its own line)
            (path.name, f"{USAGE_HEAD}: tokens.output is -5, counted as 0", _line_of(path, '"id": "g1"') - 1),
        ]
        (row,) = report["rows"]
        assert row["tokens"]["input"] == 100


def _bubble(bubble_id: str, output: object) -> dict[str, Any]:
    from cursor_builders import bubble

    found = bubble(bubble_id, 2, "done", tokens=(100, 0), created="2026-07-25T17:20:05Z", model="gpt-5")
    found["tokenCount"]["outputTokens"] = output
    return found


def _listed(bubbles: list[dict[str, Any]]) -> dict[str, Any]:
    from cursor_builders import bubble

    return {"composerId": COMPOSER, "name": "inline", "createdAt": T0, "lastUpdatedAt": T0 + 1,
            "conversation": [bubble("w0", 1, "count this"), *bubbles]}


def test_a_composer_two_workspace_dbs_list_tells_its_bad_values_once(isolated_home: Path) -> None:
    from cursor_builders import make_workspace_db

    # The older copy (fewer bubbles) has one bad value; the one counted has two others.
    make_workspace_db(isolated_home, "file:///home/dev/old", [_listed([_bubble("w1", -5)])])
    counted = make_workspace_db(isolated_home, "file:///home/dev/shop",
                                [_listed([_bubble("w1", 7), _bubble("w2", 2.5), _bubble("w3", -1)])])
    for report in _runs():
        assert [(w["path"], w["message"]) for w in report["warnings"]] == [
            (str(counted), f"{USAGE_HEAD}: tokenCount.outputTokens is 2.5, counted as 2 "
                           f"(composer {COMPOSER}, bubble w2; the first of 2 such values in this composer)")]
        (row,) = report["rows"]
        assert row["tokens"]["output"] == 7 + 2 + 0


def test_a_composer_whose_counted_copy_is_clean_tells_nothing(isolated_home: Path) -> None:
    from cursor_builders import make_workspace_db

    make_workspace_db(isolated_home, "file:///home/dev/old", [_listed([_bubble("w1", -5)])])
    make_workspace_db(isolated_home, "file:///home/dev/shop", [_listed([_bubble("w1", 7), _bubble("w2", 3)])])
    report = cli_json("tokens")
    assert report["warnings"] == []
    (row,) = report["rows"]
    assert row["tokens"]["output"] == 7 + 3  # (the counted copy's)
