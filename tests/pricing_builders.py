"""Builders for the pricing tests: sessions with known calls, price data files, a loopback server."""

from __future__ import annotations

import http.server
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

CLAUDE_SESSION = "c1a0de00-0000-4000-8000-000000000001"
CLAUDE_AGENT = "a1b2c3d"


def per_million(*pairs: tuple[int, str]) -> Decimal:
    """Σ tokens × published USD per million tokens, exactly."""
    return sum((Decimal(tokens) * Decimal(price) for tokens, price in pairs), Decimal(0)) / Decimal(1_000_000)


def claude_sonnet_session(home: Path, *, model: str = "claude-sonnet-4-5-20250929", synthetic: bool = False) -> None:
    """Two Sonnet 4.5 calls on 2025-10-01 (one above 200k input) and one Haiku 4.5 subagent call;
    ``synthetic``: and one of Claude Code's locally made zero-token ``<synthetic>`` turns in the subagent."""
    split = {"ephemeral_5m_input_tokens": 15_000, "ephemeral_1h_input_tokens": 5_000}
    main = [
        claude_user(CLAUDE_SESSION, "2025-10-01T09:00:00.000Z", "hi", uuid="u1"),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:05.000Z", msg_id="m1", request_id="r1", model=model,
                         usage=claude_usage(input=1_200, cache_write=20_000, cache_read=150_000, output=2_500,
                                            cache_creation=split), uuid="a1"),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:01:00.000Z", msg_id="m2", request_id="r2", model=model,
                         usage=claude_usage(input=500, cache_write=1_000, cache_read=210_000, output=800), uuid="a2"),
    ]
    claude_session_file(home, CLAUDE_SESSION, main)
    sub = [
        claude_user(CLAUDE_SESSION, "2025-10-01T09:00:10.000Z", "look", sidechain=True, uuid="s1", agentId=CLAUDE_AGENT),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:20.000Z", msg_id="ms1", request_id="rs1",
                         model="claude-haiku-4-5-20251001", sidechain=True, agentId=CLAUDE_AGENT, uuid="s2",
                         usage=claude_usage(input=100, cache_write=2_000, cache_read=10_000, output=300)),
    ]
    if synthetic:  # e.g. an API error the subagent met
        sub.append(claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:30.000Z", msg_id="ms2", request_id=None,
                                    model="<synthetic>", sidechain=True, agentId=CLAUDE_AGENT, uuid="s3",
                                    usage=claude_usage()))
    claude_subagent_file(home, CLAUDE_SESSION, CLAUDE_AGENT, sub)


# Sonnet 4.5: $3 input, $3.75 5-minute cache write, $6 1-hour cache write, $0.30 cache read, $15 output;
# above 200k input tokens per call: $6, $7.50, $12, $0.60, $22.50.  Haiku 4.5: $1, $1.25, $0.10, $5.
SONNET_CALL_1 = per_million((1_200, "3"), (15_000, "3.75"), (5_000, "6"), (150_000, "0.30"), (2_500, "15"))
SONNET_CALL_2 = per_million((500, "6"), (1_000, "7.50"), (210_000, "0.60"), (800, "22.50"))
HAIKU_CALL = per_million((100, "1"), (2_000, "1.25"), (10_000, "0.10"), (300, "5"))


def price_data(input_mtok: float, output_mtok: float) -> bytes:
    """A genai-prices v2 data file that knows one model, Claude Sonnet 4.5, at the given prices."""
    return orjson.dumps([{
        "id": "anthropic",
        "name": "Anthropic",
        "api_pattern": r"https://api\.anthropic\.com",
        "model_match": {"contains": "claude"},
        "models": [{
            "id": "claude-sonnet-4-5",
            "match": {"starts_with": "claude-sonnet-4-5"},
            "prices": {"input_mtok": input_mtok, "output_mtok": output_mtok},
        }],
    }])


@dataclass
class PriceServer:
    """Serves ``body`` on 127.0.0.1 for GET requests; counts them."""

    body: bytes
    status: int = 200
    requests: list[str] = field(default_factory=list)

    def __enter__(self) -> PriceServer:
        server_self = self

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = 5

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                server_self.requests.append(self.path)
                self.send_response(server_self.status)
                self.send_header("Content-Length", str(len(server_self.body)))
                self.end_headers()
                self.wfile.write(server_self.body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/data.json"

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()


UNKNOWN_SESSION = "c1a0de00-0000-4000-8000-0000000000ff"


def claude_unknown_model_session(home: Path, model: str = "aide-gpt-5") -> None:
    """One call with tokens, on 2025-10-02, by a model the price data does not know."""
    claude_session_file(home, UNKNOWN_SESSION, [
        claude_user(UNKNOWN_SESSION, "2025-10-02T09:00:00.000Z", "hi", uuid="x1"),
        claude_assistant(UNKNOWN_SESSION, "2025-10-02T09:00:05.000Z", msg_id="mx", request_id="rx", model=model,
                         usage=claude_usage(input=1_000, output=100), uuid="x2"),
    ], project="-home-dev-other")
