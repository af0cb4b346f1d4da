"""OTLP/HTTP: POST traces to the one endpoint the user named, with retries and a bounded timeout.

Standard library only (``urllib.request``).  Redirects are refused rather
than followed, so no request ever goes to a host the user did not name; the
usual proxy variables are honoured as by any HTTP client.  Retries follow
the OTLP/HTTP rules: 429, 502, 503 and 504, and connection errors, are
retried with exponential backoff (``Retry-After`` is honoured up to a cap);
any other error fails at once.  A batch counts as sent only once the
collector acknowledged it, minus any spans it reported rejecting.
"""

from __future__ import annotations

import http.client
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from agentscan.errors import SendFailed, UsageProblem
from agentscan.otlp.endpoint import check_headers, shown_url, traces_url
from agentscan.otlp.spans import ExportTrace
from agentscan.toolkit.words import plural

RETRYABLE = frozenset({429, 502, 503, 504})
BATCH_SPANS = 512  # per request; a trace is never split across requests
BACKOFF_S = 0.5
BACKOFF_CAP_S = 4.0
RETRY_AFTER_CAP_S = 10.0
RESPONSE_LIMIT = 1 << 20
PROTOCOLS = ("auto", "protobuf", "json")


@dataclass
class SendResult:
    #: the URL as it may be shown (``endpoint.shown_url``: no userinfo, no query string)
    endpoint: str
    protocol: str
    requests: int = 0
    spans: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"endpoint": self.endpoint, "protocol": self.protocol, "requests": self.requests, "spans": self.spans}


def choose_protocol(protocol: str) -> str:
    """The protocol ``protocol`` (``PROTOCOLS``, in any case, as every choice option) sends with."""
    from agentscan.otlp import encode_proto
    from agentscan.toolkit.choices import one_of

    wanted = one_of(protocol, PROTOCOLS, "--protocol")
    if wanted == "json":
        return "json"
    if encode_proto.available():
        return "protobuf"
    if wanted == "protobuf":
        raise UsageProblem("--protocol protobuf needs opentelemetry-proto: pip install 'agentscan[otlp]'")
    return "json"


def batches(traces: Iterable[ExportTrace], limit: int | Callable[[], int] | None = None) -> Iterator[list[ExportTrace]]:
    """Traces grouped into requests of at most ``limit`` spans (a bigger trace goes alone), lazily;
    ``limit`` may be a function, read for each request (``send`` lowers it after a 413)."""
    limit = BATCH_SPANS if limit is None else limit
    most = limit if callable(limit) else lambda: limit
    batch: list[ExportTrace] = []
    size = 0
    for trace in traces:
        if batch and size + len(trace.spans) > most():
            yield batch
            batch, size = [], 0
        batch.append(trace)
        size += len(trace.spans)
    if batch:
        yield batch


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None  # urllib then raises the 3xx as an HTTPError


