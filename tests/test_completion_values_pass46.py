"""Shell completion of the values a few options take (pass 46): ``--provider``/``-p`` (after a
comma too), ``tokens --by`` and ``tokens --sort``, as ``gh``'s users expect of fixed choices."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agentscan.cli.options import completing, provider_names


def _complete(words: str) -> list[str]:
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {**os.environ, "_AGENTSCAN_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    done = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'agentscan'; "
                           "from agentscan.entry import main; main()"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(("words", "offered"), [
    ("agentscan tokens --by ", ["session", "day", "week", "month", "model", "provider", "cwd", "agent"]),
    ("agentscan tokens --by mo", ["month", "model"]),
    ("agentscan tokens --sort c", ["cost"]),
    ("agentscan list -p ", ["claude", "codex", "gemini", "cursor"]),
    ("agentscan tokens --provider ge", ["gemini"]),
])
def test_a_shell_is_offered_the_values(words: str, offered: list[str]) -> None:
    assert _complete(words) == offered


def test_a_comma_list_completes_its_last_name() -> None:
    assert completing(provider_names)("claude,c") == ["claude,claude", "claude,codex", "claude,cursor"]


def test_a_session_id_is_offered_from_the_home_read(isolated_home) -> None:  # noqa: ANN001
    # ``show <TAB>`` (and ``tokens``): the newest sessions' ids, of the home a global option names
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    native = "c0ffee00-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1))])
    assert _complete("agentscan show c0f") == [native]
    assert _complete("agentscan tokens claude:c0") == [f"claude:{native}"]
    assert _complete("agentscan show zz") == []
    assert _complete("agentscan --demo show 7f3c") == ["7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"]
    assert _complete("agentscan show --demo c0f") == []  # (the demo's sessions, not this home's)
