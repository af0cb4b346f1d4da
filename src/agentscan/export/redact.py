"""``--redact``: share output without sharing what the agents read and wrote.

Prompt, response and tool text is replaced by its length and a short hash
(so equal texts stay recognisable across sessions without being readable).
Secrets are masked everywhere else they can appear, paths and titles
included: API keys, cloud and chat tokens, bearer tokens, ``password=``
values.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Any

from agentscan.model import Prompt, Response, SessionDetail, SessionRow, ToolEvent

_SECRETS = [
    re.compile(r"sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"),  # OpenAI / Anthropic / Stripe style keys
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),  # Slack tokens
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API keys
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{12,}"),
    re.compile(r"(?i)\b(password|passwd|pwd|secret|api[_-]?key|token)\s*[=:]\s*(?:\"[^\"]*\"|'[^']*'|[^\s&;,\"']+)"),
]
MASK = "[secret]"


def mask_secrets(text: str | None) -> str | None:
    if not text:
        return text
    for pattern in _SECRETS:
        if pattern.groups:
            text = pattern.sub(lambda m: f"{m.group(1)}={MASK}", text)
        else:
            text = pattern.sub(MASK, text)
    return text


def fingerprint_text(text: str | None) -> str | None:
    """``[redacted: 1,234 chars, #3f9a1c2b]``: a length and a short hash."""
    if text is None:
        return None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"[redacted: {len(text):,} chars, #{digest}]"


def redact_row(row: SessionRow) -> SessionRow:
    return replace(
        row,
        title=fingerprint_text(row.title),
        cwd=mask_secrets(row.cwd),
        path=mask_secrets(row.path),
        git_branch=mask_secrets(row.git_branch),
    )


def _tool(event: ToolEvent) -> ToolEvent:
    return replace(event, summary=fingerprint_text(event.summary) or "", paths=tuple(mask_secrets(p) or "" for p in event.paths))


def redact_detail(detail: SessionDetail) -> SessionDetail:
    return replace(
        detail,
        row=redact_row(detail.row),
        prompts=tuple(Prompt(fingerprint_text(p.text) or "", p.timestamp) for p in detail.prompts),
        responses=tuple(Response(fingerprint_text(r.text) or "", r.timestamp, r.model) for r in detail.responses),
        tools=tuple(_tool(t) for t in detail.tools),
        subagents=tuple(replace(s, path=mask_secrets(s.path)) for s in detail.subagents),
        plan=tuple(replace(step, step=fingerprint_text(step.step) or "") for step in detail.plan),
        extra={key: _redact_extra(key, value) for key, value in detail.extra.items()},
    )


# Provider extras that carry conversation text (model-written or quoted from it):
# Cursor's delegations (a Task call's description) and error lines.
_TEXT_FIELDS = {"delegations": ("description",)}
_TEXT_LISTS = ("errors",)


def _redact_extra(key: str, value: Any) -> Any:
    if key in _TEXT_LISTS and isinstance(value, list):
        return [fingerprint_text(item) if isinstance(item, str) else _redact_value(item) for item in value]
    fields = _TEXT_FIELDS.get(key, ())
    if fields and isinstance(value, list):
        return [
            {k: fingerprint_text(v) if k in fields and isinstance(v, str) else _redact_value(v) for k, v in item.items()}
            if isinstance(item, dict) else _redact_value(item)
            for item in value
        ]
    return _redact_value(value)


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, list):
        return [_redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    return value


__all__ = ["fingerprint_text", "mask_secrets", "redact_detail", "redact_row"]
