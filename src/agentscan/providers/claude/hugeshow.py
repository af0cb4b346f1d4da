"""``show`` of a huge Claude transcript from its end, and what its row's pass keeps for it.

A main transcript of ``provider.TAIL_MIN_BYTES`` or more is shown from its
end (``tail.py``): its row's pass gathers what that read never sees
(``showfacts``), and ``keep_facts`` keeps it (``tailfacts``) with the session's token sums
under the files' fingerprint; ``detail_with_row`` then reads the subagents
whole and the main transcript only as far back as the bounds reach.  The
provider itself tells which transcripts those are (``shows_from_row``,
``row_sums``): a warm ``list`` asks that for every row's cost, and imports
none of this module.

A transcript where the user edited an earlier prompt (a rewind: ``detail.LiveBranch``)
is read forward instead: ``show`` lists only the live branch, and the counts of what
it does not list (``truncated``, ``rewound_messages``) would need the row's pass to
follow the branches, which it does not (it counts every prompt, as ``list`` does).
Whether a transcript holds an edit is found by a scan of its bytes that decodes only
the lines that may be prompts (``may_hold_edits``), kept under the files' fingerprint.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import BOM

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import SessionRef, SessionRow
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals


def detail_with_row(provider: ClaudeProvider, ref: SessionRef, ctx: ScanContext, bounds: Bounds,
                    row: SessionRow) -> SessionDetail | None:
    """The main transcript read from its end, with the facts its row's pass kept;
    ``None`` when there are none for this state of the files (or these bounds)."""
    from agentscan.providers.claude import tailfacts
    from agentscan.providers.claude.coststate import CostStates
    from agentscan.providers.claude.detail import TranscriptStream
    from agentscan.providers.claude.subagentlist import subagent_infos, subagent_models
    from agentscan.providers.claude.row import resumed_from_of, summarize
    from agentscan.providers.claude.tail import read_tail
    from agentscan.timeutil import parse_iso
    from agentscan.toolkit.detail import DetailCollector

    files: SessionFiles = ref.hint
    if files.main is None:
        return None
    fingerprint = provider.fingerprint(ref, ctx)
    facts = tailfacts.kept(ctx, files.main, fingerprint)
    if facts is None and not tailfacts.gathered(ctx, fingerprint) and not tailfacts.refused(ctx, files.main, fingerprint):
        # A row kept before its facts were (an earlier version, an index entry lost):
        # one pass keeps them now, and the next show reads only the end.
        row = provider.row(ref, ctx)
        facts = tailfacts.kept(ctx, files.main, fingerprint)
    stat = files.main_stat(ctx)
    if facts is None or not facts.answers(bounds) or stat is None or stat.st_size != facts.size:
        return None
    if edits_kept(ctx, files.main, fingerprint, facts.size):
        return None  # the forward reader follows the live branch (the module's note)
    if any(agent_id not in files.subagents for agent_id in facts.per_agent):
        # A run written inline (``sidechains``), or a subagent known only from the copies of
        # its records in progress records: the forward reader tells their records apart.
        return None
    collector = DetailCollector(bounds)
    # Claude Code's own count: the newest record of it, in the part read (``coststate``).
    reported = CostStates(ref.native_id, files.main, ctx, newest_first=True)
    # A resumed session's copies of another's records (at its head) are skipped, as its row's pass skips them.
    # (The context's compactions, kept by the row's pass, are added by it too: each where it was read.)
    whole = read_tail(collector, files.main, ctx, bounds, facts,
                      own=ref.native_id if resumed_from_of(files.main, ctx) else None, watch=reported.feed)
    # The whole transcript's newest, kept by its row's pass by the collector's own rule, in
    # reading order: added in it, equal times fall in place as read forward.
    for text, stamp, kind in facts.errors:
        collector.add_error(text, parse_iso(stamp), kind=kind)
    for text, stamp in facts.interruptions:
        collector.add_interruption(text, parse_iso(stamp))
    collector.count_unkept_interruptions(facts.interrupted - len(facts.interruptions))
    extra_tools: list = []
    subs = {}
    for agent_id, sub in sorted(files.subagents.items()):
        # Subagent transcripts are read whole, as by ``detail`` (they are small).
        stream = TranscriptStream(collector, subagent=agent_id)
        subs[agent_id] = summarize(sub.path, ctx, subagent=agent_id, observer=reported.feeding(stream.feed, subagent=True))
        extra_tools.extend(stream.finish())
    infos = subagent_infos(files, ctx, facts.task_types, facts.task_calls, facts.per_agent,
                           models=subagent_models(facts.groups, subs))
    # Replies taken back are named later in the file than they stand: read from the end, they
    # are listed as written and not counted, so how many there were is not known (``tail``).
    extra: dict = {"rewound_messages": 0, "retracted_replies": None, "errors": collector.errors(),
                   "agent_reported": reported.json(facts.groups)}
    if facts.moved_from is not None:  # (a relocated session: ``FileSummary.moved_from``, as read forward)
        extra["moved_from"] = facts.moved_from
    if extra["agent_reported"] is None and not whole:
        # A record further back than the read went is not looked for (it would cost the
        # whole file): ``null`` then is "none in the part read", said apart from "none".
        extra["agent_reported_unknown"] = True
    return collector.build(row, subagents=infos, extra_tools=extra_tools, extra=extra)


def keep_facts(provider: ClaudeProvider, ref: SessionRef, ctx: ScanContext, facts: ShowFacts, main: FileSummary,
               totals: WindowedTotals) -> None:
    """Keep what the row's pass gathered for ``show`` (or that it gathered nothing ``show``
    could use) under the files' fingerprint."""
    from agentscan.bounds import MAX_FILE_LINES
    from agentscan.detailmodel import PlanStep
    from agentscan.providers.claude import tailfacts
    from agentscan.toolkit.fsutil import changed_since

    files: SessionFiles = ref.hint
    stat = files.main_stat(ctx)
    if (files.main is None or stat is None or facts.lines >= MAX_FILE_LINES or changed_since(files.main, stat)
            or main.inline  # a run written inline, even one with no usage: read forward (``detail_with_row``)
            or main.copies):  # copies skipped (``seenuuids``): a read from the end would list them
        # The forward reader stops at the line cap: lines after it are never shown.  And a
        # live transcript written to during the pass holds more than its fingerprint's
        # size: facts about those lines would not match a tail read stopping there.
        tailfacts.keep(ctx, files.main or Path(), provider.fingerprint(ref, ctx), None)
        return
    tailfacts.keep(ctx, files.main, provider.fingerprint(ref, ctx), tailfacts.TailFacts(
        size=stat.st_size, prompts=facts.prompts, responses=facts.responses, tools=facts.tools, reused=facts.reused,
        window=facts.window, clipped=facts.clipped, clipped_tools=facts.clipped_tools, message_bytes=facts.message_bytes,
        plan=None if facts.plan is None else tuple(PlanStep(step, status) for step, status in facts.plan),
        task_types=dict(main.task_types), task_calls=dict(main.task_calls), groups=totals.groups(set(files.subagents)),
        errors=tuple((text, stamp, kind) for text, stamp, kind in facts.errors),
        interruptions=tuple((text, stamp) for text, stamp in facts.interruptions), interrupted=facts.interrupted,
        compactions=tuple((stamp, trigger, before) for stamp, trigger, before in facts.compactions),
        compacted=facts.compacted, moved_from=main.moved_from()))



