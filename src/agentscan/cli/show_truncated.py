"""What ``show``'s bounds left out, in words (``SessionDetail.truncated``): the card's and
``--full``'s closing ``bounded:`` line."""

from __future__ import annotations

from agentscan.cli.render import plural

#: what ``SessionDetail.truncated``'s counts are, in words (docs/json.md): the word, what
#: befell it, and its plural when adding an "s" would not do
_TRUNCATED: dict[str, tuple[str, ...]] = {
    "prompts": ("older prompt", "dropped"), "responses": ("older response", "dropped"),
    "tools": ("older tool call", "dropped"), "clipped_messages": ("message", "cut at 64 KiB"),
    # (``toolkit.detail.SUMMARY_BYTES``: spelt out, as 64 KiB is, so the text view imports no collector)
    "clipped_tools": ("tool call summary", "cut at 1,600 bytes", "tool call summaries"),
    "subagent_prompts": ("older subagent prompt", "dropped"),
    "subagent_responses": ("older subagent response", "dropped"),
}


def truncation_note(truncated: dict[str, int], *, grouped: bool = True) -> str | None:
    """What the bounds left out, in words: ``bounded: 304 older prompts dropped, 1 message cut at 64 KiB``.
    ``grouped``: counts with thousands separators, for a terminal (a pipe's are plain, as the
    card's counts and tokens are there: docs/cli.md)."""
    parts = []
    for key, count in truncated.items():
        if not count:
            continue
        word, what, *words = _TRUNCATED.get(key, (key, ""))
        said = plural(count, word, *words)
        if not grouped:
            said = f"{count}{said[len(f'{count:,}'):]}"
        parts.append(f"{said} {what}".rstrip())
    return "bounded: " + ", ".join(parts) if parts else None
