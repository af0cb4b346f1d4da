"""The card's words for where a session came from and what came of it: how Codex was run
(``source`` among the detail's extras: ``codex exec``, the interactive CLI, …) and the
sessions forked from it (``forked_as``: the reverse of a fork's ``forked from`` line); the
session a Claude session was resumed from, and those resumed from it; the directory a Claude
session moved from; what was taken back and is not listed (rewinds, retracted replies)."""

from __future__ import annotations

from typing import Callable

from agentscan.cli.term import clean, clean_path, home_short
from agentscan.detailmodel import SessionDetail
from agentscan.pricing.aliases import UNNAMED_TIER
from agentscan.toolkit.words import plural

#: how each source Codex writes in its ``session_meta`` is said; another is said as written
_SOURCES = {
    "exec": "codex exec (non-interactive)",
    "cli": "codex (interactive terminal)",
    "vscode": "codex in an IDE extension (vscode)",
    "mcp": "codex mcp-server (driven by an MCP client)",
    "subagent": "a Codex subagent thread",
}


def source_text(detail: SessionDetail) -> str | None:
    """The ``source`` line's value; ``None``: not known (or not a Codex session)."""
    source = detail.extra.get("source")
    if not isinstance(source, str) or not source:
        return None
    return _SOURCES.get(source) or clean(source)


def moved_text(detail: SessionDetail, home_shortened: bool) -> str:
    """The ``moved`` line's value: ``from <the directory its first record names>`` (a Claude
    session that moved is counted whole under the directory it moved to, its ``cwd``).
    ``home_shortened``: ``~/src/app`` (a terminal's, as its ``cwd`` line), else the whole path
    (a pipe's)."""
    first = detail.extra["moved_from"]
    return f"from {clean_path(home_short(first) if home_shortened else first)}"


def taken_back_fields(detail: SessionDetail, said_as: Callable[[int, str], str], *,
                      grouped: bool) -> list[tuple[str, str]]:
    """The card's ``rewound`` line (the messages of a branch the user rewound or edited away)
    and ``replies`` line (replies Claude Code took back, refused or aborted): not listed, their
    calls still counted.  ``grouped``: a terminal's thousands separators."""
    fields = []
    rewound, retracted = detail.extra.get("rewound_messages"), detail.extra.get("retracted_replies")
    if rewound:
        fields.append(("rewound", f"{said_as(rewound, 'message')} (their tokens still count)"))
    if retracted:
        fields.append(("replies", f"{f'{retracted:,}' if grouped else retracted} taken back (their tokens still count)"))
    return fields


def forked_as_text(detail: SessionDetail, *, grouped: bool = True) -> str | None:
    """The reverse ``forked`` line's value (``as codex:<id>, …: …``); ``None``: no fork.
    ``grouped``: the count with thousands separators (a terminal's; a pipe's plain)."""
    forks = [name for name in detail.extra.get("forked_as") or () if isinstance(name, str)]
    if not forks:
        return None
    total = detail.extra.get("forked_as_total")
    more = (f" (newest {len(forks)} of {f'{total:,}' if grouped else total})"
            if type(total) is int and total > len(forks) else "")
    whose = "its rollout begins" if len(forks) == 1 and not more else "their rollouts begin"
    return f"as {', '.join(clean_path(name) for name in forks)}{more}: {whose} with a copy of this one's history"


