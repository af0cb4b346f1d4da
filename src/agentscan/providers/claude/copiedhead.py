"""What a resumed Claude session that has no record of its own yet says of itself (its file
holds only the records ``claude --resume`` copied from its first session): the directory,
model, branch and title of those copies, by the row's own rules (``row.summarize`` reading
them as the session's own records, ``sessionrow.row_facts``).  The session ran in that
directory (Claude Code resumes a session from its project's folder, where the new transcript
is written), on that conversation, and Claude Code's own resume list names it by it; its
row showed ``-`` for them beside the tokens and cost of the copies it counts.  Its tokens
are left as the resume rules count them (docs/providers/claude.md).  The row's pass skips
every copy: read again here only for such a session, a rare one, and only its first
``LOOKED_AT`` lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from agentscan.toolkit.fsutil import open_regular

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.providers.claude.filesummary import FileSummary

#: the lines read at most (a first prompt and call are among the first few; the model and
#: branch are those of the lines read)
LOOKED_AT = 2_000


def without_own_records(main: FileSummary | None) -> TypeGuard[FileSummary]:
    """Whether ``main`` is a resumed session's transcript of copies alone."""
    return main is not None and main.resumed_from is not None and main.resumed_copies > 0 and not main.own_met


def copies_read_as_own(main: FileSummary, ctx: ScanContext) -> FileSummary:
    """The summary of ``without_own_records``' transcript ``main`` were its copies its own
    records: ``row.summarize``'s pass over them with ``copies_as_own``, without totals (its
    tokens are the resume rules'), up to ``LOOKED_AT`` lines.  Its row takes its title, cwd,
    model and branch from it (``sessionrow``, by ``row_facts``, the rules of every row)."""
    from agentscan.providers.claude.row import summarize

    with ctx.held_warnings():  # (the row's pass said what is wrong with the file, once)
        return summarize(main.path, ctx, end=_end_of_lines(main.path, LOOKED_AT), copies_as_own=True)


def _end_of_lines(path: Path, lines: int) -> int | None:
    """Where the file's first ``lines`` lines end (``None``: it has no more, or cannot be read:
    the pass says so)."""
    done = 0
    try:
        with open_regular(path) as handle:
            while chunk := handle.read(1 << 20):
                at = -1
                while (at := chunk.find(b"\n", at + 1)) >= 0:
                    lines -= 1
                    if not lines:
                        return done + at + 1
                done += len(chunk)
    except OSError:
        return None
    return None
