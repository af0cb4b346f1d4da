"""Hooks, pass 50 review mends.

* A user's hook whose command runs agentscan's and then, on another line, a command of its own
  (``…\\nnotify-send done``) is the user's: a newline separates commands as ``;`` does.
* Whatever ``hook_command`` writes is agentscan's entry, whatever the path holds (``'``, a
  space, ``$``): a second install finds it installed, an uninstall removes it.
* A Cursor ``beforeReadFile`` just over the limit, whose content ends in the read that passed
  it, is stored with its content left out, as a larger one is.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks.capture import MAX_PAYLOAD
from agentscan.hooks.contentcut import ContentCut
from agentscan.hooks.install import CLAUDE_EVENTS, hook_command, is_ours
from hooks_builders import ok, write_json

# --- a newline ends agentscan's command: what follows is the user's ----------------------------------

MULTILINE = "agentscan hook --agent claude\nnotify-send 'Claude finished'"


@pytest.mark.parametrize("command", [
    MULTILINE,
    "/usr/bin/agentscan hook --agent claude\r\nnotify-send done",
    "/usr/bin/agentscan hook --agent claude --otlp-endpoint http://127.0.0.1:4318\nrm -rf ~/x",
    "agentscan\nhook --agent claude",
    "/usr/bin/agentscan hook --agent claude\n",
])
def test_a_command_on_more_lines_than_one_is_the_user_s(command: str) -> None:
    assert not is_ours({"type": "command", "command": command})


def test_uninstall_and_install_keep_a_user_s_hook_that_runs_agentscan_then_another_command(isolated_home: Path) -> None:
    path = write_json(isolated_home / ".claude" / "settings.json", {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": MULTILINE}]}]}, "model": "opus"})
    before = path.read_bytes()
    # Before: the whole entry, the user's notify-send with it, was removed as agentscan's.
    dry = ok("hooks", "uninstall", "claude", "--dry-run")
    assert "nothing to change (no agentscan hooks)" in dry.stdout
    # Its line break written so (a terminal showed it as nothing readable).
    quoted = "(`agentscan hook --agent claude\\nnotify-send 'Claude finished'`)"
    assert f"your own hook on 1 event runs agentscan hook too {quoted}" in " ".join(dry.stderr.split())
    from agentscan.hooks.status import hooks_report

    [config] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    assert quoted in config["note"] and config["events"] == 0
    ok("hooks", "uninstall", "claude")
    assert path.read_bytes() == before
    installed = ok("hooks", "install", "claude")
    assert f"agentscan hook added to {len(CLAUDE_EVENTS)} claude events" in installed.stdout
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert [hook["command"] for group in stop for hook in group["hooks"]] == [MULTILINE, hook_command("claude")]
    ok("hooks", "uninstall", "claude")
    assert json.loads(path.read_bytes()) == json.loads(before)


# --- what an install writes is agentscan's, whatever its path ---------------------------------------

AWKWARD = ["q'dir", "my tools", "$HOME", "a'b \"c\" $x `y` !z"]


def run_from(monkeypatch: pytest.MonkeyPatch, folder: Path, *, script: bool = True) -> None:
    """This agentscan run as ``folder/agentscan`` (or as ``folder/python -m agentscan``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("python", *(("agentscan",) if script else ())):
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(folder / "agentscan") if script else "-m", "hooks"])
    monkeypatch.setattr(sys, "executable", str(folder / "python"))


@pytest.mark.parametrize("name", AWKWARD)
@pytest.mark.parametrize("script", [True, False])
def test_the_command_an_install_writes_from_any_path_is_agentscan_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, script: bool) -> None:
    run_from(monkeypatch, tmp_path / name / "bin", script=script)
    command = hook_command("claude")
    program = tmp_path / name / "bin" / ("agentscan" if script else "python")
    assert shlex.split(command)[0] == str(program)  # one word for the shell, as it is
    assert is_ours({"type": "command", "command": command})
    assert is_ours({"type": "command", "command": command + " --otlp-endpoint http://127.0.0.1:4318"})
    assert not is_ours({"type": "command", "command": command + " | tee log"})