def send(
    traces: Iterable[ExportTrace],
    endpoint: str,
    *,
    protocol: str = "auto",
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
    retries: int = 3,
    sleep: Callable[[float], None] = time.sleep,
    timeout_option: str | None = "--timeout",
) -> SendResult:
    """``timeout_option``: the option a timed-out request's message names (``None``: the
    caller has none, as the hook's live sender, whose timeout is fixed)."""
    url = traces_url(endpoint)
    chosen = choose_protocol(protocol)
    check_headers(headers or {})
    result = SendResult(shown_url(url), chosen)
    opener = urllib.request.build_opener(_NoRedirects)
    # The spans a request may hold: a 413 halves it for the rest of the send, so the batches that
    # follow are no larger than the ones then accepted, not sent whole again to be refused and
    # halved each time (a 30 KB limit refused 532 requests, 130 MB, of one export); it is never
    # raised again, so a send meets at most about ten 413s (512 halved down to 1).
    limit = [BATCH_SPANS]
    for whole in batches(traces, lambda: limit[0]):
        pending = [whole]
        while pending:  # a batch the collector finds too large (413) is sent again in halves
            batch = pending.pop()
            spans = sum(len(t.spans) for t in batch)
            if spans > limit[0] and len(batch) > 1:  # left from before a 413: cut to the size it allows
                pending += reversed(list(batches(batch, limit[0])))
                continue
            body, content_type = encode(batch, chosen)
            try:
                reply = _post(opener, url, body, content_type, headers or {}, timeout, retries, sleep, result,
                              timeout_option)
            except _TooLarge as exc:
                if len(batch) == 1:  # a trace is never split: this one is more than the collector takes
                    raise SendFailed(f"{result.endpoint}: {exc.problem}; one trace alone ({plural(spans, 'span')}, "
                                     f"{len(body):,} bytes) is more than the collector takes: raise its request "
                                     "size limit (a proxy's in front of it too, such as nginx's client_max_body_size)",
                                     result) from None
                limit[0] = min(limit[0], max(1, spans // 2))
                pieces = list(batches(batch, limit[0]))
                if len(pieces) < 2:  # (traces of no span: halved by their count)
                    pieces = [batch[:len(batch) // 2], batch[len(batch) // 2:]]
                pending += reversed(pieces)  # (the first piece next: the traces keep their order)
                continue
            _count(result, reply, chosen, spans)
    return result


class _TooLarge(Exception):
    """HTTP 413 (``_post``): the body is more than the collector, or a proxy in front of it,
    takes (nginx refuses more than 1 MiB by default); ``send`` splits the batch."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _count(result: SendResult, reply: bytes, chosen: str, spans: int) -> None:
    """An acknowledged request in ``result``: its spans, less those the collector rejected."""
    rejected, message = _rejected(reply, chosen)
    if rejected:
        result.warnings.append(f"the collector rejected {rejected} of {plural(spans, 'span')}: {message or 'no reason given'}")
    elif message:
        # A partial success that rejected nothing but says something: the OTLP spec's
        # way for a collector to warn (a deprecated field, a span it altered).
        accepted = f"all {plural(spans, 'span')}" if spans != 1 else "the 1 span"
        result.warnings.append(f"the collector accepted {accepted}, and said: {message}")
    result.requests += 1
    result.spans += max(0, spans - rejected)


def encode(batch: Sequence[ExportTrace], protocol: str) -> tuple[bytes, str]:
    if protocol == "protobuf":
        from agentscan.otlp import encode_proto

        return encode_proto.encode_body(batch), "application/x-protobuf"
    from agentscan.otlp import encode_json

    return encode_json.encode_body(batch), "application/json"


def _post(
    opener: urllib.request.OpenerDirector, url: str, body: bytes, content_type: str, headers: Mapping[str, str],
    timeout: float, retries: int, sleep: Callable[[float], None], result: SendResult, timeout_option: str | None,
) -> bytes:
    from agentscan import __version__

    request_headers = {"Content-Type": content_type, "User-Agent": f"agentscan/{__version__}", **headers}
    problem = ""
    via = proxy_for(url)
    for attempt in range(retries + 1):
        request = urllib.request.Request(url, data=body, headers=request_headers, method="POST")
        wait = min(BACKOFF_CAP_S, BACKOFF_S * (2 ** attempt))
        try:
            with opener.open(request, timeout=timeout) as response:
                return _reply_body(response)
        except urllib.error.HTTPError as exc:
            with exc:  # an HTTPError holds the connection open until closed
                problem = f"HTTP {exc.code} {exc.reason}".strip() + _collector_says(exc)
                if exc.code == 413:
                    raise _TooLarge(problem) from None
                if exc.code not in RETRYABLE:
                    raise SendFailed(f"{result.endpoint}: {problem}", result) from None
                wait = _retry_after(exc.headers.get("Retry-After"), wait)
        except (urllib.error.URLError, OSError) as exc:  # refused, reset, DNS, timeout
            from agentscan.toolkit.networds import network_problem

            reason = getattr(exc, "reason", exc)
            problem = network_problem(reason if isinstance(reason, BaseException) else exc, timeout)
            problem += f" ({timeout_option})" if timeout_option and problem.startswith("timed out") else ""
            if via:  # the proxy was asked, not the collector: say so, or the advice misleads
                problem += f", through the proxy {via}"
        except http.client.HTTPException as exc:
            # No OSError: a reply that is not HTTP/1.x (BadStatusLine from a gRPC port's
            # HTTP/2 frames, a header line too long…).  Its text may be binary: not shown.
            problem = f"the reply is not HTTP ({type(exc).__name__}); is this the OTLP/HTTP port (4318), not gRPC (4317)?"
        if attempt < retries:
            sleep(wait)
    # After a semicolon: a problem often ends in its own parenthesis ("connection refused (is the
    # server running, on this port?)"), and two in a row read as a stutter.
    raise SendFailed(f"{result.endpoint}: {problem}; gave up after {retries + 1} attempt{'s' if retries else ''}", result)


def proxy_for(url: str) -> str | None:
    """The proxy a request to ``url`` goes through (the usual ``*_proxy`` variables, as
    ``urllib`` reads them: ``no_proxy`` honoured), named and shown masked: ``None`` for none."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme)
    if not proxy or (parts.hostname and urllib.request.proxy_bypass(parts.hostname)):
        return None
    names = [name for name in (f"{parts.scheme}_proxy", f"{parts.scheme.upper()}_PROXY") if name in os.environ]
    return f"{shown_url(proxy)} ({names[0] if names else 'the system settings'}; no_proxy={parts.hostname} bypasses it)"


#: how much of a refusal's reason is read and shown
REASON_BYTES = 2048
REASON_CHARS = 200


def _collector_says(error: urllib.error.HTTPError) -> str:
    """``": <reason>"`` from a refusal's body, the collector's own words (why a 400 was
    refused is the first thing to know): the ``message`` of an OTLP/JSON ``Status``, or
    plain text; one line, cut short.  Nothing for a protobuf or other
    binary body, or one that cannot be read."""
    try:
        body = error.read(REASON_BYTES)
    except (http.client.HTTPException, OSError):
        return ""
    kind = (error.headers.get("Content-Type") or "").lower()
    text = body.decode("utf-8", "replace")
    if "json" in kind or text.lstrip().startswith("{"):
        import orjson

        try:
            status = orjson.loads(body)
        except orjson.JSONDecodeError:
            status = None
        message = status.get("message") if isinstance(status, dict) else None
        text = message if isinstance(message, str) else ""
    elif "text" not in kind:
        return ""
    line = " ".join(text.split())  # (made printable where it is shown: ``cli.state.say_error``)
    if len(line) > REASON_CHARS:
        line = line[:REASON_CHARS - 1] + "…"
    return f": {line}" if line else ""


def _reply_body(response: http.client.HTTPResponse) -> bytes:
    """A 2xx reply's body.  Its status acknowledged the batch: a body cut short (a reset, a
    timeout, a broken chunk) loses only its ``partialSuccess``, so the batch is not resent."""
    try:
        return response.read(RESPONSE_LIMIT)
    except (http.client.HTTPException, OSError):
        return b""


def _retry_after(value: str | None, default: float) -> float:
    try:
        return min(RETRY_AFTER_CAP_S, max(0.0, float(value))) if value else default
    except ValueError:
        return default  # an HTTP date: not worth parsing for a capped wait


def _rejected(reply: bytes, protocol: str) -> tuple[int, str]:
    """A 2xx may still carry ``partialSuccess``: spans the collector refused."""
    if not reply:
        return 0, ""
    try:
        if protocol == "protobuf":
            from agentscan.otlp import encode_proto

            return encode_proto.rejected_spans(reply)
        import orjson

        partial = orjson.loads(reply).get("partialSuccess") or {}
        return int(partial.get("rejectedSpans") or 0), str(partial.get("errorMessage") or "")
    except Exception:  # noqa: BLE001 - an unreadable success body is still a success
        return 0, ""
