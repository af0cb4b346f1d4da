"""OTLP/JSON by hand: works without ``opentelemetry-proto`` installed.

The encoding follows the OTLP "JSON Protobuf Encoding" rules
(docs/otel.md, "The file format"), which differ from plain proto3 JSON in ways
that are easy to get wrong: trace and span ids are hex (not base64), keys
are lowerCamelCase, enums are integers, and 64-bit integers (times,
``intValue``) are decimal strings.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Iterable, Mapping, Sequence

import orjson

from agentscan.otlp.spans import AttributeValue, ExportTrace, Span

SCOPE_NAME = "agentscan"


@cache
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


def _scalar_value(value: AttributeValue) -> dict[str, Any]:
    """``any_value``, by exact type first: an export encodes millions of attributes (2.2
    million for the bench's scale-1 home), and the ``isinstance`` chain is costly at that count."""
    kind = type(value)
    if kind is str:
        return {"stringValue": value}
    if kind is int:
        return {"intValue": str(value)}
    if kind is float:
        return {"doubleValue": value}
    return any_value(value)  # bools, lists, subclasses: the general rules


def key_values(attributes: Iterable[tuple[str, AttributeValue]]) -> list[dict[str, Any]]:
    return [{"key": key, "value": any_value(value)} for key, value in attributes]


class _LineEncoder:
    """Builds one line's document.  Text attributes repeat from span to span of a turn (the
    session and conversation ids, source, timing, operation names): each distinct
    ``(key, text)`` is made once per line and shared (orjson writes a shared dict as often
    as it appears).  With ``_scalar_value`` this took a quarter off the encoding time of the
    bench's scale-1 home (2.7 s to 1.9 s of CPU), for the same bytes."""

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: dict[tuple[str, str], dict[str, Any]] = {}

    def key_values(self, attributes: Mapping[str, AttributeValue]) -> list[dict[str, Any]]:
        texts = self._texts
        found: list[dict[str, Any]] = []
        for key, value in attributes.items():
            if type(value) is str:  # exactly: a subclass is written as ``str()`` makes it
                pair = texts.get((key, value))
                if pair is None:
                    pair = texts[(key, value)] = {"key": key, "value": {"stringValue": value}}
            else:
                pair = {"key": key, "value": _scalar_value(value)}
            found.append(pair)
        return found

    def span(self, span: Span) -> dict[str, Any]:
        document: dict[str, Any] = {
            "traceId": span.trace_id,
            "spanId": span.span_id,
            "name": span.name,
            "kind": span.kind,
            "startTimeUnixNano": str(span.start_ns),
            "endTimeUnixNano": str(span.end_ns),
            "attributes": self.key_values(span.attributes),
        }
        if span.parent_span_id:
            document["parentSpanId"] = span.parent_span_id
        if span.events:
            document["events"] = [
                {"timeUnixNano": str(e.time_ns), "name": e.name, "attributes": self.key_values(e.attributes)}
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
    if len(traces) == 1:  # a file's line: one trace, one resource, nothing to group
        groups[b""] = (traces[0].resource, traces[0].spans)
    else:
        for trace in traces:
            key = orjson.dumps(trace.resource, option=orjson.OPT_SORT_KEYS)
            groups.setdefault(key, (trace.resource, []))[1].extend(trace.spans)
    encoder = _LineEncoder()
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": key_values(resource.items())},
                "scopeSpans": [{"scope": scope(), "spans": [encoder.span(s) for s in spans]}],
            }
            for resource, spans in groups.values()
        ]
    }


def encode_line(traces: Sequence[ExportTrace]) -> bytes:
    """One JSON Lines record: compact, UTF-8, no newline inside (orjson escapes them in strings)."""
    return orjson.dumps(traces_data(traces)) + b"\n"


def encode_body(traces: Sequence[ExportTrace]) -> bytes:
    return orjson.dumps(traces_data(traces))
