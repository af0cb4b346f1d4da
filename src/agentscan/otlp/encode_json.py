"""OTLP/JSON by hand: works without ``opentelemetry-proto`` installed.

The encoding follows the OTLP "JSON Protobuf Encoding" rules
(docs/otel.md, "The file format"), which differ from plain proto3 JSON in ways
that are easy to get wrong: trace and span ids are hex (not base64), keys
are lowerCamelCase, enums are integers, and 64-bit integers (times,
``intValue``) are decimal strings.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import orjson

from agentscan.otlp.spans import AttributeValue, ExportTrace, Span

SCOPE_NAME = "agentscan"


def scope() -> dict[str, str]:
    from agentscan import __version__

    return {"name": SCOPE_NAME, "version": __version__}


def any_value(value: AttributeValue) -> dict[str, Any]:
    if isinstance(value, bool):  # before int: bool is an int subclass
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    return {"stringValue": str(value)}


def key_values(attributes: Iterable[tuple[str, AttributeValue]]) -> list[dict[str, Any]]:
    return [{"key": key, "value": any_value(value)} for key, value in attributes]


def span_json(span: Span) -> dict[str, Any]:
    document: dict[str, Any] = {
        "traceId": span.trace_id,
        "spanId": span.span_id,
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start_ns),
        "endTimeUnixNano": str(span.end_ns),
        "attributes": key_values(span.attributes.items()),
    }
    if span.parent_span_id:
        document["parentSpanId"] = span.parent_span_id
    if span.events:
        document["events"] = [
            {"timeUnixNano": str(e.time_ns), "name": e.name, "attributes": key_values(e.attributes.items())}
            for e in span.events
        ]
    status: dict[str, Any] = {"code": span.status_code}
    if span.status_message:
        status["message"] = span.status_message
    document["status"] = status
    return document


def traces_data(traces: Sequence[ExportTrace]) -> dict[str, Any]:
    """One ``TracesData`` (= the body of ``POST /v1/traces``): traces of one resource share a ``resourceSpans``."""
    groups: dict[bytes, tuple[dict[str, AttributeValue], list[Span]]] = {}
    for trace in traces:
        key = orjson.dumps(trace.resource, option=orjson.OPT_SORT_KEYS)
        groups.setdefault(key, (trace.resource, []))[1].extend(trace.spans)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": key_values(resource.items())},
                "scopeSpans": [{"scope": scope(), "spans": [span_json(s) for s in spans]}],
            }
            for resource, spans in groups.values()
        ]
    }


def encode_line(traces: Sequence[ExportTrace]) -> bytes:
    """One JSON Lines record: compact, UTF-8, no newline inside (orjson escapes them in strings)."""
    return orjson.dumps(traces_data(traces)) + b"\n"


def encode_body(traces: Sequence[ExportTrace]) -> bytes:
    return orjson.dumps(traces_data(traces))
