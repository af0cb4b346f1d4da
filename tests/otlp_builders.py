"""Helpers for the OTLP tests: a Claude session with parallel calls and a subagent, decoding
what was written or sent back into plain span dicts, and a loopback OTLP/HTTP receiver."""

from __future__ import annotations

import base64
import http.server
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

SESSION = "0f0e0d0c-1b2a-4c3d-8e9f-a0b1c2d3e4f5"
AGENT = "ax1"
runner = CliRunner()


def ts(seconds: float) -> str:
    """2026-03-01T10:00:00Z plus ``seconds``, as Claude writes it."""
    whole, frac = divmod(round(seconds * 1000), 1000)
    minutes, secs = divmod(whole, 60)
    return f"2026-03-01T10:{minutes:02d}:{secs:02d}.{frac:03d}Z"


def tool_use(call_id: str, name: str, **tool_input: Any) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def tool_result(session: str, at: float, call_id: str, *, error: bool = False, **extra: Any) -> dict:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": "ok", "is_error": error}
    return {**claude_user(session, ts(at), [block], uuid=f"res-{call_id}"), **extra}


def claude_untimed_tool(home: Path, session: str = "0a0b0c0d-1111-4222-8333-444444444444", number: int = 0) -> None:
    """A Claude session one of whose tool calls has no timestamp: its own data is wrong."""
    # The same API call as the record before (its LLM call is timed there): only the tool call is untimed.
    untimed = claude_assistant(session, ts(3), msg_id=f"m1-{number}", request_id=f"r1-{number}",
                               usage=claude_usage(input=3, output=4),
                               blocks=[{"type": "tool_use", "id": f"toolu_{number}", "name": "Read", "input": {"file_path": "/a"}}])
    del untimed["timestamp"]
    claude_session_file(home, session, [
        claude_user(session, ts(0), "look", uuid=f"u1-{number}"),
        claude_assistant(session, ts(2), msg_id=f"m1-{number}", request_id=f"r1-{number}",
                         usage=claude_usage(input=3, output=4), uuid=f"a1-{number}"),
        untimed,
    ])


def claude_delegating_session(home: Path, session: str = SESSION) -> None:
    """Two turns.  Turn 1: a response that asks for Read and Grep in parallel, then a Task whose
    Explore subagent runs a Grep, then a final answer.  Turn 2: one short exchange."""
    usage = claude_usage(input=10, output=20, cache_read=100, cache_write=5)
    main = [
        claude_user(session, ts(0), "Find the cache bug", uuid="u1"),
        claude_assistant(session, ts(2), msg_id="m1", request_id="r1", usage=usage, uuid="a1",
                         blocks=[{"type": "text", "text": "Looking at two files."}]),
        claude_assistant(session, ts(2.5), msg_id="m1", request_id="r1", usage=usage, uuid="a2",
                         blocks=[tool_use("toolu_read", "Read", file_path="/src/cache.py")]),
        claude_assistant(session, ts(2.6), msg_id="m1", request_id="r1", usage=usage, uuid="a3",
                         blocks=[tool_use("toolu_grep", "Grep", pattern="expire sk-ant-abcdefghijklmnopqrstuvwx")]),
        tool_result(session, 4, "toolu_read"),
        tool_result(session, 5, "toolu_grep"),
        claude_assistant(session, ts(8), msg_id="m2", request_id="r2", usage=claude_usage(input=3, output=7, cache_read=200),
                         uuid="a4", blocks=[tool_use("toolu_task", "Task", subagent_type="Explore", description="find callers",
                                                     prompt="find callers of expire")]),
        tool_result(session, 16, "toolu_task", toolUseResult={"agentId": AGENT, "status": "completed"}),
        claude_assistant(session, ts(20), msg_id="m3", request_id="r3", usage=claude_usage(input=2, output=30, cache_read=300),
                         uuid="a5", blocks=[{"type": "text", "text": "Fixed: the TTL was in ms."}]),
        claude_user(session, ts(60), "Thanks", uuid="u2"),
        claude_assistant(session, ts(62), msg_id="m4", request_id="r4", usage=claude_usage(input=1, output=4, cache_read=400),
                         uuid="a6", blocks=[{"type": "text", "text": "You're welcome."}]),
    ]
    claude_session_file(home, session, main)
    sub = [
        claude_user(session, ts(9), "find callers of expire", sidechain=True, uuid="s-u1", agentId=AGENT),
        claude_assistant(session, ts(12), msg_id="ms1", request_id="rs1", usage=claude_usage(input=5, output=6, cache_write=50),
                         sidechain=True, uuid="s-a1", agentId=AGENT, model="claude-haiku-4-5-20251001",
                         blocks=[tool_use("toolu_sub_grep", "Grep", pattern="expire(")]),
        tool_result(session, 13, "toolu_sub_grep", isSidechain=True, agentId=AGENT),
        claude_assistant(session, ts(15), msg_id="ms2", request_id="rs2", usage=claude_usage(input=1, output=9, cache_read=50),
                         sidechain=True, uuid="s-a2", agentId=AGENT, model="claude-haiku-4-5-20251001",
                         blocks=[{"type": "text", "text": "Two callers."}]),
    ]
    claude_subagent_file(home, session, AGENT, sub, meta={"agentType": "Explore"})


