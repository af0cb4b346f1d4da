"""What the live sender reads of a session's events: from a mark, not from the start.

The sender (``live``) runs once per closing event and needs only the turn that
event belongs to, but a hook tree is built by replaying events in order.  So
after a turn's stop it leaves a *mark*: the byte offset of a prompt from which
a replay gives every later turn exactly the spans a replay of the whole file
gives them.  The next senders read from the mark on.  A prompt qualifies
when, in the tree read so far,

* no turn before it has anything unfinished (a tool call, subagent or
  execution still waiting: its end, or what runs inside it, would come after
  the mark, where no replay from the mark could place it);
* it comes ``QUIET_NS`` after every event before it and no event after it is
  earlier, so no second delivery of an earlier event (``hooks.repeats``) and
  no event the tree sorts before it lies past the mark;

and, checked by building both, the turns from it on export alike from the mark
and from where the sender read.  A mark also keeps what the replay from it
cannot know: how many derived turns came before (``derived-<n>`` ids count from
the session's start), the session's workspace (its first ``cwd``) and the model
named last before it (Claude names it only at ``SessionStart``: the turns' root spans
carry it).

Concurrent senders are safe without a lock: the events file is only appended
to, every mark written is true of it, and a mark is replaced atomically, so a
sender reads either mark.  A mark is dropped (the file read whole) when the file
is another one (device, inode), shorter than the mark, or holds another line at
the mark (its CRC); ``live`` also reads whole when the tail does not find the
event's spans, or the event's turn has no prompt after the mark.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, replace
from typing import Any

from agentscan.hooks.events import PROMPTS
from agentscan.hooks.repeats import WINDOW_NS

#: bump when a mark's fields change: an older mark is then read as none
VERSION = 2
#: the quiet before a marked prompt: past any second delivery of an earlier event, and past
#: the longest a hook may take between the time it stamps (when it starts) and its append
#: (``capture.AGENT_SECONDS`` + ``capture.READ_SECONDS``, 5.7 s, and a second more: an event
#: stamped earlier may land later; not imported: ``capture`` imports the live sender)
QUIET_NS = max(2 * WINDOW_NS, 6_700_000_000)
MARK_DIR = "marks"


@dataclass(frozen=True, slots=True)
class Mark:
    dev: int
    ino: int
    offset: int  # where the marked prompt's line starts
    lines: int  # lines before it (events' ``seq`` count from the file's start)
    head: int  # CRC-32 of that line
    derived: int  # derived turns before it
    workspace: str | None
    model: str | None = None  # the latest model an event before the mark named (``hooks.tree.event_model``)


@dataclass(slots=True)
class Tail:
    """The events read, in file order, each with the offset of its line; ``mark``: where the
    read began (``None``: the file's start)."""

    events: list[Any]
    offsets: list[int]
    mark: Mark | None
    dev: int
    ino: int
    warnings: list[Any]
    data: bytes = b""  # the bytes read, from ``base`` on (a new mark's line CRC)
    base: int = 0


def mark_path(root: str, agent: str, session_id: str) -> str:
    from agentscan.hooks import store

    return os.path.join(root, "otlp", MARK_DIR, store.agent_dir_name(agent), store.session_file_name(session_id) + ".mark")


def load_mark(root: str, agent: str, session_id: str) -> Mark | None:
    import json

    try:
        with open(mark_path(root, agent, session_id), encoding="utf-8") as handle:
            doc = json.load(handle)
        fields = [doc[name] for name in ("dev", "ino", "offset", "lines", "head", "derived")]
        workspace = doc["workspace"]
        model = doc.get("model")
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if doc.get("v") != VERSION or not all(type(value) is int and value >= 0 for value in fields):
        return None
    if any(value is not None and not isinstance(value, str) for value in (workspace, model)):
        return None
    dev, ino, offset, lines, head, derived = fields
    return Mark(dev, ino, offset, lines, head, derived, workspace, model)


def save_mark(root: str, agent: str, session_id: str, mark: Mark) -> None:
    """Best effort: a mark not written only means the next sender reads more."""
    import json

    from agentscan.filemodes import make_private_dirs, open_private

    path = mark_path(root, agent, session_id)
    try:
        make_private_dirs(os.path.dirname(path))
        temp = f"{path}.{os.getpid()}.tmp"
        with os.fdopen(open_private(temp), "w", encoding="utf-8") as handle:
            json.dump({"v": VERSION, "dev": mark.dev, "ino": mark.ino, "offset": mark.offset, "lines": mark.lines,
                       "head": mark.head, "derived": mark.derived, "workspace": mark.workspace,
                       "model": mark.model}, handle)
        os.replace(temp, path)  # atomic: a concurrent sender reads this mark or the one before
    except OSError:
        return


def read_tail(session: Any, mark: Mark | None, limit: int) -> Tail | None:
    """The events of ``session`` (a ``store.StoredSession``) from ``mark``, or from the start
    when there is none or it does not hold for the file as it is now; ``None`` when that is
    more than ``limit`` bytes to read."""
    from agentscan.hooks.envelopes import line_decoder
    from agentscan.toolkit.fsutil import open_regular

    # (``store.read_events`` reads from the start only; this is its own line decoder, a line
    # cut short with an event glued after it included, so a tail's events are those a whole
    # read gives, ``seq`` included.)
    decode = line_decoder(session)
    with open_regular(session.path) as handle:
        stat = os.fstat(handle.fileno())
        try:
            data = _from_mark(handle, stat, mark, limit) if mark is not None else None
        except _TooMuch:
            return None
        if data is None:
            mark = None
            if stat.st_size > limit:
                return None
            handle.seek(0)
            data = handle.read()
    if mark is None and len(data) > limit:
        return None
    base, number = (mark.offset, mark.lines) if mark is not None else (0, 0)
    tail = Tail([], [], mark, stat.st_dev, stat.st_ino, [], data, base)
    offset = 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        end = len(data) if end < 0 else end + 1
        line, line_at = data[offset:end], base + offset
        offset, number = end, number + 1
        event = decode(line, number, tail.warnings)
        if event is not None:
            tail.events.append(event)
            tail.offsets.append(line_at)
    return tail


class _TooMuch(Exception):
    """The bytes since a mark that holds are over the limit."""


def _from_mark(handle: Any, stat: os.stat_result, mark: Mark, limit: int) -> bytes | None:
    """The bytes from ``mark`` on when it holds for this file: the same file (device, inode),
    as long, a line starting at the mark and the line it marked there (its CRC); else ``None``."""
    if (stat.st_dev, stat.st_ino) != (mark.dev, mark.ino) or stat.st_size < mark.offset:
        return None
    if mark.offset:
        handle.seek(mark.offset - 1)
        if handle.read(1) != b"\n":
            return None
    else:
        handle.seek(0)
    data = handle.read(64 * 1024) if stat.st_size - mark.offset > limit else handle.read()
    if _line_crc(data, 0) != mark.head:
        return None
    if stat.st_size - mark.offset > limit:
        raise _TooMuch
    return data


def _line_crc(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return zlib.crc32(data[start:len(data) if end < 0 else end + 1])


def renumbered(trace: Any, derived_before: int) -> Any:
    """``trace`` (built from a mark on) with its derived turns numbered from the session's start."""
    if not derived_before:
        return trace
    turns = tuple(replace(t, id=f"derived-{int(t.id.rpartition('-')[2]) + derived_before}")
                  if t.derived and t.id.rpartition("-")[2].isdigit() else t for t in trace.turns)
    return replace(trace, turns=turns)


def prompted_turns(agent: str, events: list[Any]) -> set[str]:
    """The turn ids the prompts among ``events`` carry (as the tree reads a turn id)."""
    from agentscan.hooks.ids import canonical_generation_id

    found = set()
    for event in events:
        if event.name in PROMPTS:
            turn = (canonical_generation_id(event.text("generation_id")) if agent == "cursor" else None) or event.turn_id
            if turn:
                found.add(turn)
    return found


def next_mark(tail: Tail, trace: Any, exported: list[Any], build: Any) -> Mark | None:
    """A mark later than ``tail``'s, at the latest prompt that qualifies (the module's rules);
    ``trace``/``exported``: the tree and traces built from ``tail``; ``build(events, derived, model)``
    builds the traces of ``events`` numbering derived turns after ``derived``, ``model`` named before them."""
    from agentscan.hooks.tree import effective_ns, event_model
    from agentscan.otlp.from_hooks import unfinished

    events = tail.events
    times = [effective_ns(e) for e in events]
    later = [0] * len(events)  # the earliest time of the events after each one
    earliest = None
    for index in range(len(events) - 1, -1, -1):
        later[index] = earliest if earliest is not None else times[index]
        earliest = times[index] if earliest is None else min(earliest, times[index])
    # (A turn with no stop is no bar: a prompt after it routes what has no turn id to the new
    # turn in both replays, and what names it is read whole, ``live``.)
    unsettled = [t.started_ns for t in trace.turns if any(unfinished(node) for node in t.walk())]
    chosen = None
    before = None  # the latest time of the events before this one
    for index, event in enumerate(events):
        at = times[index]
        if (index and event.name in PROMPTS and at - (before or at) >= QUIET_NS and later[index] >= at
                and not any(start < at for start in unsettled)):
            chosen = index
        before = at if before is None else max(before, at)
    if chosen is None:
        return None
    at = times[chosen]
    old = tail.mark.derived if tail.mark is not None else 0
    derived = old + sum(1 for t in trace.turns if t.derived and t.started_ns < at)
    model = next((named for e in reversed(events[:chosen]) if (named := event_model(e))),
                 tail.mark.model if tail.mark is not None else None)
    # The proof, not only the rules: from the mark, the later turns export as they do now.
    if build(events[chosen:], derived, model) != [t for t in exported if t.spans[0].start_ns >= at]:
        return None
    offset = tail.offsets[chosen]
    head = _line_crc(tail.data, offset - tail.base)
    workspace = tail.mark.workspace if tail.mark is not None else trace.session.workspace
    return Mark(tail.dev, tail.ino, offset, events[chosen].seq - 1, head, derived, workspace, model)


def skip_mark(session: Any, mark: Mark | None, limit: int) -> tuple[Mark, int] | None:
    """A mark past what is over ``limit`` bytes to read since ``mark`` (the file's start when
    ``None``), and how many bytes it leaves behind; ``None`` when the file has no whole line
    to mark yet.  No replay proves it: the turns before it are given up for live export (a
    batch ``agentscan otlp`` still has them), so that those after it go out at all.

    It is the latest prompt in the file's last ``limit`` bytes, so the turn under way reads
    whole from it; with none there (one turn larger than that), the last whole line, which
    the next prompt follows.  Derived turns before it are counted as ``mark`` counted them,
    the workspace and the model are ``mark``'s (or the marked event's own)."""
    from agentscan.hooks.envelopes import line_decoder
    from agentscan.hooks.tree import event_model
    from agentscan.toolkit.fsutil import open_regular

    with open_regular(session.path) as handle:
        stat = os.fstat(handle.fileno())
        start = max(0, stat.st_size - limit)
        handle.seek(start)
        data = handle.read(stat.st_size - start)
        first = 0 if start == 0 else data.find(b"\n") + 1  # whole lines only
        end = data.rfind(b"\n") + 1  # the last line may be being written
        if (start and not first) or end <= first:
            return None
        starts = [first, *(index + 1 for index in _newlines(data, first, end - 1))]
        decode = line_decoder(session)
        chosen, event = starts[-1], None
        for at, after in zip(reversed(starts), [end, *reversed(starts[1:])]):
            found = decode(data[at:after], 0, [])
            if found is not None and found.name in PROMPTS:
                chosen, event = at, found
                break
        offset = start + chosen
        handle.seek(0)
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(min(1 << 20, offset - handle.tell())), b""))
        same_file = mark is not None and (mark.dev, mark.ino) == (stat.st_dev, stat.st_ino) and mark.offset <= offset
        kept = mark if same_file else None
        # The derived turns the skipped lines open count too: a batch export numbers them all.
        skipped = _derived_in(handle, session, kept.offset if kept is not None else 0, offset)
    workspace = kept.workspace if kept is not None else None
    if workspace is None and event is not None:
        roots = event.get("workspace_roots")
        workspace = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else event.text("cwd")
    model = (event_model(event) if event is not None else None) or (kept.model if kept is not None else None)
    moved = Mark(stat.st_dev, stat.st_ino, offset, lines, _line_crc(data, chosen),
                 (kept.derived if kept is not None else 0) + skipped, workspace, model)
    return moved, offset - (kept.offset if kept is not None else 0)


