"""A Claude session's DATE, PROJECT and TITLE for ``tokens``' table, without its row's pass.

The table a person types beside the sums (``agentscan tokens``) shows when
each session last recorded something, its directory and its title.  The row's
pass (``row.summarize``) decodes every line of every file for those three
(the date is the newest of every record's times, and a custom title can be
anywhere): a cold table at the bench's scale 10 took twice the time of
``tokens --json``.  Here the same three are found in each file's bytes:

* the newest time: the greatest ``"timestamp"`` value, checked to be a
  record's own (``toolkit.stampscan``);
* the title: the ``custom-title``, ``ai-title`` and ``summary`` records,
  found by their ``"type"``, decoded and checked like the pass checks them
  (with the records a summary's leaf names, found by their uuid); and the
  first prompt and directory, from the lines decoded from the top until both
  are known.

Whatever this cannot settle as the row's pass would, it does not guess:
``None`` sends the session to its row's pass.  That is a file larger than
``MAX_BYTES``, or unreadable; a time this cannot compare, or a word spelled
with an escape (``toolkit.stampscan``), a summary's leaf included; and a
session without its main transcript.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agentscan import bounds
from agentscan.model import TableFacts
from agentscan.providers.claude.records import as_str, collapse, is_bare_command, real_prompt_text
from agentscan.timeutil import from_epoch, newest
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonl import line_record
from agentscan.toolkit.stampscan import STAMP, Unsure, add_model_names, line_around, refuse_escaped_words, verified

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.providers.claude.discovery import SessionFiles

#: a file larger than this is left to the row's pass (it is read whole here)
MAX_BYTES = 32 * 1024 * 1024

# In one scan: every key "timestamp" (``stampscan.STAMP``), and every "type" that names a
# session (``_TITLED``).  One expression, not two: a heavy user's table reads gigabytes, and
# each scan of them costs as much as reading them.
_SCAN = re.compile(rb'"t(?:' + STAMP[2:] + rb'|ype"\s*:\s*"(custom-title|ai-title|summary)")')
_TITLED = re.compile(rb'"type"\s*:\s*"(custom-title|ai-title|summary)"')
_ESCAPED_UUID = re.compile(rb'"uuid"\s*:\s*"[^"]*\\')
_PLAIN = re.compile(r"[ !#-\[\]-~]*")  # printable ASCII but the quote and the backslash
_UUID = re.compile(rb'"uuid"\s*:\s*"([ !#-\[\]-~]*)"')


def table_facts(files: SessionFiles, recency: float | None, *, models: bool = False) -> TableFacts | None:
    """The row's ``updated_at``, ``cwd`` and ``title`` (``provider._row_from``), or ``None``:
    read the row.  ``recency``: the session's ref's, the date of a session that recorded no time.
    ``models``: every model any of the session's files names too (``TableFacts.models``)."""
    if files.main is None:
        return None  # its subagents name it, the earliest first: the row's pass
    named: set[str] | None = set() if models else None
    try:
        main = _read(files.main)
        when, titled = _scan(main)
        times = [when]
        _models_in(main, named)
        for _, sub in sorted(files.subagents.items()):
            data = _read(sub.path)
            times.append(_scan(data)[0])
            _models_in(data, named)
            del data
        cwd, title = _cwd_and_title(main, titled)
    except (Unsure, OSError):
        return None
    updated = newest(*times) or (from_epoch(recency) if recency else None)
    return TableFacts(updated, cwd, title, None if named is None else tuple(sorted(named)))


def _models_in(data: bytes, named: set[str] | None) -> None:
    """Add to ``named`` every ``"model"`` string ``data`` holds, nested or not: the row's
    model is one of them (a message's ``model``: ``row.note_record``).  A key spelled with an
    escape was refused (``_scan``); a value spelled with one is refused here."""
    if named is not None and not add_model_names(data, named):
        raise Unsure


def _read(path: Path) -> bytes:
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_BYTES:
            raise Unsure
        data = handle.read(size + 1)
    if len(data) > size:
        raise Unsure  # grown meanwhile: the row's pass reads it as it is then
    if len(data) > bounds.MAX_FILE_LINES and data.count(b"\n") >= bounds.MAX_FILE_LINES:
        raise Unsure  # the pass stops at its line cap
    return data