EDITS_KIND = "claude-edits"
EDITS_VERSION = "1"


#: a transcript larger than this is not scanned for edits: it is shown from its end, an
#: abandoned branch included, as before.  The scan costs about 3 s a GB on the bench's
#: transcript, paid again after each append, and an edited one is then read forward on
#: every ``show`` (a 55 MB one: 1.2 s instead of 0.3 s): past 64 MiB that would be seconds.
EDITS_SCAN_MAX_BYTES = 64 * 1024 * 1024


def edits_kept(ctx: ScanContext, main: Path, fingerprint: str | None, size: int) -> bool:
    """``may_hold_edits`` of the main transcript's first ``size`` bytes, kept under ``fingerprint``
    (``False`` past ``EDITS_SCAN_MAX_BYTES``)."""
    from agentscan.toolkit import keptjson

    if size > EDITS_SCAN_MAX_BYTES:
        return False

    found = keptjson.kept(ctx, main, EDITS_KIND, EDITS_VERSION, fingerprint, _edits_of_json)
    if found is None:
        found = may_hold_edits(main, size)
        if fingerprint is not None:
            keptjson.keep(ctx, main, EDITS_KIND, EDITS_VERSION, fingerprint, found, {"edits": found}, size)
    return found


def _edits_of_json(doc: object) -> bool | None:
    return doc["edits"] if isinstance(doc, dict) and type(doc.get("edits")) is bool else None


#: bytes a step of ``may_hold_edits`` reads
SCAN_BYTES = 1024 * 1024
#: how a prompt's message starts, as Claude Code writes it: text, or blocks led by a text or
#: an image (a tool's result starts with its own block); every prompt of the real samples does
USER_MESSAGE = b'"role":"user","content":'
PROMPT_STARTS = (b'"', b'[{"type":"text"', b'[{"type":"image"')
_PARENT = re.compile(rb'"parentUuid":(?:null|"([^"\\]*)")')
_UUID = re.compile(rb'"uuid":"([^"\\]*)"')