# --- reading spans back ---------------------------------------------------------------


@dataclass
class SpanView:
    trace_id: str
    span_id: str
    parent: str
    name: str
    kind: int
    start: int
    end: int
    attrs: dict[str, Any]
    status: int
    events: list[dict[str, Any]] = field(default_factory=list)
    service: str = ""

    def overlaps(self, other: SpanView) -> bool:
        return self.start < other.end and other.start < self.end

    def within(self, other: SpanView) -> bool:
        return other.start <= self.start and self.end <= other.end


def _json_value(value: dict[str, Any]) -> Any:
    (kind, raw), = value.items()
    if kind == "intValue":
        return int(raw)
    if kind == "arrayValue":
        return [_json_value(v) for v in raw.get("values", [])]
    return raw


def spans_from_json(document: dict[str, Any]) -> list[SpanView]:
    found = []
    for resource_spans in document["resourceSpans"]:
        resource = {a["key"]: _json_value(a["value"]) for a in resource_spans["resource"]["attributes"]}
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                found.append(SpanView(
                    trace_id=span["traceId"], span_id=span["spanId"], parent=span.get("parentSpanId", ""),
                    name=span["name"], kind=span["kind"], start=int(span["startTimeUnixNano"]),
                    end=int(span["endTimeUnixNano"]),
                    attrs={a["key"]: _json_value(a["value"]) for a in span["attributes"]},
                    status=span.get("status", {}).get("code", 0), events=span.get("events", []),
                    service=resource.get("service.name", ""),
                ))
    return found


def _proto_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_proto_value(v) for v in value.array_value.values]
    return getattr(value, kind)


def spans_from_proto(request: Any) -> list[SpanView]:
    found = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _proto_value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(SpanView(
                    trace_id=span.trace_id.hex(), span_id=span.span_id.hex(), parent=span.parent_span_id.hex(),
                    name=span.name, kind=span.kind, start=span.start_time_unix_nano, end=span.end_time_unix_nano,
                    attrs={a.key: _proto_value(a.value) for a in span.attributes}, status=span.status.code,
                    events=[{"name": e.name} for e in span.events], service=resource.get("service.name", ""),
                ))
    return found


def read_otlp_file(path: Path) -> list[list[SpanView]]:
    """Each line: validated with opentelemetry-proto (``json_format.Parse`` into ``TracesData``),
    then read back with its hex ids.  One list of spans per line."""
    from google.protobuf import json_format
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    lines = []
    for line in path.read_bytes().splitlines():
        parsed = json_format.Parse(line, TracesData())  # raises on a bad key, type or enum
        _check_int64_strings(orjson.loads(line))
        views = spans_from_json(orjson.loads(line))
        # proto3 JSON reads our hex ids as base64; re-encoding gives the hex back, proving
        # the ids are hex strings of the right length (16 and 8 bytes).
        raw = [s for r in parsed.resource_spans for ss in r.scope_spans for s in ss.spans]
        assert [base64.b64encode(s.trace_id).decode().lower() for s in raw] == [v.trace_id for v in views]
        assert [base64.b64encode(s.span_id).decode().lower() for s in raw] == [v.span_id for v in views]
        assert all(len(v.trace_id) == 32 and len(v.span_id) == 16 for v in views)
        lines.append(views)
    return lines