def test_a_second_install_from_a_path_with_a_quote_finds_it_installed(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_from(monkeypatch, tmp_path / "q'dir")
    ok("hooks", "install", "claude")
    path = isolated_home / ".claude" / "settings.json"
    first = path.read_bytes()
    # Before: "your own hook … runs agentscan hook too", and 21 more entries of ours.
    again = ok("hooks", "install", "claude")
    assert "already installed" in again.stdout and "your own hook" not in again.stderr
    assert path.read_bytes() == first
    assert f"agentscan hook removed from {len(CLAUDE_EVENTS)} claude events" in ok("hooks", "uninstall", "claude").stdout


def test_matching_a_long_command_of_quoted_pieces_takes_no_time() -> None:
    import time

    started = time.monotonic()
    for command in ("'a'" * 20_000 + "x hook --agent", "'a'\"b\"c" * 10_000 + " hook --agent claude" + " 'x'y" * 5000 + "|"):
        assert not is_ours({"command": command})
    assert time.monotonic() - started < 2


# --- a beforeReadFile just over the limit keeps its event ------------------------------------------

def sized(total: int, content_end: int) -> tuple[bytes, int]:
    """A Cursor beforeReadFile of ``total`` bytes whose content string closes at byte
    ``content_end``; and that content's length."""
    from hooks_builders import cursor

    empty = json.dumps(cursor("beforeReadFile", file_path="/work/repo/edge.log", content="", pad="")).encode()
    start = empty.index(b'"content": ""') + len(b'"content": "')
    length = content_end - start
    pad = total - len(empty) - length
    assert length > 0 and pad >= 0
    payload = cursor("beforeReadFile", file_path="/work/repo/edge.log", content="x" * length, pad="p" * pad)
    raw = json.dumps(payload).encode()
    assert len(raw) == total and raw[content_end:content_end + 1] == b'"'
    return raw, length


CASES = [
    (MAX_PAYLOAD + 500, MAX_PAYLOAD + 100),  # the content ends in the read that passes the limit
    (MAX_PAYLOAD + 500, MAX_PAYLOAD - 100),  # it ends before it: the fields after it pass it
    (10 * 1024 * 1024 + 500, 10 * 1024 * 1024 + 100),  # the content passes the limit by 2 MiB
]


@pytest.mark.parametrize(("total", "content_end"), CASES)
@pytest.mark.parametrize("via", ["file", "pipe"])
def test_a_before_read_file_just_over_the_limit_is_stored_with_its_content_cut(
        tmp_path: Path, total: int, content_end: int, via: str) -> None:
    raw, length = sized(total, content_end)
    data_dir = tmp_path / "data"
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "agentscan", "hook", "--agent", "cursor"]
    if via == "file":  # read 1 MiB at a time
        (tmp_path / "payload.json").write_bytes(raw)
        with open(tmp_path / "payload.json", "rb") as stdin:
            assert subprocess.run(command, stdin=stdin, env=env, timeout=60).returncode == 0
    else:  # at most 64 KiB at a time
        assert subprocess.run(command, input=raw, env=env, timeout=60).returncode == 0
    log = (data_dir / "hook-errors.log").read_text()
    # Before: "payload larger than 8388608 bytes, dropped (session …, event beforeReadFile)".
    assert "dropped" not in log and f"beforeReadFile ({length} bytes) was left out and the event stored" in log
    [stored] = [json.loads(line) for path in (data_dir / "events").rglob("*.jsonl")
                for line in path.read_bytes().splitlines()]
    assert stored["payload"]["content"] == f"[redacted: {length} bytes, cut]"
    assert stored["payload"]["pad"] == json.loads(raw)["pad"]


def read_as(raw: bytes, limit: int, size: int) -> Any:
    """What ``capture.StdinReader`` makes of ``raw`` read ``size`` bytes at a time with ``limit``."""
    read = 0
    while read <= limit:
        read = min(read + size, len(raw))
    cut = ContentCut.open_in(raw[:read], limit)
    if cut is None:
        return None
    for at in range(read, len(raw), size):
        if not cut.feed(raw[at:at + size]):
            return None
    payload = cut.payload()
    return None if payload is None else json.loads(payload)


@pytest.mark.parametrize("size", [1, 3, 64, 300, 10_000])
def test_the_cut_keeps_the_event_wherever_the_read_that_passes_the_limit_ends(size: int) -> None:
    content = 'a\\"b\\\\"c' * 40
    raw = json.dumps({"hook_event_name": "beforeReadFile", "content": content, "file_path": "/x", "n": [1]}).encode()
    key = raw.index(b'"content": "')
    opened = key + len(b'"content": "')
    for limit in range(key - 5, len(raw) - 1):
        if key < limit < opened:
            continue  # passed inside the key: cut only when the read that passed it holds the whole key
        if limit >= opened:  # the content string opened before the limit, ends before or after it: cut
            assert read_as(raw, limit, size) == {"hook_event_name": "beforeReadFile", "content": "", "file_path": "/x",
                                                 "n": [1]}, limit
        else:  # passed before it: cut only when the read that passed it ends inside the string
            assert read_as(raw, limit, size) in (None, {"hook_event_name": "beforeReadFile", "content": "",
                                                        "file_path": "/x", "n": [1]})


def test_a_content_string_followed_by_more_than_the_cut_keeps_is_not_cut() -> None:
    from agentscan.hooks.contentcut import AFTER_LIMIT

    raw = json.dumps({"hook_event_name": "beforeReadFile", "content": "c" * 10, "other": "o" * (AFTER_LIMIT + 10)}).encode()
    assert ContentCut.open_in(raw, len(raw) - 5) is None
