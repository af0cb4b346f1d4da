"""OTLP/HTTP protobuf bodies, through ``opentelemetry-proto`` (the optional ``otlp`` extra).

Messages are built field by field from our spans rather than by parsing the
JSON encoding: proto3's JSON mapping reads ids as base64, while OTLP/JSON
writes them as hex, so a round trip through ``json_format`` would corrupt
every id.
"""

from __future__ import annotations

from typing import Any, Sequence

from agentscan.otlp.spans import AttributeValue, ExportTrace


def available() -> bool:
    try:
        import opentelemetry.proto.collector.trace.v1.trace_service_pb2  # noqa: F401
    except ImportError:
        return False
    return True


def _any_value(message: Any, value: AttributeValue) -> None:
    if isinstance(value, bool):
        message.bool_value = value
    elif isinstance(value, int):
        message.int_value = value
    elif isinstance(value, float):
        message.double_value = value
    elif isinstance(value, (list, tuple)):
        for item in value:
            _any_value(message.array_value.values.add(), item)
    else:
        message.string_value = str(value)


def _attributes(repeated: Any, attributes: dict[str, AttributeValue]) -> None:
    for key, value in attributes.items():
        kv = repeated.add()
        kv.key = key
        _any_value(kv.value, value)


def request(traces: Sequence[ExportTrace]) -> Any:
    """An ``ExportTraceServiceRequest`` holding ``traces`` (one resourceSpans per distinct resource)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from agentscan.otlp.encode_json import scope

    message = ExportTraceServiceRequest()
    by_resource: dict[tuple, Any] = {}
    scope_info = scope()
    for trace in traces:
        key = tuple(sorted((k, repr(v)) for k, v in trace.resource.items()))
        scope_spans = by_resource.get(key)
        if scope_spans is None:
            resource_spans = message.resource_spans.add()
            _attributes(resource_spans.resource.attributes, trace.resource)
            scope_spans = resource_spans.scope_spans.add()
            scope_spans.scope.name = scope_info["name"]
            scope_spans.scope.version = scope_info["version"]
            by_resource[key] = scope_spans
        for span in trace.spans:
            out = scope_spans.spans.add()
            out.trace_id = bytes.fromhex(span.trace_id)
            out.span_id = bytes.fromhex(span.span_id)
            if span.parent_span_id:
                out.parent_span_id = bytes.fromhex(span.parent_span_id)
            out.name = span.name
            out.kind = span.kind
            out.start_time_unix_nano = span.start_ns
            out.end_time_unix_nano = span.end_ns
            _attributes(out.attributes, span.attributes)
            for event in span.events:
                out_event = out.events.add()
                out_event.name = event.name
                out_event.time_unix_nano = event.time_ns
                _attributes(out_event.attributes, dict(event.attributes))
            out.status.code = span.status_code
            if span.status_message:
                out.status.message = span.status_message
    return message


def encode_body(traces: Sequence[ExportTrace]) -> bytes:
    return request(traces).SerializeToString()


def rejected_spans(body: bytes) -> tuple[int, str]:
    """``partial_success`` of an ``ExportTraceServiceResponse``: (rejected spans, message)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    response = ExportTraceServiceResponse()
    response.ParseFromString(body)
    return response.partial_success.rejected_spans, response.partial_success.error_message
