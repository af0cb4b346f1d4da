"""Files that change while agentscan reads them: deleted, made unreadable, appended to.

Agents write their session files while we read them, and users delete
sessions at any moment.  Rather than guess where that can hurt, the fault
tests count every file-system touch (open, list, stat) one scan makes under
the home, then replay the scan once per touch, deleting (or denying) that
path right there.  Whatever the timing, a scan ends normally: problems are
warnings.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import shutil
from pathlib import Path
from typing import Callable, Iterator

import orjson
import pytest

from agentscan.toolkit import jsonl
from agentscan.scan.scanner import Scanner
from agentscan.errors import SessionNotFound, TranscriptUnreadable
from agentscan.scan.tokens import token_report
from bad_corpus import PROVIDERS, case, lay_out, no_internal_errors
from builders import claude_assistant, claude_subagent_file, claude_usage
from codex_builders import at, index_row, write_state_db
from cursor_builders import bubble, composer_data, make_state_db, state_db_path, write_chat_store

# Many generated cases each: run by .ci/run (`-m slow`), not by the default test command.
pytestmark = pytest.mark.slow

IDE_ONLY = "1de00000-0000-4000-8000-0000000000aa"
MAX_POINTS = 16  # touches replayed per scenario (evenly spread when there are more)


def _home(home: Path, provider: str) -> list[str]:
    """Two sessions of ``provider`` plus every side store it reads; returns their ids."""
    items = [case(provider, "clean"), case(provider, "invalid-json")]
    placed = lay_out(home, items)
    first = items[0]
    if provider == "claude":
        claude_subagent_file(home, first.native_id, "a1", [claude_assistant(
            first.native_id, "2026-01-02T10:00:05Z", msg_id="m-sub", request_id="r-sub", usage=claude_usage(1, 2))],
            project="-work-bad-input", meta={"agentType": "explore"})
    elif provider == "codex":
        write_state_db(home / ".codex" / "state_5.sqlite", [
            index_row(item.native_id, placed[item.id], created=at(0), updated=at(9), title="from the index") for item in items])
    elif provider == "gemini":
        (home / ".gemini" / "projects.json").write_text('{"projects": {"/work/bad-input": "bad-input"}}')
        (home / ".gemini" / "tmp" / "bad-input" / "logs.json").write_text("[]")
    else:
        make_state_db(state_db_path(home), composers=[
            composer_data(first.native_id, name="from the db", bubbles=["b1"]),
            composer_data(IDE_ONLY, name="ide only", bubbles=["q1"])],
            bubbles={first.native_id: [bubble("b1", 2, "x", tokens=(5, 6))], IDE_ONLY: [bubble("q1", 1, "hi", tokens=(1, 1))]})
        write_chat_store(home, "/work/bad-input", items[1].native_id, meta={"cwd": "/work/bad-input"}, store={"name": "cli"})
    return [item.id for item in items] + ([f"cursor:{IDE_ONLY}"] if provider == "cursor" else [])


class Touches:
    """Counts touches under ``home``; at touch ``at`` it deletes the path, or denies it from then on."""

    def __init__(self, home: Path, at: int | None = None, mode: str = "delete") -> None:
        self.home, self.at, self.mode, self.count = str(home), at, mode, 0
        self.denied: str | None = None

    def touch(self, path: object) -> None:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return  # a file descriptor
        text = os.fsdecode(path)
        if not text.startswith(self.home):
            return
        if self.denied is not None and (text == self.denied or text.startswith(self.denied + os.sep)):
            raise PermissionError(errno.EACCES, "Permission denied", text)
        self.count += 1
        if self.count != self.at or text == self.home:
            return
        if self.mode == "deny":
            self.denied = text
            raise PermissionError(errno.EACCES, "Permission denied", text)
        if os.path.isdir(text) and not os.path.islink(text):
            shutil.rmtree(text)
        elif os.path.lexists(text):
            os.remove(text)

    def wrap(self, real: Callable) -> Callable:
        def wrapper(path: object = ".", *args: object, **kwargs: object) -> object:
            self.touch(path)
            return real(path, *args, **kwargs)

        return wrapper


@pytest.fixture
def touches(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Touches | None], None]]:
    """Install a ``Touches`` over ``open``, ``os.scandir`` and ``os.stat`` (what pathlib uses
    too); ``None`` puts the real functions back."""
    real = {"open": builtins.open, "scandir": os.scandir, "stat": os.stat}

    with monkeypatch.context() as patch:  # (undone on its own: not the isolated home with it)
        def install(counter: Touches | None) -> None:
            wrap = counter.wrap if counter is not None else (lambda function: function)
            opener = wrap(real["open"])
            patch.setattr(builtins, "open", opener)
            patch.setattr(io, "open", opener)
            patch.setattr(os, "scandir", wrap(real["scandir"]))
            patch.setattr(os, "stat", wrap(real["stat"]))

        yield install


def _scan(home: Path, env: dict[str, str], command: str, ids: list[str], cache: bool) -> None:
    with Scanner(home=home, env=env, use_cache=cache) as scanner:
        if command == "list":
            scanner.list_sessions()
        elif command == "tokens":
            token_report(scanner)
        else:
            for session_id in ids:
                try:
                    scanner.show(session_id)
                except SessionNotFound:
                    pass  # the session itself was deleted before discovery: "not found" is right
                except TranscriptUnreadable:
                    pass  # its transcript could not be read (denied): said as that, never empty
        assert no_internal_errors(scanner.warnings), scanner.warnings


def _points(total: int) -> list[int]:
    if total <= MAX_POINTS:
        return list(range(1, total + 1))
    step = total / MAX_POINTS
    return sorted({1 + int(i * step) for i in range(MAX_POINTS)})


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("command", ["list", "show", "tokens"])
@pytest.mark.parametrize("mode", ["delete", "deny"])
def test_a_path_that_vanishes_at_any_moment_is_never_fatal(
    tmp_path: Path, touches: Callable[[Touches | None], None], provider: str, command: str, mode: str
) -> None:

    template = tmp_path / "template"
    template.mkdir()
    ids = _home(template, provider)
    counter = Touches(template)
    touches(counter)
    env = {"XDG_CONFIG_HOME": str(template / ".config"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache0")}
    _scan(template, env, command, ids, cache=False)
    touches(None)
    assert counter.count > 10, "the scan touched nothing: the counter is not wired in"
    for point in _points(counter.count):
        # No cache; a cold one (parsing and storing as the path goes); a warm one
        # (cached state that still names the gone path).
        for cache in ("none", "cold", "warm"):
            home = tmp_path / f"run-{point}-{cache}"
            shutil.copytree(template, home, symlinks=True, copy_function=os.link)  # cheap; unlinking spares the template
            env = {"XDG_CONFIG_HOME": str(home / ".config"), "AGENTSCAN_CACHE_DIR": str(tmp_path / f"cache-{point}-{cache}")}
            if cache == "warm":
                _scan(home, env, command, ids, cache=True)
            touches(Touches(home, point, mode))
            _scan(home, env, command, ids, cache=cache != "none")  # must not raise
            touches(None)
            shutil.rmtree(home)


# -- appended while read --------------------------------------------------------------

APPENDED = {
    "claude": b'{"type":"assistant","sessionId":"S","timestamp":"2026-01-02T10:05:00.000Z","requestId":"r-late",'
              b'"message":{"id":"m-late","role":"assistant","model":"m","content":[],"usage":{"input_tokens":7,"output_tokens":3}}}\n',
    "codex": b'{"timestamp":"2026-01-03T11:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":'
             b'{"last_token_usage":{"input_tokens":7,"output_tokens":3,"total_tokens":10}}}}\n',
    "gemini": b'{"id":"m-late","timestamp":"2026-01-04T10:05:00.000Z","type":"gemini","content":"late",'
              b'"tokens":{"input":7,"output":3,"cached":0,"thoughts":0,"tool":0,"total":10}}\n',
    "cursor": b'{"role":"user","message":{"content":[{"type":"text","text":"<user_query>late</user_query>"}]}}\n',
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_file_appended_to_while_it_is_read(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, provider: str) -> None:
    """Mid-read, the agent appends a whole line and then half of another, as a live session does."""
    item = case(provider, "clean")
    path = lay_out(isolated_home, [item])[item.id]
    late = APPENDED[provider]
    real_open_binary = jsonl.open_binary
    appended = []

    class Growing(io.BufferedReader):
        def readline(self, size: int = -1) -> bytes:  # type: ignore[override]
            line = super().readline(size)
            if not appended:
                appended.append(True)
                with real_open(path, "ab") as writer:  # the agent's own handle
                    writer.write(late + late[: len(late) // 2])
            return line

    real_open = builtins.open

    def open_growing(target: Path, *args: int) -> io.BufferedReader:
        if target == path and not appended:
            return Growing(io.FileIO(target, "rb"))
        return real_open_binary(target, *args)

    monkeypatch.setattr(jsonl, "open_binary", open_growing)
    with Scanner(home=isolated_home, env={}) as scanner:
        (row,) = scanner.list_sessions()
        report = token_report(scanner)
        detail = scanner.show(item.id)
    assert appended, "the read never started"
    assert row.title == detail.row.title == item.title
    spent = report.total.total if report.total else None
    # The complete appended line counts (or the read ended before it, when buffered); never more.
    if item.expected is not None:
        assert spent in (item.expected, item.expected + 10)
    torn = [w for w in scanner.warnings if w.path == str(path)]
    assert all(w.message == "truncated last line skipped (file still being written?)" for w in torn), torn
    # Once the agent finishes the line, a fresh scan counts both late calls exactly.
    with open(path, "ab") as writer:
        writer.write(late[len(late) // 2:])
    with Scanner(home=isolated_home, env={}) as scanner:
        final = token_report(scanner).total
        lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        # Nothing was torn any more; only a price warning may remain (the late calls' made-up model).
        assert [w for w in scanner.warnings if not w.path.startswith("model:")] == []
    assert len(lines) == len(item.source.read_bytes().splitlines()) + 2
    if item.expected is not None:  # the same line twice is one call written twice: it counts once
        assert final is not None and final.total == item.expected + 10
