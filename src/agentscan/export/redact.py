"""``--redact``: share output without sharing what the agents read and wrote.

Prompt, response and tool text is replaced by its length and a short hash
(so equal texts stay recognisable across sessions without being readable).
Secrets are masked everywhere else they can appear, paths and titles
included: API keys, cloud and chat tokens, JWTs, private keys, credentials
in URLs and ``Authorization`` headers, and ``*_PASSWORD=``/``secret:``
style values.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Any, Iterable

from agentscan.detailmodel import LocalCommand, Prompt, Response, SessionDetail, ToolEvent
from agentscan.model import ScanWarning, SessionRow

# Secret shapes, after the public rule sets of gitleaks (config/gitleaks.toml) and
# detect-secrets (detect_secrets/plugins); tests/test_hardening_secrets.py holds
# one sample of each.  Patterns with groups keep group 1 (a key name, a URL's
# scheme) and group 2 (the separator) and mask the rest.
_SECRETS = [
    # -----BEGIN … PRIVATE KEY----- blocks, to their END line (or the end of the text)
    re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S),
    # credentials in a URL: scheme://user:password@host
    re.compile(r"(?i)\b([a-z][a-z0-9+.-]{1,20}://)()[^\s/:@'\"]+:[^\s/@'\"]+(?=@)"),
    # Anthropic, OpenAI (sk-, sk-proj-, sk-svcacct-), DeepSeek-style keys
    re.compile(r"\bsk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|None-|live-|test-)?[A-Za-z0-9_\-]{16,}"),
    # Stripe secret and restricted keys (live and test)
    re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    re.compile(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
    re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"),  # GitLab personal access tokens
    re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),  # Slack tokens
    re.compile(r"\bxapp-\d-[A-Za-z0-9-]{10,}"),  # Slack app tokens
    re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_-]{20,}"),  # Slack webhooks
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),  # Google API keys
    re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),  # npm tokens
    re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),  # PyPI upload tokens
    re.compile(r"\bhf_[A-Za-z]{34}\b"),  # Hugging Face tokens
    re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),  # SendGrid
    re.compile(r"\bSK[0-9a-fA-F]{32}\b"),  # Twilio API keys
    re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b"),  # DigitalOcean tokens
    re.compile(r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}"),  # HashiCorp Vault tokens
    # JSON Web Tokens: base64url header and payload (both start with '{"' = eyJ), then a signature
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
    # Authorization: Basic / Bearer / Token <credentials>
    re.compile(r"(?i)\b(basic|bearer|token)(\s+)[A-Za-z0-9._~+/=\-]{8,}"),
    # ... URL-encoded, as OTEL_EXPORTER_OTLP_HEADERS writes it (``Authorization=Basic%20…``)
    re.compile(r"(?i)\b(basic|bearer|token)(%20|\+)[A-Za-z0-9._~+/=%\-]{8,}"),
    # key=value and "key": "value" where the key names a secret, prefixed or not
    # (DB_PASSWORD=, AWS_SECRET_ACCESS_KEY=, client_secret:, "api_key": "…")
    re.compile(
        r"(?i)\b([\w.\-]*?(?:password|passwd|pwd|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|token|credentials?"
        # (OTLP vendors' header names: Honeycomb's, SigNoz's, New Relic's)
        r"|honeycomb[_\-]team|ingestion[_\-]key|license[_\-]key))"
        r"([\"']?\s*[=:]\s*)(?:\"[^\"]*\"|'[^']*'|[^\s&;,\"']+)"
    ),
]
MASK = "[secret]"


def mask_secrets(text: str | None) -> str | None:
    if not text:
        return text
    for pattern in _SECRETS:
        if pattern.groups:
            text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
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
        # the workspace's other folders are paths as the cwd is: masked alike
        workspace_folders=tuple(mask_secrets(folder) or "" for folder in row.workspace_folders),
        path=mask_secrets(row.path),
        git_branch=mask_secrets(row.git_branch),
    )


def _tool(event: ToolEvent) -> ToolEvent:
    return replace(event, summary=fingerprint_text(event.summary) or "", paths=tuple(mask_secrets(p) or "" for p in event.paths),
                   error=fingerprint_text(event.error))


def _texts(items: Iterable[Prompt | Response]) -> tuple[Any, ...]:
    return tuple(replace(item, text=fingerprint_text(item.text) or "") for item in items)


def _command(command: LocalCommand) -> LocalCommand:
    """A slash command the agent's CLI ran itself, its name kept (the CLI's own: ``/add-dir``)
    and its arguments redacted: what the user typed after it (a path, ``/memory add`` text)."""
    name, _, arguments = command.text.partition(" ")
    said = f"{mask_secrets(name)} {fingerprint_text(arguments.strip())}" if arguments.strip() else mask_secrets(name)
    return replace(command, text=said or "")


def redact_detail(detail: SessionDetail) -> SessionDetail:
    return replace(
        detail,
        row=redact_row(detail.row),
        prompts=_texts(detail.prompts),
        local_commands=tuple(_command(command) for command in detail.local_commands),
        responses=_texts(detail.responses),
        tools=tuple(_tool(t) for t in detail.tools),
        # A subagent's task and replies are conversation text like the session's own.
        subagents=tuple(replace(s, path=mask_secrets(s.path), prompts=_texts(s.prompts), responses=_texts(s.responses))
                        for s in detail.subagents),
        plan=tuple(replace(step, step=fingerprint_text(step.step) or "") for step in detail.plan),
        extra={key: _redact_extra(key, value) for key, value in detail.extra.items()},
    )


# Provider extras that carry conversation text (model-written or quoted from it): Cursor's
# delegations (a Task call's description) and every provider's errors (``{"text",
# "timestamp", "kind", "subagent"}``: ``DetailCollector.errors``), whose text quotes what
# the provider sent back (a refused prompt, a path).
_TEXT_FIELDS = {"delegations": ("description",), "errors": ("text",)}


def _redact_extra(key: str, value: Any) -> Any:
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


def redact_warnings(warnings: Iterable[ScanWarning]) -> list[ScanWarning]:
    """Warnings name files, never content; a file's path may still hold a secret."""
    return [ScanWarning(mask_secrets(w.path) or "", mask_secrets(w.message) or "", w.line) for w in warnings]


def redact_doctor(report: dict[str, Any]) -> dict[str, Any]:
    """A ``doctor`` report safe to paste into a bug report: titles hashed, secrets masked."""
    report = _redact_value(report)
    for provider in report.get("providers", []):
        newest = provider.get("newest")
        if isinstance(newest, dict) and isinstance(newest.get("title"), str):
            newest["title"] = fingerprint_text(newest["title"])
    return report


__all__ = ["fingerprint_text", "mask_secrets", "redact_detail", "redact_doctor", "redact_row", "redact_warnings"]