def _check_int64_strings(document: Any) -> None:
    """OTLP/JSON writes 64-bit integers as decimal strings (proto3 JSON readers accept both, so
    ``json_format.Parse`` alone would not notice numbers)."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key.endswith("UnixNano") or key == "intValue":
                assert isinstance(value, str) and value.isdigit(), f"{key}={value!r} is not a decimal string"
            _check_int64_strings(value)
    elif isinstance(document, list):
        for item in document:
            _check_int64_strings(item)


def otlp(*args: str) -> Any:
    """``agentscan otlp …`` in-process; returns the CliRunner result."""
    return runner.invoke(app, ["otlp", *args])


def by_name(spans: list[SpanView], name: str) -> list[SpanView]:
    return [s for s in spans if s.name == name]


def one(spans: list[SpanView], name: str) -> SpanView:
    found = by_name(spans, name)
    assert len(found) == 1, f"{len(found)} spans named {name!r}: {[s.name for s in spans]}"
    return found[0]


# --- a loopback OTLP/HTTP receiver ------------------------------------------------------


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback requests must not be routed to a proxy a developer's shell may name."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@dataclass
class Received:
    path: str
    content_type: str
    headers: dict[str, str]
    body: bytes

    def spans(self) -> list[SpanView]:
        if self.content_type == "application/x-protobuf":
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            request = ExportTraceServiceRequest()
            request.ParseFromString(self.body)
            return spans_from_proto(request)
        return spans_from_json(orjson.loads(self.body))


class Receiver:
    """127.0.0.1 on an ephemeral port, served by one thread; ``statuses`` answers the requests in order
    (then 200).  Use as a context manager: the thread is joined and the socket closed on exit."""

    def __init__(self, statuses: list[int] | None = None, *, reply: bytes = b"", extra_headers: dict[str, str] | None = None,
                 refusal: tuple[str, bytes] = ("", b""), delay: float = 0.0, max_body: int | None = None) -> None:
        self.received: list[Received] = []
        self.max_body = max_body  # a body larger is refused with 413, as nginx's client_max_body_size does
        self.refused_sizes: list[int] = []
        self.delay = delay  # seconds before each answer: a collector that keeps the senders busy
        self.statuses = list(statuses or [])
        self.reply = reply
        self.refusal = refusal  # (content type, body) of an answer other than 200
        self.extra_headers = extra_headers or {}
        self.event = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = 5  # a stuck client cannot hold the test

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if receiver.delay:
                    import time

                    time.sleep(receiver.delay)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                if receiver.max_body is not None and len(body) > receiver.max_body:
                    status = 413
                    receiver.refused_sizes.append(len(body))
                if status == 200:
                    receiver.received.append(Received(
                        self.path, self.headers.get("Content-Type", ""), {k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.event.set()
                self.send_response(status)
                for key, value in receiver.extra_headers.items():
                    self.send_header(key, value)
                payload = receiver.reply if status == 200 else receiver.refusal[1]
                if status != 200 and receiver.refusal[0]:
                    self.send_header("Content-Type", receiver.refusal[0])
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)
        self.server.server_close()

    def spans(self) -> list[SpanView]:
        return [span for request in self.received for span in request.spans()]

    def wait(self, count: int = 1, seconds: float = 10.0) -> bool:
        """Wait (bounded) until ``count`` requests were accepted."""
        import time

        deadline = time.monotonic() + seconds
        while len(self.received) < count and time.monotonic() < deadline:
            self.event.wait(0.05)
            self.event.clear()
        return len(self.received) >= count


def iter_children(spans: list[SpanView], parent: SpanView) -> Iterator[SpanView]:
    return (s for s in spans if s.parent == parent.span_id)
