"""`agentscan otlp --endpoint` against collectors that misbehave or endpoints that cannot work:
every failure is one line and the contract's exit code, never a traceback, and no secret is echoed."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from otlp_builders import Receiver, claude_delegating_session, no_proxy  # noqa: F401 - no_proxy is a fixture
from agentscan.cli import app
from agentscan.errors import SendFailed, UsageProblem
from agentscan.otlp import sender
from agentscan.otlp.spans import ExportTrace, Span

pytestmark = pytest.mark.usefixtures("no_proxy")
runner = CliRunner()


@pytest.fixture
def session(isolated_home: Path) -> Path:
    claude_delegating_session(isolated_home)
    return isolated_home


def a_trace() -> ExportTrace:
    span = Span("0" * 31 + "1", "0" * 15 + "1", None, "invoke_agent claude-code", 1, 1, 2)
    return ExportTrace({"service.name": "claude-code"}, [span], "claude:s")


class RawListener:
    """127.0.0.1 on an ephemeral port: reads each request, answers ``reply`` as raw bytes and closes.
    What a port that is not an OTLP/HTTP collector does (a gRPC port, a broken proxy)."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.sock.getsockname()[1]

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(1 << 20)
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def __enter__(self) -> RawListener:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


def run_otlp(*args: str) -> Any:
    return runner.invoke(app, ["otlp", *args])


def one_line_error(result: Any, code: int) -> str:
    """The CLI failed with ``code`` through a domain error (one ``error:`` line), not an exception."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


# --- replies that are not HTTP -----------------------------------------------------------


def test_a_port_that_does_not_speak_http_is_a_send_failure_not_a_traceback(session: Path) -> None:
    # A gRPC port (4317) answers an HTTP/1.1 request with HTTP/2 frames: http.client's
    # BadStatusLine is no OSError, and it escaped as a traceback.
    with RawListener(b"\x00\x00\x12\x04\x00\x00\x00\x00\x00HELLO\r\n\r\n") as listener:
        with pytest.raises(SendFailed):
            sender.send([a_trace()], listener.url, protocol="json", retries=1, sleep=lambda s: None)
        url = listener.url
        line = one_line_error(run_otlp("--endpoint", url, "--retries", "0", "--protocol", "json"), 1)
    assert url in line and "not HTTP" in line


def test_a_cut_reply_after_a_2xx_counts_as_acknowledged(session: Path) -> None:
    # The status line said 200: the collector took the batch.  A body cut short (IncompleteRead,
    # also no OSError) loses only its partialSuccess, and must not resend the batch or crash.
    reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    with RawListener(reply) as listener:
        result = sender.send([a_trace()], listener.url, protocol="json", retries=0, sleep=lambda s: None)
    assert (result.requests, result.spans) == (1, 1)


# --- endpoints that cannot work are usage errors ---------------------------------------------


@pytest.mark.parametrize("endpoint", [
    "http://127.0.0.1:abc",  # http.client.InvalidURL: nonnumeric port
    "http://127.0.0.1:99999",  # no such port: it was tried, and "refused"
    "http://[::1",  # urlsplit's ValueError: Invalid IPv6 URL
    "http://127.0.0.1:4318/v1/tr aces",  # http.client.InvalidURL: control characters
    "http://127.0.0.1:4318/v1/trac\u00e9s",  # UnicodeEncodeError in the request line
    "http://127.0.0.1:4318/v1/traces?team=caf\u00e9",
])
def test_an_endpoint_that_is_no_usable_url_is_a_usage_error(session: Path, endpoint: str) -> None:
    with pytest.raises(UsageProblem):
        sender.traces_url(endpoint)
    one_line_error(run_otlp("--endpoint", endpoint, "--retries", "0"), 2)


def test_credentials_in_the_endpoint_are_refused_without_echoing_them(session: Path) -> None:
    # urllib sends no userinfo: "alice:s3cret@127.0.0.1" was looked up as a host name, and the
    # error (stderr, cron mail) printed the password.
    line = one_line_error(run_otlp("--endpoint", "http://alice:s3cret@127.0.0.1:4318", "--retries", "0"), 2)
    assert "s3cret" not in line and "--header" in line
    # A password with a "/" in it is masked whole when the URL is shown for another fault.
    with pytest.raises(UsageProblem) as raised:
        sender.traces_url("http://alice:pa/ss@127.0.0.1:abc")
    assert "'http://***@127.0.0.1:abc'" in str(raised.value) and "alice" not in str(raised.value)


def test_a_header_without_an_equals_sign_is_not_echoed(session: Path) -> None:
    # A curl-style "Authorization: Bearer …" is the usual slip, and it holds the secret.
    line = one_line_error(run_otlp("--endpoint", "http://127.0.0.1:9", "--retries", "0",
                                   "--header", "Authorization: Bearer sk-live-SECRET123"), 2)
    assert "SECRET123" not in line and "KEY=VALUE" in line


# --- headers http.client cannot send ---------------------------------------------------------


@pytest.mark.parametrize("header", ["x-team=caf\u00e9\u2603", "x-key=a\nb", "x key=s3cr3t"])
def test_a_header_that_http_cannot_carry_is_a_usage_error_that_hides_the_value(session: Path, header: str) -> None:
    line = one_line_error(run_otlp("--endpoint", "http://127.0.0.1:9", "--retries", "0", "--header", header), 2)
    value = header.partition("=")[2]
    assert value not in line


def test_a_bad_header_from_the_otel_variable_is_a_usage_error_too(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20t0ken%0A")
    line = one_line_error(run_otlp("--endpoint", "http://127.0.0.1:9", "--retries", "0"), 2)
    assert "t0ken" not in line and "authorization" in line


def test_good_headers_still_reach_the_collector(session: Path) -> None:
    with Receiver() as receiver:
        result = run_otlp("--endpoint", receiver.url, "--header", "x-honeycomb-team=abc=", "--protocol", "json")
    assert result.exit_code == 0, result.output
    assert receiver.received and receiver.received[0].headers["x-honeycomb-team"] == "abc="


# --- live export: the standard header variables ------------------------------------------------


def test_the_live_sender_sends_the_otel_header_variables(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `agentscan hook --otlp-endpoint` has no --header: OTEL_EXPORTER_OTLP_HEADERS (read by
    # `agentscan otlp` and every OTLP exporter) is the only way to give a vendor its API key.
    import subprocess
    import sys
    import time

    import orjson

    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=k3y")
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}
    with Receiver() as receiver:
        for event, extra in (("UserPromptSubmit", {"prompt": "ls"}), ("PreToolUse", bash), ("PostToolUse", {**bash, "tool_response": {}})):
            payload = {"hook_event_name": event, "session_id": "live-h", "prompt_id": "p-1", "cwd": "/repo", **extra}
            subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", "claude", "--otlp-endpoint", receiver.url],
                           input=orjson.dumps(payload), capture_output=True, env=dict(os.environ), timeout=20, check=True)
        deadline = time.monotonic() + 10
        while not receiver.received and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.received, (data_dir / "otlp-live.json").read_text() if (data_dir / "otlp-live.json").exists() else ""
    assert receiver.received[0].headers.get("x-honeycomb-team") == "k3y"
