"""A Claude model's short name (``sonnet-4.5``) and the recorded names it stands for.

Tables show ``opus-4.5`` for ``claude-opus-4-5-20251101`` on a terminal, and a
person copies the model from the table into ``agentscan prices``: both ways are
kept here, on one pattern, so that every name a table shows is looked up again.
No heavy imports: ``list`` shortens its models with this.
"""

from __future__ import annotations

import functools

import re

from agentscan.pricing.inferencegeo import us_only_base

# A version is a number of one or two digits, and a minor one after it, each a word of the
# name of its own: ``4-20250514`` (a date ``undated`` left, with more after it) is no 4.20250514,
# nor ``4-1m`` 4.1.  ASCII letters spelt out: IGNORECASE's ``[a-z]`` takes "ſ" and "K" too.
_VERSION = r"(?P<major>[0-9]{1,2})(?:[-.](?P<minor>[0-9]{1,2}))?(?![0-9A-Za-z.])"
#: Anthropic's spelling since Claude 4: ``claude-sonnet-4-5``, ``claude-opus-4-8-fast``;
#: without ``claude-``, the short name itself (``sonnet-4.5``, ``opus-4.8-fast``)
_FAMILY_FIRST = re.compile(rf"(?P<family>[A-Za-z]+)-{_VERSION}(?P<tail>.*)$")
#: Claude 3's and Cursor's: ``claude-3-5-sonnet``, ``claude-4.5-sonnet-thinking``
_VERSION_FIRST = re.compile(rf"{_VERSION}-(?P<family>[A-Za-z]+)(?![0-9A-Za-z.])(?P<tail>.*)$")


def undated(model: str) -> str:
    """``model`` without a snapshot's date: ``claude-sonnet-4-5`` for ``claude-sonnet-4-5-20250929``,
    and ``claude-sonnet-4-5 (us-only)`` for a US-only call's (``inferencegeo``: the date is
    before the suffix; a terminal's ``tokens --by model`` showed ``sonnet-4.5`` beside
    ``sonnet-4.5-20250929 (us-only)``)."""
    if model.endswith(")"):
        base = us_only_base(model)
        if base is not None:
            return undated(base) + model[len(base):]
    if len(model) > 9 and model[-9] == "-" and model[-8:].isdigit() and model[-8:-6] in ("19", "20"):
        return model[:-9]
    return model


def short_name(model: str) -> str:
    """``opus-4.5`` for ``claude-opus-4-5`` (an undated name): the family names Claude alone,
    and one model reads the same from every agent: Claude Code's ``claude-sonnet-4-5`` and
    Cursor's ``claude-4.5-sonnet`` are both ``sonnet-4.5``, as Anthropic writes it
    (``claude-3-5-sonnet``: ``sonnet-3.5``).  Any other name as it is."""
    if not model.startswith("claude-"):
        return model
    named = _FAMILY_FIRST.match(model, 7) or _VERSION_FIRST.match(model, 7)
    if named is not None:
        version = named["major"] + (f".{named['minor']}" if named["minor"] else "")
        return f"{named['family']}-{version}{named['tail']}"
    if model[7:8].isalpha():
        return model[7:]  # a family and no version it can read (``claude-v1``): as it is
    return model


@functools.lru_cache(maxsize=256)  # per row of a heavy user's ``list --grep``: a handful of models
def spellings(model: str) -> tuple[str, ...]:
    """``model`` as recorded and as a table shows it on a terminal (``short_name`` of it
    ``undated``): ``list --grep opus-4.6`` finds the row whose MODEL reads ``opus-4.6``."""
    shown = short_name(undated(model))
    return (model,) if shown == model else (model, shown)


def recorded_names(short: str, agents: list[str]) -> list[tuple[str, str]]:
    """(agent, recorded name) that ``short_name`` may have made ``short`` from, for those of
    ``agents`` that record Claude models: Anthropic's since Claude 4 (``claude-sonnet-4-5``),
    Claude 3's (``claude-3-5-sonnet``) and Cursor's (``claude-4.5-sonnet``).  None for a name
    of no family and version (one that starts ``claude-`` is already whole); a name of
    another vendor's that looks like one (``gpt-5``) gets names the price data has not."""
    named = _FAMILY_FIRST.match(short)
    if named is None or short.lower().startswith("claude-"):
        return []
    family, major, minor, tail = named["family"], named["major"], named["minor"], named["tail"]
    dashed = major + (f"-{minor}" if minor else "")
    made = []
    if "claude" in agents:
        made += [("claude", f"claude-{family}-{dashed}{tail}"), ("claude", f"claude-{dashed}-{family}{tail}")]
    if "cursor" in agents:
        made.append(("cursor", f"claude-{major}{f'.{minor}' if minor else ''}-{family}{tail}"))
    return made
