"""A Claude session's DATE, CWD and TITLE for ``tokens``' table, without its row's pass.

The table a person types beside the sums (``agentscan tokens``) shows when
each session last recorded something, its directory and its title.  The row's
pass (``row.summarize``) decodes every line of every file for those three
(the date is the newest of every record's times, and a custom title can be
anywhere): a cold table at the bench's scale 10 took twice the time of
``tokens --json``.  Here the same three are found in each file's bytes:

* the newest time: the greatest ``"timestamp"`` value, checked to be a
  record's own (``toolkit.stampscan``) and no recap's (``records.is_recap``);
* the title: the ``custom-title``, ``ai-title`` and ``summary`` records,
  found by their ``"type"``, decoded and checked like the pass checks them
  (with the records a summary's leaf names, found by their uuid); and the
  first prompt and directory, from the lines decoded from the top until both
  are known.

Each file is read in pieces of whole lines (``PIECE_BYTES``), each piece
taken in as the whole file once was, with what the earlier pieces found: a
huge transcript costs a scan of its bytes, not a decoding of its lines, and
memory stays bounded.

Whatever this cannot settle as the row's pass would, it does not guess:
``None`` sends the session to its row's pass.  That is a file at the pass's
line cap, or unreadable, or changed while it is read; a time this cannot
compare, or a word spelled with an escape (``toolkit.stampscan``), a
summary's leaf included; a first prompt past ``HEAD_BUDGET``, where no
title record names the session; and a session without its main transcript.  A
resumed session's copies of an earlier session's records are left out of its title
and directory as its row's pass leaves them out (``resumes``).
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

from agentscan import bounds
from agentscan.model import TableFacts
from agentscan.providers.claude.records import as_str, is_recap, real_prompt_text
from agentscan.providers.claude.resumes import first_names_another, is_copy
from agentscan.timeutil import from_epoch, newest
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import line_record
from agentscan.toolkit import jsonl, shrinkline
from agentscan.toolkit.stampscan import STAMP, Unsure, add_model_names, line_around, refuse_escaped_words, verified

if TYPE_CHECKING:
    from agentscan.providers.claude.discovery import SessionFiles

#: a file is read this much at a time (whole lines): one piece for most transcripts, and
#: memory bounded for a huge one
PIECE_BYTES = 16 * 1024 * 1024
#: at most this much of the main transcript's head is decoded for its directory and first
#: prompt; past it, the row's pass finds them
HEAD_BUDGET = 8 * 1024 * 1024

# In one scan: every key "timestamp" (``stampscan.STAMP``), and every "type" that names a
# session (``_TITLED``).  One expression, not two: a heavy user's table reads gigabytes, and
# each scan of them costs as much as reading them.
_SCAN = re.compile(rb'"t(?:' + STAMP[2:] + rb'|ype"\s*:\s*"(custom-title|ai-title|summary|relocated)")')
_TITLED = re.compile(rb'"type"\s*:\s*"(custom-title|ai-title|summary|relocated)"')
_ESCAPED_UUID = re.compile(rb'"uuid"\s*:\s*"[^"]*\\')
_PLAIN = re.compile(r"[ !#-\[\]-~]*")  # printable ASCII but the quote and the backslash
_UUID = re.compile(rb'"uuid"\s*:\s*"([ !#-\[\]-~]*)"')


def table_facts(files: SessionFiles, recency: float | None, *, models: bool = False) -> TableFacts | None:
    """The row's ``updated_at``, ``cwd`` and ``title`` (``sessionrow.session_row``), or ``None``:
    read the row.  ``recency``: the session's ref's, the date of a session that recorded no time.
    ``models``: every model any of the session's files names too (``TableFacts.models``)."""
    if files.main is None:
        return None  # its subagents name it, the earliest first: the row's pass
    named: set[str] | None = set() if models else None
    try:
        main = _MainFacts(files.main)
        times = [_file_time(files.main, named, main)]
        for _, sub in sorted(files.subagents.items()):
            times.append(_file_time(sub.path, named))
        cwd, title = main.cwd_and_title()
    except (Unsure, OSError):
        return None
    updated = newest(*times) or (from_epoch(recency) if recency else None)
    return TableFacts(updated, cwd, title, None if named is None else tuple(sorted(named)))


