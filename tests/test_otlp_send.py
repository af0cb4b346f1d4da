"""`agentscan otlp --endpoint`: OTLP/HTTP to a loopback receiver, retries, and honest failure."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import orjson
import pytest

from otlp_builders import Receiver, claude_delegating_session, no_proxy, one, otlp, read_otlp_file  # noqa: F401 - no_proxy is a fixture

pytestmark = pytest.mark.usefixtures("no_proxy")


@pytest.fixture
def session(isolated_home: Path) -> Path:
    claude_delegating_session(isolated_home)
    return isolated_home


def _file_spans(tmp_path: Path) -> dict:
    out = tmp_path / "reference.jsonl"
    assert otlp("-o", str(out)).exit_code == 0
    return {s.span_id: s for line in read_otlp_file(out) for s in line}


@pytest.mark.parametrize(("protocol", "content_type"), [("auto", "application/x-protobuf"), ("json", "application/json")])
def test_a_posted_export_holds_every_span_with_its_parent_and_usage(session: Path, tmp_path: Path, protocol: str, content_type: str) -> None:
    expected = _file_spans(tmp_path)
    with Receiver() as receiver:
        result = otlp("--endpoint", receiver.url, "--protocol", protocol, "--json")
    assert result.exit_code == 0, result.output
    [request] = receiver.received
    assert (request.path, request.content_type) == ("/v1/traces", content_type)
    assert request.headers["user-agent"].startswith("agentscan/")
    spans = {s.span_id: s for s in request.spans()}
    assert spans.keys() == expected.keys()
    for span_id, span in spans.items():
        reference = expected[span_id]
        assert (span.trace_id, span.parent, span.name, span.start, span.end) == (
            reference.trace_id, reference.parent, reference.name, reference.start, reference.end)
        assert span.attrs == reference.attrs
    explore = one(list(spans.values()), "invoke_agent Explore")
    assert spans[explore.parent].name == "execute_tool Task"
    assert explore.attrs["gen_ai.usage.output_tokens"] == 15
    doc = orjson.loads(result.stdout)
    assert doc["sent"] == {"endpoint": f"{receiver.url}/v1/traces", "protocol": protocol if protocol == "json" else "protobuf",
                           "requests": 1, "spans": 13}


def test_retryable_answers_are_retried(session: Path) -> None:
    with Receiver([503, 429], extra_headers={"Retry-After": "0"}) as receiver:
        result = otlp("--endpoint", receiver.url + "/", "--retries", "2", "--json")
    assert result.exit_code == 0, result.output
    assert len(receiver.received) == 1 and orjson.loads(result.stdout)["sent"]["spans"] == 13


def test_a_failed_batch_exits_1_and_only_acknowledged_batches_count(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentscan.otlp.sender.BATCH_SPANS", 1)  # one trace per request
    with Receiver([200, 400]) as receiver:
        result = otlp("--endpoint", receiver.url, "--json")
    assert result.exit_code == 1
    assert "HTTP 400" in result.stderr and "acknowledged 11 spans before that" in result.stderr
    doc = orjson.loads(result.stdout)
    assert doc["sent"]["requests"] == 1 and doc["sent"]["spans"] == len(receiver.spans()) == 11


def test_an_unreachable_collector_fails_within_the_bounds(session: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    result = otlp("--endpoint", f"http://127.0.0.1:{port}", "--retries", "1", "--timeout", "1")
    assert result.exit_code == 1
    assert "gave up after 2 attempts" in result.stderr
    assert time.monotonic() - started < 10


def test_a_redirect_is_not_followed_to_another_host(session: Path) -> None:
    with Receiver() as elsewhere, Receiver([307], extra_headers={"Location": "http://localhost:1/v1/traces"}) as named:
        named.extra_headers["Location"] = f"{elsewhere.url}/v1/traces"
        result = otlp("--endpoint", named.url)
    assert result.exit_code == 1 and "HTTP 307" in result.stderr
    assert elsewhere.received == [] and named.received == []


def test_a_partial_success_is_reported_and_not_counted(session: Path) -> None:
    reply = orjson.dumps({"partialSuccess": {"rejectedSpans": "2", "errorMessage": "too old"}})
    with Receiver(reply=reply) as receiver:
        result = otlp("--endpoint", receiver.url, "--protocol", "json", "--json")
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["sent"]["spans"] == 11
    assert any("rejected 2 of 13 spans: too old" in w["message"] for w in doc["warnings"])
    # The text line says how many the collector kept, not every span built.
    with Receiver(reply=reply) as receiver:
        text = otlp("--endpoint", receiver.url, "--protocol", "json")
    assert text.exit_code == 0
    assert text.stdout.startswith("exported 11 of 13 spans (the collector rejected 2) in "), text.stdout


@pytest.mark.parametrize("refusal, said", [
    (("application/json", b'{"code": 3, "message": "span.name:\\n too long\\u001b[2J"}'),
     ": span.name: too long\ufffd[2J"),
    (("text/plain; charset=utf-8", b"invalid trace id\n" + b"x" * 500), ": invalid trace id " + "x" * 182 + "…"),
    (("application/x-protobuf", b"\x08\x03\x12\x0bbad request"), ""),
])
def test_a_refusal_says_the_collector_s_reason(session: Path, refusal: tuple[str, bytes], said: str) -> None:
    # Why a 400 was refused is the first thing to know; a binary body is not shown.
    with Receiver([400], refusal=refusal) as receiver:
        result = otlp("--endpoint", receiver.url)
    assert result.exit_code == 1
    line = result.stderr.strip().splitlines()[0]
    assert line.startswith(f"error: {receiver.url}/v1/traces: HTTP 400 Bad Request{said}"), line
    if not said:
        assert "HTTP 400 Bad Request;" in line


def test_a_collector_s_warning_with_nothing_rejected_is_said(session: Path) -> None:
    reply = orjson.dumps({"partialSuccess": {"rejectedSpans": "0", "errorMessage": "attribute truncated"}})
    with Receiver(reply=reply) as receiver:
        result = otlp("--endpoint", receiver.url, "--protocol", "json", "--json")
    assert result.exit_code == 0
    doc = orjson.loads(result.stdout)
    assert doc["sent"]["spans"] == 13
    assert [w["message"] for w in doc["warnings"] if "collector" in w["message"]] == [
        "the collector accepted all 13 spans, and said: attribute truncated"]


def test_one_attempt_is_said_as_one(session: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = otlp("--endpoint", f"http://127.0.0.1:{port}", "--retries", "0", "--timeout", "1")
    assert result.exit_code == 1 and "; gave up after 1 attempt;" in result.stderr


def test_headers_come_from_the_option_and_the_otel_variable(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=data,x-api-key=from-env")
    with Receiver() as receiver:
        result = otlp("--endpoint", receiver.url + "/custom/traces", "--header", "x-api-key=from-option")
    assert result.exit_code == 0, result.output
    [request] = receiver.received
    assert request.path == "/custom/traces"
    assert (request.headers["x-team"], request.headers["x-api-key"]) == ("data", "from-option")
    assert "exported 13 spans in 2 traces from 1 session to" in result.stdout


def test_a_batch_too_large_for_the_collector_is_sent_again_in_halves(session: Path) -> None:
    """HTTP 413 (pass 55): a proxy in front of the collector (nginx takes 1 MiB by default)
    refused the whole export; its traces now go in smaller requests, a trace never split."""
    with Receiver() as receiver:
        assert otlp("--endpoint", receiver.url, "--protocol", "json").exit_code == 0
    [whole] = receiver.received
    with Receiver(max_body=len(whole.body) - 1) as receiver:
        result = otlp("--endpoint", receiver.url, "--protocol", "json", "--json")
    assert result.exit_code == 0, result.output
    assert receiver.refused_sizes == [len(whole.body)]
    assert len(receiver.received) == 2 and len(receiver.spans()) == 13
    assert orjson.loads(result.stdout)["sent"] == {"endpoint": f"{receiver.url}/v1/traces", "protocol": "json",
                                                   "requests": 2, "spans": 13}


def test_a_trace_too_large_alone_fails_and_says_what_to_raise(session: Path) -> None:
    with Receiver(max_body=100) as receiver:
        result = otlp("--endpoint", receiver.url, "--protocol", "json", "--retries", "0")
    assert result.exit_code == 1
    message = " ".join(result.stderr.split())
    assert "HTTP 413" in message and "is more than the collector takes: raise its request size limit" in message
    assert "one trace alone (11 spans," in message
    assert len(receiver.refused_sizes) == 2 and not receiver.received  # the whole, then its first trace alone: given up
