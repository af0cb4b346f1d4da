"""Bad usage values told once a place where no JSONL reader opened a tally before.

Gemini CLI's legacy whole-file chats (``chats/session-*.json``) and Cursor's state-DB
bubbles counted a token count that is no count (``-5``, ``2.5``) without a word; now each
says its first one, where it is and how many there were, on a cold run, a warm one and
without the cache, and the totals do not move (``toolkit.valuewarnings``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders import cli_json, tokens_every_way
from gemini_builders import gemini, tokens, user, write_legacy
from gemini_builders import meta as gemini_meta

from agentscan.toolkit.valuewarnings import TIME_HEAD, USAGE_HEAD

BAD, GOOD = "9a420000-0000-4000-8000-0000000000b1", "9a420000-0000-4000-8000-0000000000a1"


def _said(report: dict, head: str) -> list[tuple[str, str, int | None]]:
    return [(Path(w["path"]).name, w["message"], w["line"]) for w in report["warnings"] if w["message"].startswith(head)]


def _rows(report: dict) -> dict[str, dict]:
    return {row["key"].split(":", 1)[1]: row["tokens"] for row in report["rows"]}


def _legacy(home: Path, session: str, output: object, name: str, *, second_time: str = "2026-05-01T10:00:02.000Z") -> Path:
    counts: dict[str, Any] = tokens(100, 10, cached=20, thoughts=5)
    counts["output"] = output
    return write_legacy(home, "proj", name, {
        **gemini_meta(session),
        "messages": [user("u1", "2026-05-01T10:00:00.000Z", "hello"),
                     gemini("g1", "2026-05-01T10:00:01.000Z", "hi", usage=counts),
                     gemini("g2", second_time, "hi", usage=counts)]})


def _line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_legacy_gemini_chat_tells_its_bad_token_counts_once(isolated_home: Path) -> None:
    bad = _legacy(isolated_home, BAD, -5, "session-2026-05-01T10-00-9a4200b1.json")
    _legacy(isolated_home, GOOD, 0, "session-2026-05-01T10-00-9a4200a1.json")
    # (the line the first bad value's message starts on: the file is pretty-printed)
    first = _line_of(bad, '"id": "g1"') - 1
    assert json.loads(bad.read_text())["messages"][1]["id"] == "g1"
    for report in tokens_every_way():
        rows = _rows(report)
        assert rows[BAD] == rows[GOOD]  # (the value counts what it always did)
        assert _said(report, USAGE_HEAD) == [(bad.name, f"{USAGE_HEAD}: tokens.output is -5, counted as 0 "
                                                        "(the first of 2 such values in this file)", first)]
        assert len(report["warnings"]) == 1  # (the good file says nothing)


def test_a_legacy_gemini_chat_tells_a_time_past_the_range(isolated_home: Path) -> None:
    bad = _legacy(isolated_home, BAD, 10, "session-2026-05-01T10-00-9a4200b1.json", second_time="9999-01-01T00:00:00.000Z")
    for report in tokens_every_way("--by", "day"):
        assert _said(report, TIME_HEAD) == [(bad.name, f"{TIME_HEAD}: '9999-01-01T00:00:00.000Z'",
                                             _line_of(bad, '"id": "g2"') - 1)]


def test_a_truncated_legacy_chat_numbers_its_salvaged_messages(isolated_home: Path) -> None:
    bad = _legacy(isolated_home, BAD, 2.5, "session-2026-05-01T10-00-9a4200b1.json")
    text = bad.read_text()
    bad.write_text(text[: text.rindex('"id": "g2"')])  # (cut inside the last message)
    report = cli_json("tokens")
    assert _said(report, USAGE_HEAD) == [(bad.name, f"{USAGE_HEAD}: tokens.output is 2.5, counted as 0",
                                          _line_of(bad, '"id": "g1"') - 1)]
    assert _rows(report)[BAD]["output"] == 0 + 5  # (its thoughts: Gemini counts a fraction as 0)


CURSOR_BAD, CURSOR_GOOD = "c4200000-0000-4000-8000-0000000000b1", "c4200000-0000-4000-8000-0000000000a1"
CURSOR_T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def _cursor_home(home: Path, outputs: list[object], *, created: str = "2026-07-25T17:20:05Z") -> Path:
    from cursor_builders import bubble, composer_data, make_state_db, state_db_path

    def bubbles(prefix: str, values: list[object]) -> list[dict[str, Any]]:
        found = [bubble(f"{prefix}0", 1, "count this")]
        for index, output in enumerate(values, 1):
            item = bubble(f"{prefix}{index}", 2, "done", tokens=(100, 0), created=created, model="gpt-5")
            item["tokenCount"]["outputTokens"] = output
            found.append(item)
        return found

    return make_state_db(state_db_path(home), composers=[
        composer_data(CURSOR_BAD, name="bad", created=CURSOR_T0, updated=CURSOR_T0 + 60_000,
                      bubbles=[f"b{n}" for n in range(len(outputs) + 1)]),
        composer_data(CURSOR_GOOD, name="good", created=CURSOR_T0, updated=CURSOR_T0 + 60_000,
                      bubbles=[f"g{n}" for n in range(len(outputs) + 1)]),
    ], bubbles={CURSOR_BAD: bubbles("b", outputs),
                CURSOR_GOOD: bubbles("g", [o if type(o) is int and o >= 0 else 0 for o in outputs])})


def test_cursor_bubble_counts_that_are_no_count_are_told_once_a_composer(isolated_home: Path) -> None:
    db = _cursor_home(isolated_home, [7, -5, -5, 3])
    for report in tokens_every_way():
        rows = _rows(report)
        assert rows[CURSOR_BAD] == rows[CURSOR_GOOD]  # (the values count what they always did)
        assert [(w["path"], w["message"], w.get("line")) for w in report["warnings"]] == [
            (str(db), f"{USAGE_HEAD}: tokenCount.outputTokens is -5, counted as 0 "
                      f"(composer {CURSOR_BAD}, bubble b2; the first of 2 such values in this composer)", None)]


def test_cursor_bubble_times_past_the_range_are_told_with_their_composer(isolated_home: Path) -> None:
    db = _cursor_home(isolated_home, [7], created="9999-01-01T00:00:00Z")
    report = cli_json("tokens")
    said = sorted((w["path"], w["message"]) for w in report["warnings"])
    assert said == sorted((str(db), f"{TIME_HEAD}: '9999-01-01T00:00:00Z' (composer {composer}, bubble {prefix}1)")
                          for composer, prefix in [(CURSOR_BAD, "b"), (CURSOR_GOOD, "g")])


def test_a_workspace_composer_tells_its_bad_bubble_counts(isolated_home: Path) -> None:
    from cursor_builders import bubble, make_workspace_db

    bad = bubble("w1", 2, "done", tokens=(100, 0), created="2026-07-25T17:20:05Z", model="gpt-5")
    bad["tokenCount"]["inputTokens"] = 2.5
    db = make_workspace_db(isolated_home, "file:///home/dev/shop", [
        {"composerId": CURSOR_BAD, "name": "inline", "createdAt": CURSOR_T0, "lastUpdatedAt": CURSOR_T0 + 1,
         "conversation": [bubble("w0", 1, "count this"), bad]}])
    for report in tokens_every_way():
        assert [(w["path"], w["message"]) for w in report["warnings"]] == [
            (str(db), f"{USAGE_HEAD}: tokenCount.inputTokens is 2.5, counted as 2 (composer {CURSOR_BAD}, bubble w1)")]