def forked_gone_text(detail: SessionDetail, said_as: Callable[[int, str], str]) -> str:
    """The ``forked`` line's value of a Codex fork whose parent is not found (its
    ``forked_from``): no ``show`` of it to suggest; its copy of that conversation, the only
    one left, is listed with the fork's own (``forked_copies_listed``), and its copied calls
    count in the fork, but for those each thread ``forked_counted_in`` names copied too and
    those of the thread found up the chain (``forked_through``: ``providers/codex/goneshow``),
    as ``tokens`` counts them.  ``said_as``: how a count is said with its noun (the card's)."""
    parent = clean_path(str(detail.extra.get("forked_from")))
    prompts = said_as(detail.extra.get("forked_after_prompts", 0), "prompt")
    through = detail.extra.get("forked_through")
    through = clean_path(through) if isinstance(through, str) else None
    # (a fork of a gone fork: the part of the thread found up the chain is listed by its show)
    whose = (f"its history past {through}'s part" if through is not None
             and detail.extra.get("forked_through_listed") is False else "its history")
    listed = (" is listed below with this fork's (the counts are this fork's own); its calls"
              if detail.extra.get("forked_copies_listed") else "'s calls")
    elsewhere = []
    forks = [fork for fork in detail.extra.get("forked_counted_in") or () if isinstance(fork, dict)]
    if forks:
        named = ", ".join(
            f"{clean_path(str(fork.get('session')))} (an earlier fork of "
            f"{'it' if fork.get('forked_from') == detail.extra.get('forked_from') else clean_path(str(fork.get('forked_from')))})"
            for fork in forks)
        elsewhere.append(f"those {named} copied too count there")
    if through is not None:
        elsewhere.append(f"those it copied from {through} count there")
    but = f", but {' and '.join(elsewhere)}" if elsewhere else ""
    return (f"from {parent} after its {prompts}, which is not found: {whose}, copied at the start of this "
            f"rollout,{listed} count here{but}, as tokens counts them")


def resumed_text(detail: SessionDetail, side: str) -> str | None:
    """A ``resumed`` line's value: ``side`` ``"from"``, the session this one was resumed from
    (the row's ``resumed_from``), ``"as"``, those resumed from it (``resumed_as``); ``None``:
    none."""
    if side == "as":
        later = [name for name in detail.extra.get("resumed_as") or () if isinstance(name, str)]
        if not later:
            return None
        # (sessions resumed from this one, whose transcripts begin with its records; of a chain
        # A → B → C, A's card names B, then C, resumed from B: ``resumed_next``)
        nearest = [name for name in detail.extra.get("resumed_next") or () if name in later] or later
        then = [name for name in later if name not in nearest]
        whose = "its transcript begins" if len(nearest) == 1 else "their transcripts begin"
        chain = f" (then {', '.join(clean_path(name) for name in then)})" if then else ""
        return f"as {', '.join(clean_path(name) for name in nearest)}{chain}: {whose} with a copy of this one's records"
    resumed = detail.row.resumed_from
    if not resumed:
        return None
    held = _held_parts(detail)
    if detail.extra.get("resumed_copies_listed"):
        # (that session's transcript is gone, Claude Code's clean-up the likeliest cause: this
        # one holds the only copy of its conversation, listed here: ``resumedshow``)
        # ("whose transcript": a session whose subagents' files are left is still listed)
        if held:
            # (a gone session resumed again after it went on: the start of what this one
            # copied is counted, and listed, in a sibling's copy too: ``resumedshow.HeldCopies``)
            return (f"from {clean_path(resumed)}, whose transcript is not found: its records, copied at the start of "
                    "this transcript, are listed below with this session's (the counts are this session's own), "
                    f"but for {_parts_text(held)}, which copied them too and where their calls count; "
                    "the calls of those listed here count here, as tokens counts them")
        return (f"from {clean_path(resumed)}, whose transcript is not found: its records, copied at the start of this "
                "transcript, are listed below with this session's (the counts are this session's own); "
                "their calls count here, or in another session resumed from it, as tokens counts them")
    holder = detail.extra.get("resumed_copies_in")
    if len(held) > 1:
        # (parts of it held by different siblings, each where its calls count)
        return (f"from {clean_path(resumed)}, whose transcript is not found: its records, copied at the start of "
                f"this transcript, are not listed here: {_parts_text(held)}, which copied them too and where "
                "their calls count, as tokens counts them")
    if isinstance(holder, str) and holder:
        # (a gone session resumed twice: its conversation listed, and its calls counted, in the
        # nearer copy, then the one of the smaller id: ``providers/claude/copyholders``)
        return (f"from {clean_path(resumed)}, whose transcript is not found: its records are copied at the start of "
                f"this transcript and of {clean_path(holder)}'s, whose card lists them and where their calls count, "
                "as tokens counts them")
    # (its card's figures leave the copied calls to that session when it is found, as
    # ``tokens`` does: ``scan.creditedrows``)
    # (in a chain A → B → C, C's copy of B's transcript holds B's copy of A's records too: each
    # counts in the session that made it, as ``tokens`` counts it)
    counted = ("their calls count in the sessions that made them" if detail.extra.get("resumed_counted_there")
               else "that session is not found: counted here, or in another session resumed from it, "
                    "as tokens counts them")
    return f"from {clean_path(resumed)}: its first records are a copy of that session's transcript, not listed here; {counted}"


