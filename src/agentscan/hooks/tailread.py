"""The transcript a hook session names, read from the end of its events file.

``show <hook-only id>`` hints at the command that reads the session's transcript: it needs only
the latest ``transcript_path`` the events name (as the tree has it), which the last lines give.
Reading the whole file for it took a 200 MB events store's every line; from the end, it stops
once the lines are older than the one found by more than a hook can take to write its line.
"""

from __future__ import annotations

from typing import BinaryIO

from agentscan.hooks.envelopes import line_decoder
from agentscan.hooks.store import WRITTEN_START, StoredSession
from agentscan.toolkit.reverse import lines_backward

#: how much later than its capture a hook may write its line (it reads stdin for at most 5 s):
#: a line written earlier in the file than the one found cannot be captured later than this
WRITE_DELAY_NS = 30_000_000_000
CHUNK = 64 * 1024


def latest_transcript_path(session: StoredSession) -> str | None:
    """The ``transcript_path`` of the latest event (by the tree's order: its ``effective_ns``,
    then line) that names one, never a subagent's own (``tree.under_subagents``):
    ``session.transcript_path`` of its trace.

    The tree orders an event by its payload's own timestamp when it has one (Gemini CLI's, VS
    Code's), on a clock that may be anywhere, else by its capture time.  A line written before
    another was captured at most ``WRITE_DELAY_NS`` after it, so once a line's capture time is
    that much before the best found's order, no earlier line ordered by its capture time can
    come after it; one with a payload timestamp still can, wherever it is (pass 57: the stop
    compared capture times alone, and the tail and the tree disagreed).  The rest of the file
    is then searched for the word (``STAMP_KEY``) without being decoded: most stores have none,
    and only the lines that do are decoded."""
    from agentscan.hooks.tree import effective_ns, under_subagents
    from agentscan.toolkit.fsutil import open_regular

    decode = line_decoder(session)
    #: (its order as the tree's, its place from the end, its path)
    best: tuple[int, int, str] | None = None
    passed = False  # the lines from here back can come after the best only by a payload timestamp
    with open_regular(session.path) as handle:
        for index, (offset, line) in enumerate(lines_backward(handle)):
            stamp = _written_stamp(line)
            if best is not None and not passed and stamp is not None and stamp <= best[0] - WRITE_DELAY_NS:
                if not _holds(handle, offset + len(line), STAMP_KEY):
                    break
                passed = True
            if passed and stamp is not None and STAMP_KEY not in line:
                continue  # ordered by its capture time: before the best
            event = decode(line, 0, [])
            if event is None:
                continue
            path = event.text("transcript_path")
            if path and not under_subagents(path):
                found = (effective_ns(event), -index, path)
                best = found if best is None or found[:2] > best[:2] else best
    return best[2] if best is not None else None


#: how a payload's own timestamp (``tree.effective_ns``) is written in a stored line
STAMP_KEY = b'"timestamp"'


def _holds(handle: BinaryIO, end: int, word: bytes) -> bool:
    """Whether the first ``end`` bytes of ``handle`` hold ``word``: searched in place (``mmap``),
    not copied into chunks (a 200 MB store took 0.6 s so, 0.05 s so)."""
    import mmap

    try:
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return mapped.find(word, 0, end) >= 0
    except (OSError, ValueError):  # a file that cannot be mapped (a pipe would not be opened here): read
        handle.seek(0)
        position, overlap, tail = 0, len(word) - 1, b""
        while position < end:
            chunk = handle.read(min(CHUNK * 16, end - position))
            if not chunk:
                return False
            if word in tail + chunk:
                return True
            tail, position = chunk[-overlap:], position + len(chunk)
        return False


def _written_stamp(line: bytes) -> int | None:
    """The capture time of a line as the hook writes it (``store.WRITTEN_START``), unread."""
    if not line.startswith(WRITTEN_START):
        return None
    start = len(WRITTEN_START)
    digits = line[start:line.find(b",", start)]
    return int(digits) if digits.isdigit() else None
