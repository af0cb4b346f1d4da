"""The transcript a hook session names, read from the end of its events file.

``show <hook-only id>`` hints at the command that reads the session's transcript: it needs only
the latest ``transcript_path`` the events name (as the tree has it), which the last lines give.
Reading the whole file for it took a 200 MB events store's every line; from the end, it stops
once the lines are older than the one found by more than a hook can take to write its line.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

from agentscan.hooks.store import WRITTEN_START, StoredSession, line_decoder

#: how much later than its capture a hook may write its line (it reads stdin for at most 5 s):
#: a line written earlier in the file than the one found cannot be captured later than this
WRITE_DELAY_NS = 30_000_000_000
CHUNK = 64 * 1024


def latest_transcript_path(session: StoredSession) -> str | None:
    """The ``transcript_path`` of the latest event (by capture time, then line) that names one,
    never a subagent's own (``tree.under_subagents``): ``session.transcript_path`` of its trace."""
    from agentscan.hooks.tree import effective_ns, under_subagents
    from agentscan.toolkit.fsutil import open_regular

    decode = line_decoder(session)
    #: (its order as the tree's, its place from the end, its path, its capture time)
    best: tuple[int, int, str, int] | None = None
    with open_regular(session.path) as handle:
        for index, line in enumerate(lines_backward(handle)):
            # Capture times against a capture time: the order may be a payload's own timestamp
            # (Gemini CLI's, VS Code's), on another clock than the lines' (pass 56 review).
            stamp = _written_stamp(line)
            if best is not None and stamp is not None and stamp < best[3] - WRITE_DELAY_NS:
                break
            event = decode(line, 0, [])
            if event is None:
                continue
            if best is not None and event.received_at_ns < best[3] - WRITE_DELAY_NS:
                break
            path = event.text("transcript_path")
            if path and not under_subagents(path):
                found = (effective_ns(event), -index, path, event.received_at_ns)
                best = found if best is None or found[:2] > best[:2] else best
    return best[2] if best is not None else None


def lines_backward(handle: BinaryIO) -> Iterator[bytes]:
    """The lines of ``handle`` (a seekable file), the last first, each with its newline (the
    last one without, when it has none), read in chunks from the end."""
    position = handle.seek(0, 2)
    rest = b""  # the first line of what was read, which may begin in the chunk before it
    while position > 0:
        size = min(max(CHUNK, len(rest)), position)  # (a long line: chunks that grow with it)
        position -= size
        handle.seek(position)
        pieces = (handle.read(size) + rest).split(b"\n")
        lines = [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        rest = lines[0] if position > 0 and lines else b""
        yield from reversed(lines[1:] if position > 0 else lines)


def _written_stamp(line: bytes) -> int | None:
    """The capture time of a line as the hook writes it (``store.WRITTEN_START``), unread."""
    if not line.startswith(WRITTEN_START):
        return None
    start = len(WRITTEN_START)
    digits = line[start:line.find(b",", start)]
    return int(digits) if digits.isdigit() else None
