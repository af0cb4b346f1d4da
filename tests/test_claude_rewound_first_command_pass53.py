"""A slash command Claude Code ran itself before the first prompt (``/model``) stays in ``show``
when that prompt was edited (a rewind: ``detail.LiveBranch``): the timeline still starts at the
session's first item left, so the command before it is kept, as for a session never rewound
(``toolkit.localcommands``, ``DetailCollector.rewind``)."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from claude_events import SESSION, forward_and_from_end


def _records(edited: bool) -> list[dict]:
    def turn(n: int, text: str) -> list[dict]:
        return [claude_user(SESSION, f"2026-03-01T10:00:0{2 * n}.000Z", text, uuid=f"p{n}", parentUuid="c2"),
                claude_assistant(SESSION, f"2026-03-01T10:00:0{2 * n + 1}.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                 usage=claude_usage(1, 1), uuid=f"a{n}", parentUuid=f"p{n}")]

    return [
        claude_user(SESSION, "2026-03-01T10:00:00.000Z", "<command-name>/model</command-name><command-args></command-args>",
                    uuid="c1", parentUuid=None),
        claude_user(SESSION, "2026-03-01T10:00:01.000Z", "<local-command-stdout>Set model to opus</local-command-stdout>",
                    uuid="c2", parentUuid="c1"),
        *(turn(1, "first try") if edited else []),
        *turn(2, "second try"),  # the edit of the first prompt: it joins the tree where that one did
    ]


def test_a_command_before_an_edited_first_prompt_is_kept(tmp_path: Path) -> None:
    shown = {}
    for edited in (False, True):
        claude_session_file(tmp_path / str(edited), SESSION, _records(edited))
        detail, _, _ = forward_and_from_end(tmp_path / str(edited))
        shown[edited] = detail
    assert [prompt.text for prompt in shown[True].prompts] == ["second try"]
    assert shown[True].extra["rewound_messages"] == 2
    assert [command.text for command in shown[True].local_commands] == ["/model"]
    assert shown[True].local_commands == shown[False].local_commands