def _file_time(path: Path, named: set[str] | None, main: _MainFacts | None = None) -> datetime | None:
    """The newest record time of one file, as its row's pass finds it (``FileSummary.last_ts``),
    read piece by piece; ``main``: the main transcript's title and directory, found on the way.
    ``named``: every ``"model"`` string the file holds, added."""
    newest_time = _NewestTime()
    for base, data in _pieces(path):
        titled = newest_time.scan(base, data)
        _models_in(data, named)
        if main is not None:
            main.feed(base, data, titled)
        del data  # before the next piece is read: at most two are held
    return newest_time.result()


def _models_in(data: bytes, named: set[str] | None) -> None:
    """Add to ``named`` every ``"model"`` string ``data`` holds, nested or not: the row's
    model is one of them (a message's ``model``: ``row.note_record``).  A key spelled with an
    escape was refused (``_NewestTime.scan``); a value spelled with one is refused here."""
    if named is not None and not add_model_names(data, named):
        raise Unsure


def _pieces(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(where it starts in the file, its bytes)`` of whole lines, at most ``PIECE_BYTES`` at a
    time (a longer line that the pass reads is a piece of its own), the last line's newline
    perhaps missing.  A line longer than the pass reads at all (``shrinkline.LONG_LINE_LIMIT``)
    is skipped unheld, as the pass skips it: memory stays bounded whatever the transcript
    holds.  One longer than a piece that the pass reads without its long strings sends the
    session to the pass (``Unsure``): such lines are rare, and a piece is bounded."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        lines = 0 if size >= bounds.MAX_FILE_LINES else None  # the pass stops at its line cap
        base = 0
        while base < size:
            handle.seek(base)  # where the last piece's lines ended
            piece = handle.read(min(size - base, PIECE_BYTES))
            if not piece:
                raise Unsure  # cut meanwhile: the row's pass reads it as it is then
            if base + len(piece) < size:
                cut = piece.rfind(b"\n") + 1
                if cut == 0:  # a line longer than a piece
                    newline = _line_end(handle, base + len(piece), size)
                    if newline - base > shrinkline.LONG_LINE_LIMIT:
                        if lines is not None and newline < size:
                            lines += 1
                        base = newline + 1  # skipped, as the pass skips it
                        continue
                    if newline - base > jsonl.MAX_LINE_BYTES:
                        raise Unsure  # the pass reads it shrunk: it finds what the line says
                    handle.seek(base)
                    piece = handle.read(newline + 1 - base)
                elif cut < len(piece):
                    piece = piece[:cut]
            if lines is not None:
                lines += piece.count(b"\n")
                if lines >= bounds.MAX_FILE_LINES:
                    raise Unsure
            yield base, piece
            base += len(piece)
            del piece
        if lines is not None and lines >= bounds.MAX_FILE_LINES:
            raise Unsure
        handle.seek(size)
        if handle.read(1):
            raise Unsure  # grown meanwhile: the row's pass reads it as it is then


def _line_end(handle: BinaryIO, start: int, size: int) -> int:
    """Where the line going on at ``start`` ends: its newline, else the file's end."""
    handle.seek(start)
    while start < size:
        block = handle.read(min(size - start, 1 << 20))
        if not block:
            raise Unsure
        found = block.find(b"\n")
        if found >= 0:
            return start + found
        start += len(block)
    return size


class _NewestTime:
    """The greatest record time over a file's pieces: the greatest ``"timestamp"`` value,
    checked to be a record's own where it is found (a later piece may hold it as a record's own
    where an earlier one held it only nested)."""

    __slots__ = ("top", "settled")

    def __init__(self) -> None:
        self.top: bytes | None = None
        self.settled: datetime | None = None

    def scan(self, base: int, data: bytes) -> bool:
        """Take one piece in; ``True`` when it may hold a record that names the session."""
        refuse_escaped_words(data)
        found = _SCAN.findall(data)  # (time, b"") or (b"", type)
        if not found:
            return False
        # Tuples sort by their time first: the least has no time when a type was found, or a
        # time that is not canonical (then ``(b"", b"")``, the least of all).
        least = min(found)
        if least == (b"", b""):
            raise Unsure
        top = max(found)[0]
        if top and (self.top is None or top > self.top or (top == self.top and self.settled is None)):
            self._settle(base, data, top, found)
        return not least[0]

    def _settle(self, base: int, data: bytes, top: bytes, found: list[tuple[bytes, bytes]]) -> None:
        """Take the greatest time of this piece that is a record's own, from ``top`` down past
        the times only Claude Code's recaps hold (``records.is_recap``: the pass dates nothing
        by them, and the last record of a session left idle is often one)."""
        times: list[bytes] | None = None
        while True:
            recaps = False

            def own(text: bytes, at: int) -> dict | None:
                nonlocal recaps
                record = _record_at(text, at, base)
                if record is not None and is_recap(record):
                    recaps = True
                    return None
                return record

            try:
                self.top, self.settled = top, verified(data, top, own)
                return
            except Unsure:
                if not recaps:
                    self.top, self.settled = top, None  # no record's own: the row's pass, unless a later piece settles it
                    return
            if times is None:  # (only for a recap's time: one sort of this piece's times)
                times = sorted({when for when, _ in found if when}, reverse=True)
            lower = [when for when in times if when < top]
            if not lower or (self.top is not None and lower[0] < self.top) or (
                    lower[0] == self.top and self.settled is not None):
                return  # no time of this piece beats what an earlier piece settled
            top = lower[0]

    def result(self) -> datetime | None:
        if self.top is not None and self.settled is None:
            raise Unsure  # the newest time is no record's own, or not one the pass reads
        return self.settled


class _MainFacts:
    """The main transcript's ``cwd`` and ``title_of`` (``row.summarize``'s rules), piece by
    piece: its title records wherever they are, and its first lines for the directory and the
    first prompt."""

    def __init__(self, path: Path) -> None:
        from agentscan.providers.claude.filesummary import FileSummary

        self.own = path.stem  # the session's id (its main transcript's name)
        # whether the file is a resumed session's (``resumes``), once a record names a session
        self.resumed: bool | None = None
        self.custom_title: str | None = None
        self.ai_title: str | None = None
        self.replay = FileSummary(path)  # the ``summary`` records and their leaves, in order
        self.wanted: set[bytes] = set()  # the leaves named so far
        self.cwd: str | None = None
        # (``FileSummary.relocated_cwd``): each ``relocated`` record's directory, and whether it
        # names another session (a resumed file's copy, which the row's pass skips: ``is_copy``)
        self.relocations: list[tuple[bool, str]] = []
        self.first_prompt: str | None = None
        self.first_image_prompt: str | None = None
        self.first_bare_command: str | None = None
        self.first_local_command: str | None = None
        self.runs: Any = None  # ``sidechains.InlineRuns``, once an inline run is met
        self.head_bytes = 0  # the bytes of the pieces it has read
        self.head_open = True  # it reads on (it may stop when it knows enough, or at its budget)
        self.head_cut = False  # it stopped at its budget, short of what it looks for

    def feed(self, base: int, data: bytes, titled: bool) -> None:
        summaries: dict[int, dict] = {}  # where each line starts (in ``data``): its ``summary`` record
        for match in _TITLED.finditer(data) if titled else ():
            start, end = line_around(data, match.start())
            record = line_record(data[start:end], first=base + start == 0)
            kind = match.group(1).decode("ascii")
            if record is None or record.get("type") != kind:
                continue  # nested, or a line the pass skips
            if kind == "summary":
                if as_str(record.get("summary")):
                    summaries[start] = record
            elif kind == "custom-title" and as_str(record.get("customTitle")):
                self.custom_title = record["customTitle"]
            elif kind == "ai-title" and as_str(record.get("aiTitle")):
                self.ai_title = record["aiTitle"]
            elif kind == "relocated" and as_str(record.get("relocatedCwd")):
                self.relocations.append((is_copy(record, self.own), record["relocatedCwd"]))
        if summaries or self.wanted:
            self._summary_titles(base, data, summaries)
        if self.head_open:
            self._head(base, data)

    def cwd_and_title(self) -> tuple[str | None, str | None]:
        from agentscan.providers.claude.titles import choose_title, foreign_summary_names, settle_summaries

        settle_summaries(self.replay, self.replay.path)  # (a summary after its leaf: ``lateleaves``)
        named = self.custom_title or self.replay.summary_matched or self.ai_title
        if self.head_cut and (self.cwd is None or (named is None and self.first_prompt is None)):
            raise Unsure  # what the head looks for is past its budget: the row's pass finds it
        if self.resumed is None and any(copy for copy, _ in self.relocations):
            raise Unsure  # whether the file is a resumed session's is past the head's budget
        moved = [cwd for copy, cwd in self.relocations if not (self.resumed and copy)]
        return moved[-1] if moved else self.cwd, choose_title(named, self.first_prompt, self.first_image_prompt, self.first_bare_command,
                                      self.first_local_command,
                                      foreign_summary_names(self.replay.summary_title, self.cwd))

    def _head(self, base: int, data: bytes) -> None:
        """The first lines, decoded from the top until the directory and the first prompt are
        known (a title found anywhere else makes the prompt needless, but is known only at the
        file's end), at most ``HEAD_BUDGET`` bytes of them."""
        from agentscan.providers.claude.titles import note_command, note_prompt

        start = 0
        while start < len(data) and (self.cwd is None or self.first_prompt is None):
            if self.head_bytes + start > HEAD_BUDGET:
                self.head_open, self.head_cut = False, True  # settled at the end, if it can be
                return
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            record = line_record(data[start:end], first=base + start == 0)
            start = end + 1
            if record is None:
                continue
            if self.resumed is None:
                self.resumed = first_names_another(record, self.own)
            if self.resumed and is_copy(record, self.own):
                continue  # a resumed session's copy of an earlier one's record: not its title or directory
            if self.cwd is None:
                self.cwd = as_str(record.get("cwd"))
            kind = record.get("type")
            if record.get("isSidechain") is True and (kind == "user" or kind == "assistant"):
                # A subagent run written inline (2.0.x): its task is no prompt of the session's,
                # as the row's pass tells (``sidechains.InlineRuns``, the same decision).
                if self.runs is None:
                    from agentscan.providers.claude.sidechains import InlineRuns

                    self.runs = InlineRuns()
                if self.runs.run_of(record) is not None:
                    continue
            if kind == "user" and self.first_prompt is None:
                text = real_prompt_text(record)
                if text is not None:
                    note_prompt(self, text)
                else:
                    note_command(self, record)
        self.head_open = self.cwd is None or self.first_prompt is None
        self.head_bytes += len(data)

    def _summary_titles(self, base: int, data: bytes, summaries: dict[int, dict]) -> None:
        """``FileSummary``'s ``summary`` titles: the summary whose leaf is a record of this file
        (the last such record, as the pass meets them), and the latest.  Only the ``summary``
        records and the records whose uuid is a leaf bear on it, so those alone are taken, found
        by their uuid's bytes, and told to the row's own rules in their order (a leaf before
        the summaries naming it is found at the end, as the pass finds it: ``lateleaves``)."""
        from agentscan.providers.claude.titles import note_leaf, note_summary

        relevant = dict(summaries)
        leaves = {leaf for record in summaries.values() if (leaf := as_str(record.get("leafUuid")))}
        if not all(_PLAIN.fullmatch(leaf) for leaf in leaves):
            raise Unsure  # JSON may spell it more than one way
        self.wanted.update(leaf.encode("ascii") for leaf in leaves)
        if self.wanted and _ESCAPED_UUID.search(data):
            raise Unsure  # a uuid spelled with an escape may be a leaf: its bytes are not the leaf's
        # One scan whatever the leaves' number (a resumed session may hold thousands).
        for match in _UUID.finditer(data) if self.wanted else ():
            if match.group(1) not in self.wanted:
                continue
            start, end = line_around(data, match.start())
            record = relevant.get(start) or line_record(data[start:end], first=base + start == 0)
            if record is not None and record.get("uuid") == match.group(1).decode("ascii"):
                relevant[start] = record
        replay = self.replay
        for start in sorted(relevant):
            record = relevant[start]
            ends = data.find(b"\n", start)  # (where the pass's ``complete_offset`` is after it)
            at = base + (ends + 1 if ends >= 0 else start)
            if replay.summaries:
                note_leaf(replay, record, at)
            if start in summaries:
                note_summary(replay, record, at)


def _record_at(data: bytes, at: int, base: int = 0) -> dict | None:
    """The record of the line holding byte ``at``, as the row's pass decodes it (``data``
    starts at byte ``base`` of its file)."""
    start, end = line_around(data, at)
    return line_record(data[start:end], first=base + start == 0)