def _scan(data: bytes) -> tuple[datetime | None, bool]:
    """The newest record time of one file, as its row's pass finds it (``FileSummary.last_ts``),
    and whether it may hold a record that names the session."""
    refuse_escaped_words(data)
    found = _SCAN.findall(data)  # (time, b"") or (b"", type)
    if not found:
        return None, False
    # Tuples sort by their time first: the least has no time when a type was found, or a
    # time that is not canonical (then ``(b"", b"")``, the least of all).
    least = min(found)
    if least == (b"", b""):
        raise Unsure
    top = max(found)[0]
    return (verified(data, top, _record_at) if top else None), not least[0]


def _cwd_and_title(data: bytes, titled: bool) -> tuple[str | None, str | None]:
    """The main transcript's ``cwd`` and ``title_of`` (``row.summarize``'s rules); ``titled``:
    ``_scan`` found a type that may name it."""
    from agentscan.providers.claude.row import TITLE_CHARS, choose_title, foreign_summary_names

    custom_title = ai_title = None
    summaries: dict[int, dict] = {}  # where each line starts: its ``summary`` record
    for match in _TITLED.finditer(data) if titled else ():
        start, end = line_around(data, match.start())
        record = line_record(data[start:end], first=start == 0)
        kind = match.group(1).decode("ascii")
        if record is None or record.get("type") != kind:
            continue  # nested, or a line the pass skips
        if kind == "summary":
            if as_str(record.get("summary")):
                summaries[start] = record
        elif kind == "custom-title" and as_str(record.get("customTitle")):
            custom_title = record["customTitle"]
        elif kind == "ai-title" and as_str(record.get("aiTitle")):
            ai_title = record["aiTitle"]
    matched, latest = _summary_titles(data, summaries) if summaries else (None, None)
    named = custom_title or matched or ai_title
    cwd = first_prompt = first_bare_command = None
    runs: Any = None
    start, number = 0, 0
    while start < len(data) and (cwd is None or (named is None and first_prompt is None)):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        number += 1
        record = line_record(data[start:end], first=number == 1)
        start = end + 1
        if record is None:
            continue
        if cwd is None:
            cwd = as_str(record.get("cwd"))
        kind = record.get("type")
        if record.get("isSidechain") is True and (kind == "user" or kind == "assistant"):
            # A subagent run written inline (2.0.x): its task is no prompt of the session's,
            # as the row's pass tells (``sidechains.InlineRuns``, the same decision).
            if runs is None:
                from agentscan.providers.claude.sidechains import InlineRuns

                runs = InlineRuns()
            if runs.run_of(record) is not None:
                continue
        if named is None and kind == "user":
            text = real_prompt_text(record)
            if text is None:
                continue
            if is_bare_command(text):
                first_bare_command = first_bare_command or text
            elif first_prompt is None:
                first_prompt = collapse(text, TITLE_CHARS)
    return cwd, choose_title(named, first_prompt, first_bare_command, foreign_summary_names(latest, cwd))


def _summary_titles(data: bytes, summaries: dict[int, dict]) -> tuple[str | None, str | None]:
    """``FileSummary``'s ``summary`` titles: the summary whose leaf is a record of this file
    (the last such record, as the pass meets them), and the latest.  Only the ``summary``
    records and the records whose uuid is a leaf bear on it, so those alone are taken, found
    by their uuid's bytes, and told to the row's own rules in their order."""
    from pathlib import Path

    from agentscan.providers.claude.row import FileSummary, note_leaf, note_summary

    relevant = dict(summaries)
    leaves = {leaf for record in summaries.values() if (leaf := as_str(record.get("leafUuid")))}
    if leaves and _ESCAPED_UUID.search(data):
        raise Unsure  # a uuid spelled with an escape may be a leaf: its bytes are not the leaf's
    if not all(_PLAIN.fullmatch(leaf) for leaf in leaves):
        raise Unsure  # JSON may spell it more than one way
    wanted = {leaf.encode("ascii") for leaf in leaves}
    # One scan whatever the leaves' number (a resumed session may hold thousands).
    for match in _UUID.finditer(data) if wanted else ():
        if match.group(1) not in wanted:
            continue
        start, end = line_around(data, match.start())
        record = relevant.get(start) or line_record(data[start:end], first=start == 0)
        if record is not None and record.get("uuid") == match.group(1).decode("ascii"):
            relevant[start] = record
    replay = FileSummary(Path())
    for start in sorted(relevant):
        record = relevant[start]
        if replay._summaries:
            note_leaf(replay, record)
        if start in summaries:
            note_summary(replay, record)
    return replay._summary_matched, replay.summary_title


def _record_at(data: bytes, at: int) -> dict | None:
    """The record of the line holding byte ``at``, as the row's pass decodes it."""
    start, end = line_around(data, at)
    return line_record(data[start:end], first=start == 0)
