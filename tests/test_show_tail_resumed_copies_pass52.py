"""``show`` of a huge resumed Claude transcript from its end (``providers.claude.tail``)
stops at the copied records at its head once every item of the session's own is read:
the copies come before all of its own records, so nothing older is wanted."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import tail as tail_module
from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from claude_events import taken_back_unknown

EARLIER = "aaaaaaaa-0000-4000-8000-000000000001"
RESUMED = "bbbbbbbb-0000-4000-8000-000000000002"


def _command(name: str) -> str:
    return f"<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n<command-args></command-args>"


def test_the_copies_at_the_head_are_not_read(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    copies = []
    for n in range(200):
        stamp = f"2026-11-01T10:{n // 60:02}:{n % 60:02}.000Z"
        copies.append(claude_user(EARLIER, stamp, f"earlier prompt {n}", uuid=f"ua{n}"))
        copies.append(claude_assistant(EARLIER, stamp, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(5, 1),
                                       blocks=[{"type": "text", "text": f"earlier answer {n}"}], uuid=f"aa{n}"))
    claude_session_file(isolated_home, EARLIER, copies)
    own = [claude_user(RESUMED, "2026-11-02T10:00:00.000Z", _command("model"), uuid="uc"),
           claude_user(RESUMED, "2026-11-02T10:00:01.000Z", "my own prompt", uuid="ub1"),
           claude_assistant(RESUMED, "2026-11-02T10:00:02.000Z", msg_id="mb1", request_id="rb1",
                            usage=claude_usage(5, 1), blocks=[{"type": "text", "text": "own answer"}], uuid="ab1")]
    claude_session_file(isolated_home, RESUMED, copies + own)

    read = [0]
    reader = tail_module.records_newest_first

    def counting(*args, **kwargs):
        for item in reader(*args, **kwargs):
            read[0] += 1
            yield item

    monkeypatch.setattr(tail_module, "records_newest_first", counting)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    ref = next(ref for ref in provider.discover(ctx) if ref.native_id == RESUMED)
    row = provider.row(ref, ctx)
    detail = provider.detail_with_row(ref, ctx, Bounds(), row)
    assert detail is not None and read[0] > 0  # (read from the end)
    assert read[0] <= len(own) + 1, read[0]  # its own records and the newest copy, not the 400 copies
    assert [prompt.text for prompt in detail.prompts] == ["my own prompt"]
    assert [response.text for response in detail.responses] == ["own answer"]
    assert [command.text for command in detail.local_commands] == ["/model"]  # (before the first item: kept)
    forward = ClaudeProvider().detail(ref, ScanContext.create(home=isolated_home, env={}), Bounds())
    taken_back_unknown(detail, forward)
    assert detail == forward
