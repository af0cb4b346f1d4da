"""The OTLP resource of a session's spans, and the standard ``OTEL_*`` settings we honour.

``service.name`` is the agent (``claude-code``, ``codex``, ``gemini-cli``,
``cursor``), so a tracing UI lists agents as services.  As with any
OpenTelemetry SDK, ``OTEL_SERVICE_NAME`` replaces it and
``OTEL_RESOURCE_ATTRIBUTES`` (``key=value,…``, percent-encoded) adds to it —
the place for ``host.name`` or a team name, which agentscan never guesses.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import unquote

from agentscan.otlp import semconv


def key_value_list(text: str | None) -> dict[str, str]:
    """``k1=v1,k2=v2`` (the ``OTEL_RESOURCE_ATTRIBUTES`` / ``OTEL_EXPORTER_OTLP_HEADERS`` syntax)."""
    found: dict[str, str] = {}
    for item in (text or "").split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            found[unquote(key.strip())] = unquote(value.strip())
    return found


def resource_for(provider: str, env: Mapping[str, str]) -> dict[str, Any]:
    attributes: dict[str, Any] = {"service.name": semconv.agent_name(provider)}
    attributes.update(key_value_list(env.get("OTEL_RESOURCE_ATTRIBUTES")))
    if env.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = env["OTEL_SERVICE_NAME"]
    return attributes


def env_headers(env: Mapping[str, str]) -> dict[str, str]:
    """Headers for the collector (API keys, …): the generic variable, then the traces one."""
    headers = key_value_list(env.get("OTEL_EXPORTER_OTLP_HEADERS"))
    headers.update(key_value_list(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS")))
    return headers
