"""Mends to the pass that made a prompt of images alone a prompt and counted interruptions
(code review s44): a Codex tally of line kinds kept before is not taken (its prompts missed
those images); a prompt of images alone names a session only when no prompt of words does
(a screenshot pasted first, its question typed next, was titled ``[image]``); codex-rs's
``<image name=[Image #1]>`` … ``</image>`` tags are no words of the user's; Gemini's empty
text parts beside an image are no text, as Claude's and Codex's are not; and the card counts
every interruption, not only the newest kept."""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path

import orjson
import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tailfacts import TailFacts
from agentscan.scan.scanner import Scanner
from builders import REAL, claude_session_file, claude_user, cli_json, invoke, only_row
from claude_events import forward_and_from_end
from codex_builders import (agent_message, assistant_item, at, line, meta, rollout_path, turn_context, user_item,
                            user_message, write_rollout)
from gemini_builders import gemini, meta as gemini_meta, tokens, write_chat

SHORT = REAL / "claude" / "spotter-short-v2.1.38.jsonl"
SHORT_ID = "55604662-cf2a-4331-851a-ec234028f8ca"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
THREAD = "019e0000-0000-7000-8000-0000000044c1"
INPUT_IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AA"}


def _index(home: Path) -> Path:
    return home.parent / "agentscan-cache" / "index.sqlite"


# -- 1. a Codex tally of line kinds kept before images counted --------------------------------


def _large_rollout_with_an_image_prompt(home: Path, turns: int = 120) -> None:
    """``turns`` prompts, the 11th an image alone (before ``list``'s window of the last 1 MiB)."""
    records = [meta(THREAD, at(0))]
    pad = "x" * 9000
    for turn in range(turns):
        moment = at(1 + 2 * turn)
        records.append(turn_context(moment))
        if turn == 10:
            records.append(line(moment, "response_item", {"type": "message", "role": "user", "content": [INPUT_IMAGE]}))
            records.append(line(moment, "event_msg", {"type": "user_message", "message": "", "images": ["AA"]}))
        else:
            records += [user_item(moment, f"prompt {turn}"), user_message(moment, f"prompt {turn}")]
        records += [assistant_item(at(2 + 2 * turn), "reply " + pad), agent_message(at(2 + 2 * turn), "reply " + pad)]
    path = write_rollout(rollout_path(home / ".codex", THREAD, at(0)), records)
    assert path.stat().st_size > 2 * 1024 * 1024


def _forget_rows(home: Path) -> None:
    with sqlite3.connect(_index(home)) as conn:
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")


def _row() -> dict:
    (row,) = cli_json("list", "--all")["sessions"]
    return row


