"""From a recorded model name to the model ref genai-prices is asked about.

Claude Code, Codex and Gemini CLI record API model ids, which the library
matches itself.  Cursor records display names; the library already
understands most of them (``claude-4.5-opus-high-thinking``), and
``CURSOR_ALIASES`` names the few it does not.  Every entry is pinned by a
test (``test_each_cursor_alias_reaches_the_model_it_names`` in
tests/test_pricing_book.py) and documented in docs/pricing.md.
Anything else is looked up as written; a name the library does not know
gets no price, never a guessed one.
"""

from __future__ import annotations

#: the genai-prices provider each agent's models are billed by; ``None``
#: lets the library infer it from the model name (Cursor runs many vendors' models)
PROVIDER_HINTS: dict[str, str | None] = {
    "claude": "anthropic",
    "codex": "openai",
    "gemini": "google",
    "cursor": None,
}

#: names that identify no model, so they are never priced
NOT_A_MODEL = frozenset({
    "default",  # Cursor's "auto" mode: the model it picked is not recorded
    "auto",
    "<synthetic>",  # Claude Code's locally made messages (errors, interruptions)
    "unknown",
})

#: names of messages no model made, so nothing was billed: they cost $0 whatever their
#: tokens say.  Claude Code writes its own error and interruption notices as turns of a
#: ``<synthetic>`` model (with zero usage); priced as "no price" they made a
#: ``--by model`` row, or a session of only such turns, an unknown cost and a warning.
UNBILLED = frozenset({"<synthetic>", "synthetic"})


def unbilled(model: str | None) -> bool:
    """Whether ``model`` names messages no model made (``UNBILLED``), however it is written."""
    return model is not None and model.strip().lower() in UNBILLED

#: Cursor display name -> the API model it runs.  Thinking and effort
#: variants bill at the base model's rates; "fast"/"max" variants do not,
#: so they are deliberately absent.
CURSOR_ALIASES: dict[str, str] = {
    "claude-4.5-sonnet": "claude-sonnet-4-5",
    "claude-4.5-sonnet-thinking": "claude-sonnet-4-5",
    "claude-4.1-opus": "claude-opus-4-1",
    "claude-4.1-opus-thinking": "claude-opus-4-1",
    "gpt-5-high": "gpt-5",
}


def model_ref(provider: str, model: str | None) -> str | None:
    """The name to look up, or ``None`` when the call names no model."""
    if not model or model.strip().lower() in NOT_A_MODEL:
        return None
    name = model.strip()
    if provider == "cursor":
        return CURSOR_ALIASES.get(name.lower(), name)
    return name
