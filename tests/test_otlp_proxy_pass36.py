"""A send that goes through a proxy and fails says so (OTLP review s36, F7): with
``http_proxy`` set and no ``no_proxy``, a collector running on localhost got nothing, and
the message blamed it ("is the server running, on this port?") without a word of the proxy."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.otlp.sender import proxy_for
from otlp_builders import claude_delegating_session, otlp
from test_otlp_review_fixes import _closed_port


def test_a_failed_send_through_a_proxy_names_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_delegating_session(isolated_home)
    proxy = _closed_port()
    monkeypatch.setenv("http_proxy", f"http://user:secret@127.0.0.1:{proxy}")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    result = otlp("--endpoint", f"http://127.0.0.1:{_closed_port()}", "--retries", "0")
    assert result.exit_code == 1
    assert f"through the proxy http://***@127.0.0.1:{proxy} (http_proxy; no_proxy=127.0.0.1 bypasses it)" in result.stderr
    assert "secret" not in result.stderr


def test_no_proxy_is_no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://proxy.example:3128")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    assert proxy_for("http://127.0.0.1:4318/v1/traces") is None
    assert proxy_for("http://collector.example:4318/v1/traces") == (
        "http://proxy.example:3128 (http_proxy; no_proxy=collector.example bypasses it)")
    monkeypatch.delenv("http_proxy")
    assert proxy_for("http://collector.example:4318/v1/traces") is None