def _held_parts(detail: SessionDetail) -> list[tuple[str, int]]:
    """``resumed_copies_held``: the parts of the copies other cards list, in order, each by
    its session and its prompts."""
    parts = detail.extra.get("resumed_copies_held")
    return [(part["session"], part["prompts"] if type(part.get("prompts")) is int else 0)
            for part in parts if isinstance(part, dict) and isinstance(part.get("session"), str)
            ] if isinstance(parts, list) else []


def _parts_text(held: list[tuple[str, int]]) -> str:
    """``those of its first 2 prompts, listed on claude:<B>'s card, and those of its next 1
    prompt, listed on claude:<D>'s card``: a part of the copies for each card that lists it."""
    said = []
    for at, (holder, prompts) in enumerate(held):
        which = "first" if at == 0 else "next"
        part = (f"those of its {which} {plural(prompts, 'prompt')}" if prompts
                else f"its {which} records (no prompt)")
        said.append(f"{part}, listed on {clean_path(holder)}'s card")
    return ", and ".join(said)


#: what ``copied_listed`` counts (``toolkit.detailcounts.CopiedItems``), none where nothing was copied
_COPIED = ("prompts", "tool_calls", "subagent_tool_calls", "compactions")


def copied_listed(detail: SessionDetail) -> dict[str, int]:
    """Of the items ``detail`` lists, how many are copies of another session's records (a
    resumed session's of a gone one's: ``resumed_copies_listed``), by kind; all 0 for none."""
    found = detail.extra.get("copied_listed")
    found = found if isinstance(found, dict) else {}
    return {kind: value if type(value := found.get(kind)) is int and value > 0 else 0 for kind in _COPIED}


def copies_text(copied: dict[str, int], said_as: Callable[[int, str], str], n: Callable[[int], str]) -> str:
    """``; copies listed: 1 prompt, 11 tool calls (+2 by subagents), 1 compaction``: what the
    card lists of the copies beside the session's own counts (``""``: none)."""
    if not any(copied.values()):
        return ""
    theirs = copied["subagent_tool_calls"]
    parts = [said_as(copied["prompts"], "prompt")] if copied["prompts"] else []
    if copied["tool_calls"] or theirs:  # (none: not said, as the card's compactions are not)
        parts.append(said_as(copied["tool_calls"], "tool call") + (f" (+{n(theirs)} by subagents)" if theirs else ""))
    if copied["compactions"]:
        parts.append(said_as(copied["compactions"], "compaction"))
    return "; copies listed: " + ", ".join(parts)


def tiers_text(detail: SessionDetail) -> str:
    """`` (2 of its 3 calls on the priority tier)``: the calls of a Codex session billed on a
    service tier (``service_tiers``, the standard one ``default``), after its cost (``""``: none)."""
    tiers = detail.extra.get("service_tiers")
    if not isinstance(tiers, dict):
        return ""
    counts = {str(tier): count for tier, count in tiers.items() if type(count) is int and count > 0}
    said = [f"{count:,} on a tier whose recorded name is not a word" if tier == UNNAMED_TIER else f"{count:,} on the {clean(tier)} tier"
            for tier, count in counts.items() if tier != "default"]
    if not said:
        return ""
    total = sum(counts.values())
    return f" ({', '.join(said)}, of its {plural(total, 'call')})"