def may_hold_edits(path: Path, size: int) -> bool:
    """Whether the first ``size`` bytes of ``path`` may hold a prompt that replaces an earlier
    one (``detail.LiveBranch``; true too where that would not find one: a chain restarted at
    no parent, an edit older than the prompts it remembers, a file it cannot read).

    Decoding every line would cost what reading forward costs: only the lines whose message
    starts as a prompt's does (``USER_MESSAGE`` and ``PROMPT_STARTS``) are looked at, their parent and uuid picked
    out of the bytes; two of them joining the tree at one place are decoded, to tell whether
    both are prompts (not meta records, a sidechain's) as the forward reader tells it.  A
    prompt written in another spelling of JSON is missed: its transcript is shown from its
    end, abandoned branch included, as before."""
    from agentscan.providers.claude.detail import MAX_BRANCH_POINTS
    from agentscan.toolkit.fsutil import open_regular
    from agentscan.toolkit.shrinkline import LONG_LINE_LIMIT

    # a place in the tree (a parent's hash) -> (the uuid's hash, the line's offset, whether a prompt)
    joined: dict[int, tuple[int, int, bool]] = {}
    leaves = -1  # where a ``last-prompt`` record was first met: two prompts of no parent after it may be an edit
    try:
        with open_regular(path) as handle, open_regular(path) as again:
            base, carry, skipping = 0, b"", False
            while base + len(carry) < size:
                read = handle.read(min(SCAN_BYTES, size - base - len(carry)))
                if not read:
                    break
                chunk = carry + read if carry else read
                if skipping:  # the rest of a line too long to be read forward at all
                    cut = chunk.find(b"\n")
                    if cut < 0:
                        base, carry = base + len(chunk), b""
                        continue
                    base, chunk, skipping = base + cut + 1, chunk[cut + 1:], False
                if leaves < 0 and (found := chunk.find(b"last-prompt")) >= 0:
                    leaves = base + found
                last = chunk.rfind(b"\n") + 1
                hit = chunk.find(USER_MESSAGE, 0, last)
                while hit >= 0:
                    end = chunk.find(b"\n", hit)
                    if chunk.startswith(PROMPT_STARTS, hit + len(USER_MESSAGE)):
                        start = chunk.rfind(b"\n", 0, hit) + 1
                        if end - start <= LONG_LINE_LIMIT and _edit_at(chunk[start:end], base + start, joined, leaves, again):
                            return True
                    hit = chunk.find(USER_MESSAGE, end, last)
                if len(joined) > 4 * MAX_BRANCH_POINTS:
                    return True  # more prompts than any sane transcript: read forward, as it always could
                base, carry = base + last, chunk[last:]
                if len(carry) > LONG_LINE_LIMIT:  # (a line over the cap is read shrunk: ``shrinkline``)
                    base, carry, skipping = base + len(carry), b"", True
    except OSError:
        return True  # unreadable here: the forward reader says why
    return False


def _edit_at(line: bytes, offset: int, joined: dict[int, tuple[int, int, bool]], leaves: int, again) -> bool:
    """Whether the user record ``line`` (at ``offset``) is a prompt replacing an earlier one."""
    if offset == 0:
        line = line.removeprefix(BOM)
    point = _point_of(line)
    if point is None:
        return False
    parent, uuid = point
    key = hash(parent)
    earlier = joined.get(key)
    if earlier is None:
        joined[key] = (hash(uuid), offset, False)
        return False
    if earlier[0] == hash(uuid):
        return False
    if _prompt_point(line) is None:
        return False  # not a prompt: the place stays the earlier line's
    if earlier[2] or _prompt_point(_line_at(again, earlier[1])) is not None:
        return parent is not None or 0 <= leaves < offset
    joined[key] = (hash(uuid), offset, True)
    return False


def _point_of(line: bytes) -> tuple[bytes | None, bytes] | None:
    """A user line's parent and uuid, picked out of its bytes when each key is there once
    (else decoded: another spelling of the JSON); ``None`` when it has no uuid."""
    parent = _PARENT.search(line)
    uuid = _UUID.search(line)
    if parent is not None and uuid is not None and line.count(b'"parentUuid"') == 1 and line.count(b'"uuid"') == 1:
        return parent.group(1), uuid.group(1)
    point = _prompt_point(line)
    return None if point is None else (None if point[0] is None else point[0].encode(), point[1].encode())


def _prompt_point(line: bytes) -> tuple[str | None, str] | None:
    """``records.branch_point`` of the line when it is a prompt's record, decoded."""
    import orjson

    from agentscan.toolkit import laxjson

    from agentscan.providers.claude.records import branch_point, real_prompt_text
    from agentscan.toolkit.jsonl import fitted

    fit = fitted(line)  # (one over the cap, as the forward reader reads it)
    try:
        record = None if fit is None else laxjson.loads(fit)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict) or real_prompt_text(record) is None:
        return None
    return branch_point(record)


def _line_at(handle, offset: int) -> bytes:
    from agentscan.toolkit.jsonl import MAX_LINE_BYTES
    from agentscan.toolkit.shrinkline import line_at

    handle.seek(offset)
    line = line_at(handle, MAX_LINE_BYTES)
    return line.removeprefix(BOM) if offset == 0 else line
