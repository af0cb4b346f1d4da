"""A Cursor ``beforeReadFile`` whose size limit passes inside its ``"content": "`` key itself,
the read that passed it ending there too (``…"conte``), is stored with its content cut, as
one that passes it inside the string is: it was dropped, the read missing from its call.
Driven through the real reader (``capture.StdinReader``), a pipe read a few bytes at a time."""

from __future__ import annotations

import json
import os
import threading
from types import SimpleNamespace
from typing import Any, Iterator

import pytest

from agentscan.hooks import capture


def read_through(monkeypatch: pytest.MonkeyPatch, raw: bytes, limit: int, size: int) -> tuple[bytes, str | None]:
    """``StdinReader(limit)`` of ``raw`` on a pipe, each read giving at most ``size`` bytes."""
    reader_fd, writer_fd = os.pipe()

    def write() -> None:
        with os.fdopen(writer_fd, "wb") as out:
            out.write(raw)

    writer = threading.Thread(target=write)
    writer.start()
    real = os.read
    shim = SimpleNamespace(**{name: getattr(os, name) for name in dir(os) if not name.startswith("__")})
    shim.read = lambda fd, n: real(fd, min(n, size))
    monkeypatch.setattr(capture, "os", shim)
    with os.fdopen(reader_fd, "rb") as stdin:
        monkeypatch.setattr(capture.sys, "stdin", SimpleNamespace(buffer=stdin))
        try:
            return capture.StdinReader(limit).read(10)
        finally:
            writer.join()


def limits_inside_the_key() -> Iterator[tuple[bytes, int]]:
    content = 'a\\"b "content": "x' * 30
    raw = json.dumps({"hook_event_name": "beforeReadFile", "tool_input": {"content": "y"}, "content": content,
                      "file_path": "/x"}).encode()
    key = raw.rindex(b'"content": "')
    for limit in range(key, key + len(b'"content": "')):
        yield raw, limit


@pytest.mark.parametrize("size", [1, 2, 5, 11])
def test_a_limit_passed_inside_the_content_key_keeps_the_event(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    for raw, limit in limits_inside_the_key():
        with monkeypatch.context() as patch:
            data, problem = read_through(patch, raw, limit, size)
        assert problem is None, (limit, problem)  # before: "payload larger than … bytes, dropped"
        stored: Any = json.loads(data)
        assert stored == {"hook_event_name": "beforeReadFile", "tool_input": {"content": "y"}, "content": "",
                          "file_path": "/x"}, limit


def test_another_event_s_payload_is_still_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.dumps({"hook_event_name": "afterFileEdit", "content": "z" * 300}).encode()
    limit = raw.index(b'"content"') + 3
    assert read_through(monkeypatch, raw, limit, 1)[1] == f"payload larger than {limit} bytes, dropped"


def test_a_payload_that_ends_inside_the_key_is_dropped_not_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = b'{"hook_event_name": "beforeReadFile", "pad": "' + b"p" * 300 + b'", "content": '
    limit = len(raw) - 4  # passed inside the key, and nothing after it comes: no string to cut
    assert read_through(monkeypatch, raw, limit, 1) == (b"", f"payload larger than {limit} bytes, dropped")
