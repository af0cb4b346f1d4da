"""A resumed Claude session's row notes the session it was resumed from as holding records of
its own (``continuations.note``) only once a record naming it is met (``own_met``), as the
cold read (``continuations.named_before_own``) decides: a record naming no session after the
copies (a file-history snapshot) is none of its own."""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.providers.claude import continuations
from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

EARLIER = "aaaaaaaa-2222-4000-8000-000000000052"
RESUMED = "bbbbbbbb-2222-4000-8000-000000000052"


def _noted(home: Path, path: Path) -> object:
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=home, env={})
    ref = next(ref for ref in provider.discover(ctx) if ref.native_id == RESUMED)
    provider.row(ref, ctx)
    stat = ctx.stat(str(path))
    assert stat is not None
    return ctx.remembered(continuations.FACTS).get(str(path), stat)


def test_a_record_naming_no_session_is_none_of_its_own(isolated_home: Path) -> None:
    copies = [claude_user(EARLIER, "2026-11-01T10:00:00.000Z", "earlier prompt", uuid="u1"),
              claude_assistant(EARLIER, "2026-11-01T10:00:01.000Z", msg_id="m1", request_id="r1",
                               usage=claude_usage(5, 1), uuid="a1")]
    claude_session_file(isolated_home, EARLIER, copies)
    snapshot = {"type": "file-history-snapshot", "messageId": "x1", "isSnapshotUpdate": False,
                "snapshot": {"messageId": "x1", "trackedFileBackups": {}, "timestamp": "2026-11-02T10:00:00.000Z"}}
    path = claude_session_file(isolated_home, RESUMED, [*copies, snapshot])
    assert _noted(isolated_home, path) is None

    claude_session_file(isolated_home, RESUMED, [*copies, snapshot,
                                                 claude_user(RESUMED, "2026-11-02T10:00:01.000Z", "mine", uuid="u2")])
    noted = _noted(isolated_home, path)
    assert isinstance(noted, dict) and noted["named"] == EARLIER and noted["own"] is True
