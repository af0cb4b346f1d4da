"""A Claude session's calls for ``tokens``: one fast pass, then only what was appended.

Each file is read with ``toolkit.linescan`` (only lines holding ``"usage"``
are decoded) into call tuples (``usage.call_of``), and the session's calls
are deduplicated by ``dedupe.CallDeduper``.

Claude Code transcripts are append-only, so a session that grows (the one
being worked in) need not be parsed again from the start.  Asked for it,
``calls_and_chain`` also returns a *resume state*: every kept call and, per
file, where its last complete line ended, how many lines came before, a
CRC-32 of every byte before that point, and the file's device and inode.
The next call parses only a file's new tail when

* the file is the same one (``st_dev``, ``st_ino``: a file replaced by
  ``os.replace`` is another file), and
* the bytes before the resume point are the ones parsed (their CRC);

anything else means a full parse of that file.  A partial last line (still
being written) lies after the resume point, so it is read again: its calls
and its "truncated last line" warning are kept only while the file is
unchanged, and go away once the line is complete.  Calls tie-break on file
order, so an update gets exactly what a full parse gets (tests check
``cached == --no-cache`` after every fault case).  So do its warnings: the
bad values the bytes before the resume point held are kept as counts
(``valuewarnings.ValueCounts``), and the tail's read goes on from them, so
that the file says the one warning a full parse says, not one per part.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from agentscan.context import PARSE_ADDS_NO_FACTS, ScanContext, stat_stamp
from agentscan.providers.claude.filescan import FileScan, scan_file
from agentscan.providers.claude.dedupe import CallDeduper
from agentscan.providers.claude.usage import C_ORDER, C_SESSION_ID, Call
from agentscan.toolkit.jsonl import crc_between
from agentscan.toolkit.valuewarnings import ValueCounts, told_by_tally
from agentscan.toldwarnings import Counted, told_from_json, told_json
from agentscan.warningsink import Captured

if TYPE_CHECKING:
    from agentscan.providers.claude.discovery import SessionFiles

#: bump when the resume state's shape or the call tuple changes (4: the one-hour cache
#: write; 5: progress copies of subagent calls; 6: runs written inline named; 7: only
#: runs started by a record of no parent; 8: the other session a copied call's record names;
#: 9: the calls of an advisor a call consulted; 10: a call's web searches, ``C_WEB_SEARCHES``;
#: 11: a fast-mode call's model is its fast-mode name (``<model>-fast``): a state's kept calls
#: do not say which were fast; 12: a US-only call's model is ``<model> (us-only)``, which a
#: state's kept calls do not say either; both names are ``usage.priced_model``'s; 13: the count of a
#: file's warnings past those kept, ``more``; 14: the warnings as ``toldwarnings`` keeps them, ``told``:
#: each count in its place, the tail's among them; 15: a count its unfinished last line grew, in
#: two, that line's apart (``Captured.told_upto``): a state of 14 kept it as one, or kept
#: ``more`` and ``tail_more`` beside its warnings)
VERSION = 15
#: orders of one file's calls start at ``index << FILE_BITS`` (byte offsets fit below)
FILE_BITS = 48
#: a file this large is read by halves on two cores when one is free (``usagehalves``):
#: below it a fork costs more than it saves (the size a row's pass splits at too: ``sidepass``)
SPLIT_BYTES = 64 * 1024 * 1024


def calls_and_chain(
    files: SessionFiles, ctx: ScanContext, *, resume: bytes | None = None, keep_state: bool = False,
    call_times: bool = False,
) -> tuple[list[Call], bytes | None, list[str] | None]:
    """The session's deduplicated calls, in file order (``call_times``: each call's first and
    last record times too, ``dedupe.CallDeduper``), (``keep_state``) a resume state, and the
    chain of resumes the main transcript's copies name when a session they name is gone
    (``dedupe.packed_entries``' nearness; ``None``: not read).  That chain is kept in the
    resume state: read from the copies, it took 1.1 s a GB of them on each run of a growing
    session, whose copies stay as they were (``_chain``)."""
    parts = files.parts()
    previous = _load_state(resume, parts)
    calls: list[Call] = []
    state_files: list[dict] = []
    kept_upto = 0  # the main transcript's bytes the state was found to hold as they are
    for index, (path, subagent) in enumerate(parts):
        text = str(path)
        stat = files.stats.get(text) or ctx.stat(text)
        known = previous.get(text) if previous is not None else None
        file_calls, entry, upto = _update(path, ctx, subagent, index << FILE_BITS, stat, known, keep_state,
                                          files.native_id)
        if subagent is None:
            kept_upto = upto
        calls += file_calls
        if entry is not None:
            state_files.append(entry)
    deduper = CallDeduper(call_times=call_times)
    deduper.add_all(calls)
    chain, kept = _chain(files, ctx, calls, previous.get(_CHAIN) if previous is not None else None, kept_upto)
    state = None
    if keep_state and len(state_files) == len(parts):
        doc: dict = {"v": VERSION, "files": state_files}
        if kept is not None:
            doc["chain"] = kept
        state = orjson.dumps(doc)
    return deduper.winners(), state, chain


#: the key ``_load_state`` gives the kept chain under (no file's path is empty)
_CHAIN = ""


def _chain(files: SessionFiles, ctx: ScanContext, calls: list[Call], known: object,
           kept_upto: int) -> tuple[list[str] | None, dict | None]:
    """The chain of resumes the main transcript's copies name (``resumes.copied_head``), read
    only when a session they name is gone (``dedupe.chain_wanted``), and what of it the state
    keeps: the chain and where the session's own first record begins.  Kept while the bytes
    up to that record are the ones the state was made from (``kept_upto``: the transcript only
    grew): the copies come before it, and are never written again.  Else read as ``show`` reads
    it, remembered per file (``copyholders.remembered_head``): a ``show``'s pass read them, and
    its card's tokens read them again (``tokens``' parse adds nothing: ``PARSE_ADDS_NO_FACTS``)."""
    from agentscan.providers.claude.copyholders import remembered_head
    from agentscan.providers.claude.dedupe import chain_wanted

    main = files.main
    if main is None or not chain_wanted(calls, files.native_id, main):
        return None, None
    if (isinstance(known, dict) and type(known.get("end")) is int and 0 <= known["end"] < kept_upto
            and isinstance(known.get("chain"), list) and all(isinstance(name, str) for name in known["chain"])):
        return list(known["chain"]), known
    head = remembered_head(Path(main), files.native_id, ctx, keep=not ctx.memo.get(PARSE_ADDS_NO_FACTS))
    if head is None:
        return None, None
    chain, end = head
    # (No record of its own yet: the copies may not all be written.)
    return chain, None if end is None else {"chain": chain, "end": end}


def _update(
    path: Path, ctx: ScanContext, subagent: str | None, base: int, stat: os.stat_result | None,
    known: dict | None, keep_state: bool, own: str,
) -> tuple[list[Call], dict | None, int]:
    """One file's calls, from its last state where that still holds, its new state, and how
    many of its first bytes the state held as they are (0: read from the start)."""
    if known is not None and stat is not None and (stat.st_dev, stat.st_ino) == (known["dev"], known["ino"]):
        if stat_stamp(stat) == known["stamp"]:
            # Unchanged since the state was made: everything stands, its tail included.
            ctx.warnings.say_again(known["told"])
            # (The next state is this one, its warnings written back as JSON: ``_load_state``
            # read them into values, which the state's document cannot hold.)
            return [tuple(call) for call in known["calls"]], dict(known, told=told_json(known["told"])), known["offset"]
        if stat.st_size >= known["offset"] and crc_between(path, 0, known["offset"]) == known["crc"]:
            # Only appended to: keep what lay before the resume point, parse the rest.
            cut = base + known["offset"]
            kept = [tuple(call) for call in known["calls"] if call[C_ORDER] < cut]
            # The bad values' warning is said at the end of the tail's read, counting on from the kept.
            # (A warning past the last complete line is the tail's: read again; so is a count's part
            # past it, kept apart: ``Captured.told_upto``.)
            lines = known["lines"]
            earlier = [item for item in known["told"] if item[2] is not None and item[2] <= lines and (
                isinstance(item, Counted) or not told_by_tally(item[1]))]
            # Caught as a whole file's pass catches them: the kept, the count past them, the tail's.
            with ctx.warnings.capture() as said:
                ctx.warnings.say_again(earlier)
                scan = scan_file(path, ctx, subagent=subagent, base=base, start=known["offset"],
                                 lines_before=known["lines"], crc=known["crc"], exact=True, size=stat.st_size,
                                 own=own, values=ValueCounts.from_state(known["values"]))
            calls = kept + scan.calls
            if scan.inline:
                # A run's records before the resume point name it: the whole file, read again.
                from agentscan.providers.claude.sidechains import attribute

                attribute(path, ctx, calls, base)
            return calls, _state_entry(path, stat, scan, calls, said), known["offset"]
    if not keep_state or stat is None:
        return _whole_file(path, ctx, subagent, base, stat, keep_state, own).calls, None, 0
    # Caught as the resume path catches them: a pass by halves joins two lists and drops
    # their counts past them, and a state said "94 more" where ``--no-cache`` said 1,494.
    with ctx.warnings.capture() as said:
        whole = _whole_file(path, ctx, subagent, base, stat, keep_state, own)
    return whole.calls, _state_entry(path, stat, whole, whole.calls, said), 0


def _whole_file(path: Path, ctx: ScanContext, subagent: str | None, base: int, stat: os.stat_result | None,
                exact: bool, own: str) -> FileScan:
    """``scan_file`` of all of ``path``: by halves on two cores when it is huge (``usagehalves``)."""
    if stat is not None and stat.st_size >= SPLIT_BYTES and not path.name.endswith(".zst"):
        from agentscan.providers.claude.usagehalves import scan_by_halves

        halves = scan_by_halves(path, ctx, subagent=subagent, base=base, exact=exact, stat=stat, own=own)
        if halves is not None:
            return halves
    return scan_file(path, ctx, subagent=subagent, base=base, exact=exact,
                     size=stat.st_size if stat is not None else None, own=own)


def _state_entry(path: Path, stat: os.stat_result, scan: FileScan, calls: list[Call], said: Captured) -> dict:
    """A file's part of the resume state; warnings past the last complete line are
    the tail's (a truncated last line): said again only while the file is unchanged.  ``said``:
    the pass's warnings as its capture caught them (a resumed pass's: those kept before it
    said again with its own), as many as one pass's capture keeps, the rest counted."""
    lines = scan.progress.lines
    return {
        "path": str(path), "dev": stat.st_dev, "ino": stat.st_ino, "stamp": stat_stamp(stat),
        "offset": scan.progress.complete_offset, "lines": lines, "crc": scan.progress.crc,
        # (Up to the last complete line: an unfinished one is read again.)
        "values": scan.progress.values.state(),
        # (A count its unfinished line grew: that line's part apart, ``Captured.told_upto``.)
        "told": told_json(said.told_upto(lines)),
        "calls": calls,
    }


def _load_state(resume: bytes | None, parts: list[tuple[Path, str | None]]) -> dict[str, dict] | None:
    """The state's files by path, if it is well-formed and for the same files in the same order."""
    if resume is None:
        return None
    try:
        state = orjson.loads(resume)
        if state.get("v") != VERSION:
            return None
        files = state["files"]
        if [entry["path"] for entry in files] != [str(path) for path, _ in parts]:
            return None  # a file came or went: orders would shift, so parse all again
        for entry in files:
            for key in ("dev", "ino", "offset", "lines", "crc"):
                if type(entry[key]) is not int:
                    return None
            if not isinstance(entry["stamp"], str) or not all(
                isinstance(call, list) and len(call) == C_SESSION_ID + 1 and type(call[C_ORDER]) is int for call in entry["calls"]
            ):
                return None
            entry["told"] = told_from_json(entry["told"])  # raises on a bad shape
            ValueCounts.from_state(entry["values"])  # (one kept before it was: parse from the start)
        found = {entry["path"]: entry for entry in files}
        if "chain" in state:
            found[_CHAIN] = state["chain"]  # (checked where it is used: ``_chain``)
        return found
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return None  # a damaged state is no state: parse from the start