def test_a_codex_tally_kept_before_images_counted_is_not_taken(isolated_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A "7" (as the build before kept it: the image prompt not counted, 119 of 120) is not the
    row's count: the row is its window's, partial, until a whole pass keeps an "8"."""
    from agentscan.providers.codex import fullcounts

    _large_rollout_with_an_image_prompt(isolated_home)
    current = fullcounts.VERSION
    monkeypatch.setattr(fullcounts, "VERSION", "7")
    assert cli_json("show", THREAD)["session"]["counts"]["prompts"] == 120  # (a whole pass: its tally kept)
    with sqlite3.connect(_index(isolated_home)) as conn:
        (key, state), = conn.execute("SELECT rowid, state FROM files WHERE kind='codex.counts'").fetchall()
        document = orjson.loads(state)
        document["kinds"]["prompts"] -= 1  # what that build counted: the image was no prompt
        conn.execute("UPDATE files SET state=? WHERE rowid=?", (orjson.dumps(document), key))
    _forget_rows(isolated_home)
    assert _row()["counts"]["prompts"] == 119 and _row()["counts_partial"] is False  # (the "7" believed by its build)
    monkeypatch.setattr(fullcounts, "VERSION", current)
    _forget_rows(isolated_home)  # (as the parser version's bump does)
    row = _row()
    assert row["counts_partial"] is True and row["counts"]["prompts"] != 119
    assert cli_json("show", THREAD)["session"]["counts"]["prompts"] == 120
    row = _row()
    assert row["counts_partial"] is False and row["counts"]["prompts"] == 120


# -- 2. a prompt of images alone is the title only when no prompt of words is -----------------


def _claude_image_then_words(home: Path) -> None:
    """The real spotter-short session with a screenshot pasted alone before its first prompt."""
    records = [orjson.loads(raw) for raw in SHORT.read_bytes().splitlines() if raw.strip()]
    image = copy.deepcopy(records[3])
    image["message"]["content"], image["uuid"] = [IMAGE], "aaaaaaaa-0000-4000-8000-000000000001"
    records[3]["parentUuid"] = image["uuid"]
    records.insert(3, image)
    claude_session_file(home, SHORT_ID, records, project="-home-marco-projects-spotter")


def test_a_claude_image_pasted_before_the_question_leaves_the_title_to_the_question(isolated_home: Path) -> None:
    _claude_image_then_words(isolated_home)
    row = only_row()
    assert row["counts"]["prompts"] == 2 and row["title"] == "mix phx.server doesnt seem to start"
    scanner = Scanner(home=isolated_home, env={}, use_cache=False)
    provider = scanner.provider("claude")
    (ref,) = provider.discover(scanner.ctx)
    found = ClaudeProvider().table_facts(ref, scanner.ctx)  # (the title read from the file's ends)
    assert found is not None and found.title == "mix phx.server doesnt seem to start"


def test_a_claude_image_alone_titles_a_session_of_no_words_before_a_bare_command(isolated_home: Path) -> None:
    records = [claude_user(SHORT_ID, "2026-02-10T10:00:00.000Z", "<command-name>/model</command-name>"),
               claude_user(SHORT_ID, "2026-02-10T10:00:01.000Z", [IMAGE])]
    claude_session_file(isolated_home, SHORT_ID, records)
    assert only_row()["title"] == "[image]"


def test_a_codex_image_pasted_before_the_question_leaves_the_title_to_the_question(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1)),
        line(at(2), "response_item", {"type": "message", "role": "user", "content": [INPUT_IMAGE]}),
        line(at(2), "event_msg", {"type": "user_message", "message": "", "images": ["AA"]}),
        assistant_item(at(3), "A red header."), agent_message(at(3), "A red header."),
        user_item(at(4), "why is it red?"), user_message(at(4), "why is it red?"),
        assistant_item(at(5), "A style."), agent_message(at(5), "A style."),
    ])
    row = only_row()
    assert row["counts"]["prompts"] == 2 and row["title"] == "why is it red?"


def test_a_gemini_image_sent_before_the_question_leaves_the_title_to_the_question(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-444444c1.jsonl", [
        gemini_meta("444444c1-0000-4000-8000-000000000001"),
        {"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user",
         "content": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
        gemini("g1", "2026-05-01T10:00:02.000Z", "A red header.", usage=tokens(10, 5)),
        {"id": "u2", "timestamp": "2026-05-01T10:00:03.000Z", "type": "user", "content": [{"text": "why is it red?"}]},
        gemini("g2", "2026-05-01T10:00:04.000Z", "A style.", usage=tokens(10, 5)),
    ])
    row = only_row()
    assert row["counts"]["prompts"] == 2 and row["title"] == "why is it red?"


# -- 3. codex-rs's image tags ------------------------------------------------------------------


def _tagged(*blocks: dict) -> dict:
    return {"type": "message", "role": "user", "content": list(blocks)}


def _text(text: str) -> dict:
    return {"type": "input_text", "text": text}


def test_codex_image_tags_are_no_words_of_the_users() -> None:
    """As current codex-rs writes an attached image: an open tag, the image, ``</image>``."""
    from agentscan.providers.codex.records import item_prompt

    named = _text("<image name=[Image #1]>")
    assert item_prompt(_tagged(named, INPUT_IMAGE, _text("</image>"))) == "[image]"
    assert item_prompt(_tagged(_text('<image name=[Image #1] path="/tmp/a.png">'), INPUT_IMAGE, _text("</image>"),
                               _text("<image>"), INPUT_IMAGE, _text("</image>"))) == "[2 images]"
    assert item_prompt(_tagged(named, INPUT_IMAGE, _text("</image>"), _text("why is it red?"))) == "why is it red?"
    # Tags away from an image are the user's words (Codex drops them only beside one).
    assert item_prompt(_tagged(_text("</image>"), INPUT_IMAGE)) == "</image>"


def test_a_codex_tagged_image_prompt_is_shown_and_titled_without_its_tags(isolated_home: Path) -> None:
    tagged = _tagged(_text("<image name=[Image #1]>"), INPUT_IMAGE, _text("</image>"), _text("why is it red?"))
    write_rollout(rollout_path(isolated_home / ".codex", THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1)), line(at(2), "response_item", tagged),
        assistant_item(at(3), "A style."),
    ])
    assert only_row()["title"] == "why is it red?"
    assert [p["text"] for p in cli_json("show", THREAD)["session"]["prompts"]] == ["why is it red?"]


# -- 6. Gemini's empty text beside an image ----------------------------------------------------


@pytest.mark.parametrize("message", [
    {"content": [{"text": ""}, {"inlineData": {"mimeType": "image/png", "data": "AA"}}]},
    {"content": [{"inlineData": {"mimeType": "image/png", "data": "AA"}}], "displayContent": [{"text": " "}]},
])
def test_a_gemini_image_beside_empty_text_is_a_prompt(message: dict) -> None:
    from agentscan.providers.gemini.records import prompt_text

    assert prompt_text({"type": "user", **message}) == "[image]"


# -- 4. every interruption counted, the newest kept ----------------------------------------------


def _interrupted_thrice(home: Path) -> None:
    records = []
    for minute in range(3):
        records.append(claude_user(SHORT_ID, f"2026-02-10T10:0{minute}:00.000Z", f"step {minute}"))
        records.append(claude_user(SHORT_ID, f"2026-02-10T10:0{minute}:30.000Z", "[Request interrupted by user]"))
    claude_session_file(home, SHORT_ID, records)


def test_the_card_counts_every_interruption_json_lists_the_newest(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import detail

    monkeypatch.setattr(detail, "INTERRUPTIONS_KEPT", 2)
    _interrupted_thrice(isolated_home)
    assert "3 prompts, 0 responses, 0 tool calls, 3 interrupted" in invoke("show", SHORT_ID[:8]).output
    session = cli_json("show", SHORT_ID[:8])["session"]
    assert session["interrupted"] == 3
    assert [stop["timestamp"] for stop in session["interruptions"]] == ["2026-02-10T10:01:30.000Z",
                                                                         "2026-02-10T10:02:30.000Z"]


def test_a_huge_claude_transcript_read_from_its_end_counts_every_interruption(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider as claude_provider
    from agentscan.toolkit import detail

    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(detail, "INTERRUPTIONS_KEPT", 2)
    _interrupted_thrice(isolated_home)
    forward, tail, _ = forward_and_from_end(isolated_home)
    assert tail is not None
    assert forward.extra["interrupted"] == tail.extra["interrupted"] == 3
    assert tail.extra["interruptions"] == forward.extra["interruptions"] and len(forward.extra["interruptions"]) == 2


def test_show_facts_count_the_interruptions_they_do_not_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import detail

    monkeypatch.setattr(detail, "INTERRUPTIONS_KEPT", 1)

    def interrupted(times: int) -> ShowFacts:
        facts = ShowFacts()
        for second in range(times):
            facts.feed({"type": "user", "timestamp": f"2026-02-10T10:00:0{second}.000Z",
                        "message": {"role": "user", "content": "[Request interrupted by user]"}})
        return facts

    first, second = interrupted(2), interrupted(3)
    assert (first.interrupted, len(first.interruptions)) == (2, 1)
    first.join_interruptions(second)  # (a split pass's halves)
    assert (first.interrupted, len(first.interruptions)) == (5, 1)
    again = ShowFacts()
    again.load_state(orjson.loads(orjson.dumps(first.to_state())))
    assert again.interrupted == 5 and again.interruptions == first.interruptions
    kept = TailFacts(1, 0, 0, 0, 0, 1, 0, 1, None, {}, {}, [], 0, (), (("Request interrupted by user", None),), 5)
    assert TailFacts.from_json(orjson.loads(orjson.dumps(kept.to_json()))) == kept


def test_gemini_counts_every_cancelled_request(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.gemini import detail as gemini_detail
    from agentscan.toolkit import detail

    monkeypatch.setattr(detail, "INTERRUPTIONS_KEPT", 1)
    monkeypatch.setattr(gemini_detail, "INTERRUPTIONS_KEPT", 1, raising=False)
    records: list = [gemini_meta("444444c2-0000-4000-8000-000000000001")]
    for index in range(3):
        records.append({"id": f"u{index}", "timestamp": f"2026-05-01T10:00:0{2 * index}.000Z", "type": "user",
                        "content": [{"text": f"step {index}"}]})
        records.append({"id": f"i{index}", "timestamp": f"2026-05-01T10:00:0{2 * index + 1}.000Z", "type": "info",
                        "content": "Request cancelled."})
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-444444c2.jsonl", records)
    session = cli_json("show", "444444c2")["session"]
    assert session["interrupted"] == 3 and len(session["interruptions"]) == 1
    assert "3 interrupted" in invoke("show", "444444c2").output
