"""``trace --list`` says where each session ran and what it was asked, as ``list`` does.

Its rows were an id, a time and a count: nothing told one captured session from another
short of tracing each.  They now have ``list``'s CWD and TITLE (the first prompt), one line
a row whatever the prompt holds, whole and plain in a pipe, fitted on a terminal.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

from hooks_builders import CONVERSATION, WORKSPACE, Replay, ok, pre, prompt, shell_input, stop


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def sessions(data_dir: Path) -> None:
    cursor = Replay(data_dir)
    cursor.send(pre("Shell", shell_input("ls"), "c-0"), at_ms=0)  # a call before any prompt
    cursor.send(prompt("<user_query>\nfix the flaky\ntest\x1b[31m now\n</user_query>"), at_ms=10)
    cursor.send(stop(), at_ms=20)
    claude = Replay(data_dir, agent="claude")
    claude.send({"hook_event_name": "SessionStart", "session_id": "s-quiet", "cwd": "/home/dev/api",
                 "permission_mode": "default", "source": "startup"}, at_ms=5)


def test_the_list_has_cwd_and_the_first_prompt_whole_in_a_pipe(data_dir: Path) -> None:
    sessions(data_dir)

    lines = ok("trace", "--list").stdout.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "EVENTS", "CWD", "TITLE"]
    assert len(lines) == 3 and "\x1b" not in "".join(lines)  # one line a row, no colour in a pipe
    first, second = (re.split(r"  +", line) for line in lines[1:])
    assert (first[0], first[2:]) == (f"cursor:{CONVERSATION}", ["3", WORKSPACE, "fix the flaky test\ufffd[31m now"])
    assert (second[0], second[2:]) == ("claude:s-quiet", ["1", "/home/dev/api", "-"])  # no prompt yet

    listed = orjson.loads(ok("trace", "--list", "--json").stdout)["sessions"]
    assert [(s["id"], s["cwd"], s["title"]) for s in listed] == [
        (f"cursor:{CONVERSATION}", WORKSPACE, "fix the flaky test\x1b[31m now"),
        ("claude:s-quiet", "/home/dev/api", None),
    ]


def test_redact_hides_the_first_prompt_as_list_redact_does(data_dir: Path) -> None:
    """TITLE is a prompt: ``--redact`` shows its length and hash (it was printed in clear)."""
    sessions(data_dir)
    text = ok("trace", "--list", "--redact").stdout
    assert "flaky" not in text and "[redacted: 27 chars, #" in text
    listed = orjson.loads(ok("trace", "--list", "--redact", "--json").stdout)["sessions"]
    assert listed[0]["title"].startswith("[redacted: 27 chars, #") and listed[1]["title"] is None


def test_updated_names_its_zone_as_list_does(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    sessions(data_dir)
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        header = ok("trace", "--list").stdout.splitlines()[0]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()  # (the process's zone back, for the tests after this one)
    assert header.split()[:3] == ["ID", "UPDATED", "(IST)"]
