"""OpenTelemetry GenAI names, and the few decisions of how our data maps onto them.

Attribute names follow the GenAI semantic conventions as of their last
in-repo version (docs/otel.md, "Attributes").  Names the conventions do
not have live under ``agentscan.``, never under ``gen_ai.``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentscan.model import TokenUsage
from agentscan.pricing.aliases import UNNAMED_TIER, fast_mode_base, service_tier_of
from agentscan.pricing.inferencegeo import US_ONLY_GEO, us_only_base, without_geo

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
AGENT_ID = "gen_ai.agent.id"
AGENT_DESCRIPTION = "gen_ai.agent.description"
CONVERSATION = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"
#: USD of a chat call, or of every call below an agent span (agentscan.pricing); no GenAI
#: semantic convention names cost yet, so it lives in agentscan's namespace
COST = "agentscan.cost_usd"
#: the speed a call ran at when it was not the standard one (Anthropic's fast mode: ``fast``);
#: no GenAI semantic convention names it
SPEED = "agentscan.request.speed"
#: where a Claude call's inference ran when it was not anywhere (its response's
#: ``usage.inference_geo``: ``us``, US-only inference, billed 1.1x: ``pricing.inferencegeo``);
#: no GenAI semantic convention names it
INFERENCE_GEO = "agentscan.request.inference_geo"
#: the service tier an OpenAI call was billed at when not the standard one (Codex's
#: ``priority``, ``flex``): OTel's OpenAI semantic conventions name it so
SERVICE_TIER = "openai.request.service_tier"

#: the agent each provider / hook agent is, as ``gen_ai.agent.name`` and ``service.name``
AGENT_NAMES = {"claude": "claude-code", "codex": "codex", "gemini": "gemini-cli", "cursor": "cursor"}

# ``gen_ai.provider.name`` from the model name first (Cursor runs Claude, GPT
# and Gemini models), else from the agent.
_MODEL_PREFIXES = (
    (("claude", "anthropic"), "anthropic"),
    (("gpt", "o1", "o3", "o4", "codex", "openai", "chatgpt"), "openai"),
    (("gemini", "google"), "gcp.gemini"),
    (("grok", "xai"), "x_ai"),
    (("mistral", "codestral", "devstral"), "mistral_ai"),
    (("deepseek",), "deepseek"),
)
_AGENT_PROVIDERS = {"claude": "anthropic", "codex": "openai", "gemini": "gcp.gemini", "cursor": "cursor"}


def agent_name(provider: str) -> str:
    return AGENT_NAMES.get(provider, provider)


def provider_name(model: str | None, agent: str) -> str:
    if model:
        lowered = model.lower()
        # Cursor names some hosted models after itself (``cursor-grok-4.5-high``): the model's own
        # maker still decides; ``cursor-small`` and the like stay Cursor's.
        lowered = lowered[len("cursor-"):] if lowered.startswith("cursor-") else lowered
        for prefixes, name in _MODEL_PREFIXES:
            if lowered.startswith(prefixes):
                return name
    return _AGENT_PROVIDERS.get(agent, agent)


def api_model(model: str | None, agent: str) -> tuple[str | None, str | None]:
    """The model id a call asked the API for, and its speed when not the standard one.
    agentscan prices and groups a Claude Code call made in fast mode as ``claude-opus-4-8-fast``
    (``pricing.aliases.fast_mode_name``); its request named ``claude-opus-4-8``, with
    ``speed: fast``.  Another agent's name is as recorded (Cursor's ``…-fast`` is its own)."""
    if agent == "claude" and model is not None:
        model = without_geo(model)  # (a US-only call's ``<model> (us-only)``: ``pricing.inferencegeo``)
    base = fast_mode_base(model) if agent == "claude" and model is not None else None
    return (model, None) if base is None else (base, "fast")


def api_geo(model: str | None, agent: str) -> tuple[str | None, str | None]:
    """The model a Claude Code call asked the API for, and where its inference ran when it ran
    in the US only (``us``): agentscan prices and groups it as ``claude-opus-4-6 (us-only)``
    (``pricing.inferencegeo``); its request named ``claude-opus-4-6``."""
    base = us_only_base(model) if agent == "claude" and model is not None else None
    return (model, None) if base is None else (base, US_ONLY_GEO)


def api_tier(model: str | None, agent: str) -> tuple[str | None, str | None]:
    """The model id a Codex call asked the API for, and its service tier when not the standard
    one: agentscan prices and groups a call on the priority tier as ``gpt-5.5 (priority)``
    (``pricing.aliases.service_tier_name``); its request named ``gpt-5.5``."""
    if agent != "codex" or model is None:
        return model, None
    model, tier = service_tier_of(model)
    # A tier whose recorded name was no word (``UNNAMED_TIER``): what the request named is not
    # known, so the attribute is left out rather than given a name the call never sent.
    return model, None if tier == UNNAMED_TIER else tier


def usage_attributes(usage: TokenUsage, agent: str) -> dict[str, int]:
    """Our token vocabulary in GenAI terms, plus the contract's own fields.

    OTel's ``input_tokens`` *includes* cached input, while our ``input`` is
    only the uncached part, so it is ``input + cache_read + cache_write``.
    The ``agentscan.usage.*`` copies keep the contract's disjoint buckets, so
    a dashboard can add them up exactly as ``agentscan tokens`` does.  The
    reasoning counts are left out for an agent whose records never report them
    (``providers.REASONING_NOT_REPORTED``: Claude Code, Cursor): unknown, not 0,
    as ``tokens`` shows ``-`` for them.
    """
    from agentscan.providers import REASONING_NOT_REPORTED

    attributes = {
        "gen_ai.usage.input_tokens": usage.input + usage.cache_read + usage.cache_write,
        "gen_ai.usage.output_tokens": usage.output,
        "gen_ai.usage.cache_read.input_tokens": usage.cache_read,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_write,
        "gen_ai.usage.reasoning.output_tokens": usage.reasoning,
        "agentscan.usage.input": usage.input,
        "agentscan.usage.cache_read": usage.cache_read,
        "agentscan.usage.cache_write": usage.cache_write,
        "agentscan.usage.output": usage.output,
        "agentscan.usage.reasoning": usage.reasoning,
        "agentscan.usage.total": usage.total,
    }
    if agent in REASONING_NOT_REPORTED:
        del attributes["gen_ai.usage.reasoning.output_tokens"], attributes["agentscan.usage.reasoning"]
    return attributes


def tool_type(name: str) -> str:
    """``extension`` for MCP tools (Claude ``mcp__server__tool``, Cursor ``MCP:tool``), else ``function``."""
    return "extension" if name.startswith(("mcp__", "MCP:")) else "function"


#: ``agentscan.tool.status`` / ``agentscan.subagent.status`` of a hook span whose end was never
#: seen: not a failure, and not a success either
UNFINISHED = "unfinished"


def error_status(status: str | None) -> str | None:
    """The ``error.type`` of a tool or turn status, or ``None`` when it did not fail.
    A call the user (or a permission rule) declined did not fail: it was not let run, and
    its ``agentscan.tool.status`` says ``denied``."""
    if status in (None, "ok", "unknown", "completed", UNFINISHED, "denied"):
        return None
    return status


@dataclass(frozen=True, slots=True)
class Content:
    """What may leave the machine: prompts, responses and tool inputs only with ``--include-content``.

    With ``--redact`` any text that is exported becomes a length and a short
    hash, and paths and directories have their secrets masked, exactly as
    ``show --redact`` does.
    """

    include: bool = False
    redact: bool = False

    def text(self, value: Any) -> str | None:
        """Content text, or ``None`` when content is off."""
        if not self.include or value is None:
            return None
        text = value if isinstance(value, str) else _json(value)
        if self.redact:
            from agentscan.export.redact import fingerprint_text

            return fingerprint_text(text)
        return text

    def plain(self, value: str | None) -> str | None:
        """Non-content text that may still hold a secret (a path, a cwd)."""
        if value is None or not self.redact:
            return value
        from agentscan.export.redact import mask_secrets

        return mask_secrets(value)

    def messages(self, role: str, texts: list[str]) -> str | None:
        """``gen_ai.input.messages`` / ``output.messages``: one message per text, JSON-encoded."""
        parts = [self.text(t) for t in texts if t]
        if not self.include or not parts:
            return None
        return _json([{"role": role, "parts": [{"type": "text", "content": p}]} for p in parts])


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