def _derived_in(handle: Any, session: Any, start: int, end: int) -> int:
    """How many derived turns the lines of ``handle`` from ``start`` to ``end`` open, as the
    tree counts them (``tree.opens_derived``, a second delivery once): only a prompt's line
    is parsed.  Read a MiB at a time: the lines skipped are what is too much to read at once."""
    from agentscan.hooks.envelopes import line_decoder
    from agentscan.hooks.repeats import Repeats
    from agentscan.hooks.tree import effective_ns, opens_derived

    names = tuple(name.encode() for name in PROMPTS)
    decode = line_decoder(session)
    prompts: list[Any] = []
    rest = b""
    handle.seek(start)
    while True:
        chunk = handle.read(min(1 << 20, end - handle.tell())) if handle.tell() < end else b""
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop() if chunk else b""  # the last, unended, waits for the next chunk
        for line in lines:
            if not any(name in line for name in names):
                continue
            event = decode(line, len(prompts), [])
            if event is not None and opens_derived(session.agent, session.session_id, event):
                prompts.append(event)
        if not chunk:  # (a file cut shorter meanwhile ends the read too)
            break
    repeats = Repeats()  # in the tree's order, as it tells a second delivery
    return sum(not repeats.is_repeat(event, effective_ns(event))
               for event in sorted(prompts, key=lambda e: (effective_ns(e), e.seq)))


def _newlines(data: bytes, start: int, end: int) -> Any:
    """The offsets of the newlines in ``data[start:end]``."""
    at = data.find(b"\n", start, end)
    while at >= 0:
        yield at
        at = data.find(b"\n", at + 1, end)
