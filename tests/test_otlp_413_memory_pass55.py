"""A collector's request size limit (HTTP 413), remembered (a review of pass 55): each batch
after the first started at 512 spans again and was refused and halved again, so a 30 KB
limit refused 532 requests (130 MB) of one export.  Now a 413 halves the spans a request
may hold for the rest of the send."""

from __future__ import annotations

import pytest

from agentscan.otlp.sender import encode, send
from agentscan.otlp.spans import ExportTrace, Span
from otlp_builders import Receiver, no_proxy  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("no_proxy")


def trace(number: int) -> ExportTrace:
    span = Span(f"{number + 1:032x}", f"{number + 1:016x}", None, "invoke_agent claude-code", 1, 1, 2)
    return ExportTrace({"service.name": "claude-code"}, [span], f"claude:s{number}")


def test_the_size_a_collector_accepts_is_kept_for_the_batches_that_follow() -> None:
    traces = [trace(number) for number in range(2048)]  # four batches of 512 spans
    with Receiver(max_body=len(encode(traces[:40], "json")[0])) as receiver:  # 40 traces a request
        result = send(traces, receiver.url, protocol="json", retries=0)
    assert result.spans == 2048 and len(receiver.spans()) == 2048
    # 512 -> 256 -> 128 -> 64 refused, then 32 at a time: not the same four again for each batch
    assert len(receiver.refused_sizes) == 4, receiver.refused_sizes
    assert result.requests == len(receiver.received) == 2048 // 32
    assert [span.trace_id for span in receiver.spans()] == [t.spans[0].trace_id for t in traces]  # in order
