"""Pass 45 (m): mends after the reviewer's read of pass 45.

* ``otlp ID`` said (and failed ``--strict`` over) the discovery warnings of another
  provider's folders while looking its id up, where ``show ID`` and ``tokens ID`` keep only
  those that may concern the session (``scan.showscope``).
* ``tokens`` with no id imported ``scan.showscope`` (and compiled its pattern) for nothing.
* ``otlp`` and its library wrote "give exactly one of --output FILE or --endpoint URL" twice.
* ``show``'s subagent rows wrote their "(no transcript:" three times.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, deny_access, invoke
from hooks_builders import Replay
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

CLAUDE = "48f428f9-0000-4000-8000-000000000001"
CODEX = "019c4545-0000-7000-8000-0000000000c1"


@pytest.fixture
def two_providers(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, CLAUDE, [
        claude_user(CLAUDE, "2026-11-07T10:00:00.000Z", "hello", cwd="/w/p"),
        claude_assistant(CLAUDE, "2026-11-07T10:00:01.000Z", msg_id="m-1", request_id="r-1",
                         usage=claude_usage(100, 10)),
    ], project="-w-p")
    path = rollout_path(isolated_home / ".codex", CODEX, at(0))
    write_rollout(path, [meta(CODEX, at(0)), turn_context(at(1)),
                         token_count(at(2), usage(50, output=5), usage(50, output=5))])
    return path.parent


def test_otlp_id_keeps_only_the_warnings_that_may_concern_it(two_providers: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    deny_access(monkeypatch, two_providers)  # a Codex folder that cannot be listed, on a cold cache
    out = tmp_path / "trace.jsonl"
    result = invoke("--strict", "otlp", CLAUDE[:8], "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "cannot list directory" not in result.stderr
    assert out.read_text()
    # As show and tokens do on the same home.
    for command in (["show"], ["tokens"]):
        shown = invoke("--strict", *command, CLAUDE[:8], "--json")
        assert shown.exit_code == 0, shown.output
        assert orjson.loads(shown.stdout)["warnings"] == []
    # An id matching nothing still names the folder: the session may be in it.
    missing = invoke("otlp", "fedcba98", "-o", str(out))
    assert missing.exit_code == 1
    assert str(two_providers) in missing.stderr, missing.stderr


def test_otlp_of_a_hook_session_alone_keeps_every_warning(two_providers: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Its transcript was not found: it may be in the folder that could not be listed."""
    replay = Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]), agent="claude")
    replay.send({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": "/repo", "prompt": "go"}, at_ms=0)
    replay.send({"hook_event_name": "Stop", "session_id": "s1", "cwd": "/repo"}, at_ms=100)
    deny_access(monkeypatch, two_providers)
    out = tmp_path / "trace.jsonl"
    result = invoke("--strict", "otlp", "claude:s1", CLAUDE[:8], "-o", str(out))
    assert result.exit_code == 1, result.output
    assert f"{two_providers}: cannot list directory" in result.stderr, result.stderr


def test_tokens_with_no_id_does_not_import_showscope() -> None:
    code = ("import sys, agentscan.scan.tokens; before = 'agentscan.scan.showscope' in sys.modules; "
            "import agentscan.scan.showscope as s; print(before, s._named_id.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "0"]  # not imported, and its pattern not compiled until first used


def test_one_sentence_for_output_or_endpoint() -> None:
    from agentscan.otlp import export

    assert export.OUTPUT_OR_ENDPOINT == "give exactly one of --output FILE or --endpoint URL"
    source = Path(__file__).parents[1] / "src" / "agentscan"
    for path in (source / "otlp" / "export.py", source / "cli" / "otlp_commands.py"):
        assert "give exactly one of" not in path.read_text().replace('OUTPUT_OR_ENDPOINT = "give exactly one of', "")


def test_no_transcript_is_written_once() -> None:
    from agentscan.cli import show_subagents

    text = (Path(show_subagents.__file__)).read_text()
    assert text.count('"  (no transcript:') == 1
    assert not hasattr(show_subagents, "subagent_rows")


@pytest.mark.parametrize(("native", "shown"), [
    ("7f3c9a12-4b8e-4c1d-9e2f-0123456789ab", "claude:7f3c9a12"),  # 8 characters
    ("0123456-89abcdef0123", "claude:0123456-8"),  # never ending in a separator: one more
    ("abc-123", "claude:abc-123"),  # shorter than 8: whole
    ("abcdefghij", "claude:abcdefgh"),
    ("sidechain-cd49a45d", "claude:sidechai"),  # a session's id, not a subagent's: no stem kept
])
def test_trace_shortens_a_session_id_by_list_s_rule(native: str, shown: str) -> None:
    # The literal ids: comparing with ``short_ids``, which calls the same ``unique_prefixes``,
    # could not fail (pass 45x); ``list`` shows the same of a session alone of its provider.
    from agentscan.hooks.text import short_session_id
    from agentscan.scan.short_ids import short_ids

    assert short_session_id(f"claude:{native}") == shown
    assert short_ids([("claude", native)]) == {f"claude:{native}": shown}


def test_the_hook_path_and_trace_do_not_import_short_ids() -> None:
    code = ("import sys, agentscan.hooks.text, agentscan.hooks.capture; "
            "print('agentscan.scan.short_ids' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split() == [
        "False"]
