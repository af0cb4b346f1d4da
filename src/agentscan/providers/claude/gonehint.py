"""What ``show <id>`` says of a Claude session whose every file is gone, when another
session's transcript holds a copy of its conversation (``Provider.known_gone``).

Claude Code deletes old transcripts (``cleanupPeriodDays``); a session resumed from one
begins with a copy of its records.  A session with nothing of its own left (no
``<id>/subagents/`` folder either) is no session discovery finds, and ``show`` said only
"no session matches", though ``show`` of the resumed one lists that conversation.  Only what
is cheap is read, as every mistyped id asks: each transcript's head (the session its first
record names, the chain's first, remembered per file, as ``list`` reads it) and the chains
of copies already read for a ``show`` or ``tokens`` (``copyholders.remembered_head``'s, not
read again here: a middle session's copies are named when one was read once).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.toolkit.andmore import cut_lines, first_of

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.toolkit.roots import Root

#: how many gone sessions, and how many transcripts holding each, a "no session matches" names
_SHOWN = 3


def known_gone(prefix: str, roots: list[Root], ctx: ScanContext) -> list[str]:
    """One line for each gone session whose id starts with ``prefix`` (lower-cased) that the
    transcripts under ``roots`` copied: the transcripts (``claude:<id>``) whose cards list it."""
    from agentscan.providers.claude.copyholders import FACTS, same_head_file
    from agentscan.providers.claude.discovery import admitted_entries
    from agentscan.providers.claude.resumedfiles import resumed_from
    from agentscan.toolkit.fsutil import is_dir, is_file

    chains = ctx.remembered(FACTS)
    holders: dict[str, list[str]] = {}
    for root in roots:
        for project in admitted_entries(str(root.path), ctx, report=False):
            if not is_dir(project):
                continue
            for entry in admitted_entries(project.path, ctx, report=False):
                name = entry.name
                if not name.endswith(".jsonl") or name.startswith("agent-") or not is_file(entry):
                    continue
                own = name[: -len(".jsonl")]
                path = Path(entry.path)
                first = resumed_from(own, path, ctx)
                if first is None:
                    continue  # (no copies: not resumed)
                known = chains.last(entry.path)
                chain = known.get("chain") if same_head_file(known, ctx.stat(entry.path)) else None
                named = [first, *(n for n in chain if isinstance(n, str))] if isinstance(chain, list) else [first]
                for session in dict.fromkeys(named):
                    if (session != own and session.lower().startswith(prefix)
                            and not os.path.lexists(os.path.join(project.path, f"{session}.jsonl"))):
                        holders.setdefault(session, []).append(own)
    lines = []
    for session, held in sorted(holders.items()):
        held = sorted(set(held))
        names = first_of(held, _SHOWN, say="claude:{}".format)
        lines.append(f"claude:{session}'s transcript is gone (Claude Code deletes old ones); its records are copied "
                     f"at the start of {names}'s: `agentscan show` of {'it' if len(held) == 1 else 'one'} lists them"
                     f"{'' if len(held) == 1 else ', or names the one that does'}")
    return cut_lines(lines, _SHOWN, "gone session")  # (the rest counted, as every cut list: not left out unsaid)

