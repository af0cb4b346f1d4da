"""A prompt of images and no text is a prompt: counted, shown and a title as ``[image]``.

Claude Code writes an image pasted alone as a user record whose content is image blocks
only; with words it adds ``[Image #N]`` placeholders to their text.  Such a prompt once
counted as none (``counts 0 prompts``, title ``-``), and the placeholders started the
title.  Codex's ``input_image``-only user message and Gemini's ``inlineData``-only one
likewise.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import REAL, claude_session_file, cli_json, invoke, only_row
from codex_builders import agent_message, assistant_item, at, line, meta, rollout_path, turn_context, write_rollout
from gemini_builders import gemini, meta as gemini_meta, tokens, write_chat

SHORT = REAL / "claude" / "spotter-short-v2.1.38.jsonl"
SHORT_ID = "55604662-cf2a-4331-851a-ec234028f8ca"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def _short_sample(home: Path, content: list) -> None:
    """The real spotter-short session with its prompt (line 4) sent as ``content``."""
    records = [orjson.loads(raw) for raw in SHORT.read_bytes().splitlines() if raw.strip()]
    records[3]["message"]["content"] = content
    claude_session_file(home, SHORT_ID, records, project="-home-marco-projects-spotter")


def test_an_image_sent_alone_is_a_claude_prompt_and_its_title(isolated_home: Path) -> None:
    _short_sample(isolated_home, [IMAGE])
    row = only_row()
    assert row["counts"]["prompts"] == 1 and row["title"] == "[image]"
    card = invoke("show", SHORT_ID[:8]).output
    assert "1 prompt, " in card and "  title    [image]" in card
    assert cli_json("show", SHORT_ID[:8])["session"]["prompts"][0]["text"] == "[image]"


def test_several_images_sent_alone_are_named_by_their_number(isolated_home: Path) -> None:
    _short_sample(isolated_home, [IMAGE, IMAGE])
    assert only_row()["title"] == "[2 images]"


def test_a_claude_title_drops_the_image_placeholders_show_full_keeps_them(isolated_home: Path) -> None:
    _short_sample(isolated_home, [IMAGE, {"type": "text", "text": "[Image #1] why is the header red?"}])
    assert only_row()["title"] == "why is the header red?"
    assert "[Image #1] why is the header red?" in invoke("show", SHORT_ID[:8], "--full").output


def test_a_codex_user_message_of_an_image_alone_is_a_prompt(isolated_home: Path) -> None:
    thread = "019e0000-0000-7000-8000-0000000044a1"
    write_rollout(rollout_path(isolated_home / ".codex", thread, at(0)), [
        meta(thread, at(0)), turn_context(at(1)),
        line(at(2), "response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_image", "image_url": "data:image/png;base64,AA"}]}),
        line(at(2), "event_msg", {"type": "user_message", "message": "", "images": ["data:image/png;base64,AA"]}),
        assistant_item(at(3), "A red header."), agent_message(at(3), "A red header."),
    ])
    row = only_row()
    assert row["counts"]["prompts"] == 1 and row["title"] == "[image]"


def test_a_gemini_user_message_of_an_image_alone_is_a_prompt(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-444444a1.jsonl", [
        gemini_meta("444444a1-0000-4000-8000-000000000001"),
        {"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user",
         "content": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
        gemini("g1", "2026-05-01T10:00:02.000Z", "A red header.", usage=tokens(10, 5)),
    ])
    row = only_row()
    assert row["counts"]["prompts"] == 1 and row["title"] == "[image]"


def test_an_image_queued_alone_is_a_claude_prompt() -> None:
    from agentscan.providers.claude.queuedprompts import queued_prompt_text

    queued = {"type": "attachment", "attachment": {"type": "queued_command", "prompt": [IMAGE]}}
    assert queued_prompt_text(queued) == "[image]"
