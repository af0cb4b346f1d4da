"""What a Claude record tells of an error: an API error written as a reply, a ``system``
record of an error subtype, a refusal, a hook that failed.  ``show``'s forward read
(``detail``) and the facts of a huge transcript (``showfacts``) keep them by this one rule.
"""

from __future__ import annotations

from typing import Any

from agentscan.providers.claude.records import (SYNTHETIC_MODELS, as_dict, as_str, collapse, content_blocks, message_of,
                                                text_of_blocks)

#: ``system`` subtypes that tell of an error or a refusal, besides any ``…_error`` one
_ERROR_SUBTYPES = frozenset({"error", "api_refusal", "model_refusal_fallback"})


def is_local_reply(record: dict[str, Any]) -> bool:
    """An assistant record Claude Code wrote itself, not an error (model ``<synthetic>``:
    "No response requested." after the user interrupted): no model's reply, so no response,
    and it ends the reply before it as an API error does."""
    model = message_of(record).get("model")
    return model.__class__ is str and model in SYNTHETIC_MODELS and record.get("isApiErrorMessage") is not True


def is_api_error(record: dict[str, Any]) -> bool:
    """An assistant record Claude Code wrote for a failed request (``API Error: Rate limit
    reached``, model ``<synthetic>``, no usage): an error, never a reply."""
    return record.get("isApiErrorMessage") is True



def recorded_error(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(kind, text)`` when ``record`` tells of an error: an API error written as a reply
    (kind: its ``error``, ``rate_limit``…, else ``api_error``), or a ``system`` record of an
    error subtype (``api_error``, ``error``, ``api_refusal``…: the kind is the subtype), or a
    ``stop_hook_summary`` that recorded hook errors (kind ``hook``: ``_hook_errors``).
    Both whole: what keeps them cuts them (``DetailCollector.add_error``, ``ShowFacts.error``)."""
    kind = record.get("type")
    if kind == "assistant":
        if not is_api_error(record):
            return None
        label = as_str(record.get("error")) or "api_error"
        text = text_of_blocks(content_blocks(message_of(record))).strip()
        return label, text or _with_status(label, record.get("apiErrorStatus"))
    subtype = record.get("subtype")
    if kind != "system" or not isinstance(subtype, str):
        return None
    if subtype.endswith("hook_summary"):
        return _hook_errors(record)
    if not (subtype in _ERROR_SUBTYPES or subtype.endswith("_error")):
        return None
    if "refusal" in subtype:
        return subtype, _refusal_text(record)
    error = record.get("error")
    content = record.get("content")
    text = _error_message(error) or (content.strip() if isinstance(content, str) and content.strip() else subtype.replace("_", " "))
    text = _with_status(text, as_dict(error).get("status"))
    attempt, most = record.get("retryAttempt"), record.get("maxRetries")
    if type(attempt) is int and type(most) is int and 0 < attempt <= most:
        text += f" (retry {attempt} of {most})"  # an ``api_error`` is one failed try of a request
    return subtype, text


def _hook_errors(record: dict[str, Any]) -> tuple[str, str] | None:
    """``("hook", text)`` for a ``stop_hook_summary`` (any ``…hook_summary``) that recorded
    hook errors (``hookErrors``): ``stop hook: stop.sh exited 2: tests failing``, one line,
    joined by ``;``, and whether the hooks prevented the agent from going on; else ``None``."""
    found = record.get("hookErrors")
    texts = [collapse(text) for text in found if isinstance(text, str) and text.strip()] if isinstance(found, list) else []
    if not texts:
        return None
    hook = str(record["subtype"])[:-len("hook_summary")].strip("_").replace("_", " ")
    text = (f"{hook} hook: " if hook else "hook: ") + "; ".join(texts)
    if record.get("preventedContinuation") is True:
        reason = as_str(record.get("stopReason"))
        text += f" (prevented continuation: {collapse(reason)})" if reason and reason not in text else " (prevented continuation)"
    return "hook", text


def _with_status(text: str, status: object) -> str:
    """``429 Rate limited``: the HTTP status first, when recorded and not already said."""
    if type(status) is int and status > 0 and str(status) not in text:
        return f"{status} {text}"
    return text


def _error_message(error: object, depth: int = 0) -> str | None:
    """The readable part of a recorded error: itself (a text), its ``message`` or
    ``formatted``, else the innermost ``error`` of an API error's body, else its ``type``."""
    if isinstance(error, str):
        return error.strip() or None
    if not isinstance(error, dict) or depth > 4:
        return None
    for key in ("message", "formatted"):
        found = error.get(key)
        if isinstance(found, str) and found.strip():
            return found.strip()
    return _error_message(error.get("error"), depth + 1) or as_str(error.get("type"))


def _refusal_text(record: dict[str, Any]) -> str:
    """``refused (policy): why``, and for a fallback which model then answered."""
    category, why = as_str(record.get("apiRefusalCategory")), as_str(record.get("apiRefusalExplanation"))
    content = as_str(record.get("content"))
    if why is None and content is not None and content.strip() != "refusal":  # (the api_refusal's bare tag)
        why = content
    text = "refused" + (f" ({category})" if category else "") + (f": {why.strip()}" if why and why.strip() else "")
    original, fallback = as_str(record.get("originalModel")), as_str(record.get("fallbackModel"))
    if record.get("subtype") == "model_refusal_fallback" and fallback:
        text += f"; fell back from {original} to {fallback}" if original else f"; fell back to {fallback}"
    return text
