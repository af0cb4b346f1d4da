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
