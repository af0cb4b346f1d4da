"""``records.ran_command_text`` runs on every user record that is no prompt, tool results most
of them: a list of blocks is told by its first text block before their text is joined, and
answers as the joined text would."""

from __future__ import annotations

import pytest

from agentscan.providers.claude.records import ran_command_text

COMMAND = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>"


def _user(content: object) -> dict:
    return {"type": "user", "message": {"role": "user", "content": content}}


@pytest.mark.parametrize(("content", "expected"), [
    (COMMAND, "/model opus"),
    ([{"type": "text", "text": COMMAND}], "/model opus"),
    ([{"type": "tool_result", "tool_use_id": "t1", "content": COMMAND}], None),  # (no text block)
    ([{"type": "text", "text": "  \n"}, {"type": "text", "text": COMMAND}], "/model opus"),  # (joined: blank first)
    ([{"type": "text", "text": "<command-"}, {"type": "text", "text": COMMAND[9:]}], "/model opus"),  # (split tag)
    ([{"type": "text", "text": "look at " + COMMAND}], None),
    ([{"type": "image"}, {"type": "text", "text": COMMAND}], "/model opus"),
    (None, None),
])
def test_a_command_is_told_as_the_joined_text_tells_it(content: object, expected: str | None) -> None:
    assert ran_command_text(_user(content)) == expected
    system = {"type": "system", "subtype": "local_command", "content": content}
    assert ran_command_text(system) == expected
