"""Live export: ``agentscan hook --otlp-endpoint URL`` sends each span as its closing event arrives.

A hook process lives for one event and the agent waits for it, so the hook
itself never talks to the network.  Once the event is stored and the agent
has its reply, the hook starts a *detached sender* (a new session, stdin,
stdout and stderr on the null device, never waited for) and exits; the
agent is not delayed by the collector at all.  The sender:

1. takes one of ``SLOTS`` slot files; when all are taken (a parallel batch
   of more calls, or a slow collector) it queues its job for the senders at
   work, which take the queue before and after they let their slot go
   (``livequeue``): no span is lost while the collector answers, and the
   queue is bounded, so nothing piles up when it does not;
2. rebuilds the session's hook tree from the events store, read from the
   session's mark (``livetail``: the turns since the last quiet one), and
   keeps the spans this event closed: a tool call (post / failure / denied),
   a subagent (its stop), a Cursor shell or MCP execution (its ``after…``),
   or the whole turn's root span (the turn's stop);
3. sends them with one short request (``SEND_TIMEOUT_S``, no retry) and
   counts the outcome in ``otlp-live.json`` in the data dir; failures are
   also logged to ``hook-errors.log``.  It never raises.

Spans are built by the same code as ``agentscan otlp``, so their ids equal
those of a later batch export of the session and a backend can deduplicate.
Live spans carry no content and no LLM calls (hooks do not see them): a
batch export adds those.

This module is imported by the hook process, so at import time it needs
only ``os`` and ``sys``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from agentscan.filemodes import make_private_dirs
from agentscan.hooks import events
from agentscan.toolkit.words import plural

from agentscan.otlp import livequeue
from agentscan.otlp.livecounts import COUNTER_FILE as COUNTER_FILE
from agentscan.otlp.livecounts import FileLock, count_outcome
from agentscan.otlp.livecounts import read_counts as read_counts
from agentscan.otlp.livequeue import SLOT_STALE_S as SLOT_STALE_S
from agentscan.otlp.livequeue import SLOTS as SLOTS
from agentscan.otlp.livequeue import SPOOL_DIR as SPOOL_DIR

SEND_TIMEOUT_S = 2.0
MAX_EVENTS_BYTES = 16 * 1024 * 1024  # more to read (since the session's mark) is not read on every event
#: queue rounds one sender works through after letting its slot go (a bound, never reached in use)
MAX_ROUNDS = 64

# The events after which a span is complete, named once in hooks/events.py.
TOOL_CLOSES = frozenset(events.TOOL_COMPLETIONS)
SUBAGENT_CLOSES = frozenset(events.SUBAGENT_STOPS)
INNER_CLOSES = frozenset(events.INNER_COMPLETIONS)
TURN_CLOSES = frozenset(events.TURN_STOPS)
CLOSING_EVENTS = TOOL_CLOSES | SUBAGENT_CLOSES | INNER_CLOSES | TURN_CLOSES
#: its name here before livecounts.py (tests/test_hardening_leaks.py counts through it)
_count = count_outcome


def dispatch(root: str, envelope: dict[str, Any], endpoint: str) -> bool:
    """In the hook process: start the detached sender when this event closes a span.

    Returns whether a sender was started.  Costs one ``posix_spawn`` (a few
    milliseconds) and never waits for the child.
    """
    if envelope.get("event") not in CLOSING_EVENTS or not envelope.get("session_id"):
        return False
    argv = [
        sys.executable, "-m", "agentscan.otlp.live", root, str(envelope.get("agent") or "unknown"),
        str(envelope["session_id"]), str(envelope.get("received_at_ns")), str(envelope.get("event")),
        str(envelope.get("turn_id") or ""), endpoint,
    ]
    _spawn_detached(argv)
    return True


def _spawn_detached(argv: list[str]) -> None:
    if hasattr(os, "posix_spawn"):
        devnull = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
        ]
        # setsid: the agent may kill the hook's process group on its timeout; the sender is not in it
        try:
            os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)
        except NotImplementedError:  # a libc without POSIX_SPAWN_SETSID
            os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=actions)
        return
    import subprocess  # Windows: no posix_spawn; a detached process with no console

    flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             creationflags=flags, close_fds=True)
    child.returncode = 0  # never waited for by design: the hook exits now


# --- the detached sender ------------------------------------------------------------


def main(argv: list[str]) -> int:
    if len(argv) != 7:
        return 2  # only ever started by dispatch(); nothing to count without a data dir
    root, *args = argv
    try:
        _run(root, livequeue.Job(tuple(args), livequeue.otel_env(os.environ)))
    except Exception as exc:  # noqa: BLE001 - a detached observer never fails loudly
        count_outcome(root, "failed", f"{type(exc).__name__}: {exc}")
    return 0


def _run(root: str, job: livequeue.Job) -> None:
    """Send ``job``'s spans, then the queued jobs (``livequeue``) while the collector answers."""
    slot = livequeue.take_slot(root)
    own: livequeue.Job | None = job
    if slot is None:
        if not livequeue.defer(root, job):
            count_outcome(root, "dropped", f"{SLOTS} senders already busy and {livequeue.MAX_PENDING} spans queued; "
                                           f"span of {job.args[3]} dropped")
            return
        # A sender may have let its slot go since this one looked, after its last look at the
        # queue: looking once more, this one takes the job itself, or a sender at work will.
        slot = livequeue.take_slot(root)
        own = None
    rounds = 0
    while slot is not None:
        rounds += 1
        healthy = True
        try:
            if own is not None:
                healthy, own = _serve(root, own), None
            while healthy:
                livequeue.keep(slot)
                queued, stale = livequeue.claim(root)
                if stale:
                    count_outcome(root, "dropped", f"{stale} queued span job(s) older than "
                                                   f"{livequeue.PENDING_STALE_S:.0f} s dropped", times=stale)
                if queued is None:
                    break
                healthy = _serve(root, queued)
        finally:
            livequeue.release(slot)
        # A job queued after the last look and before the release: its sender found no slot,
        # then looked again while this one still held it.  This look finds it.
        slot = livequeue.take_slot(root) if healthy and rounds < MAX_ROUNDS and livequeue.waiting(root) else None


def _serve(root: str, job: livequeue.Job) -> bool:
    """One job's spans sent; ``False`` when the send failed (the queue is left for later)."""
    agent, session_id, received, event, turn_id, endpoint = job.args
    try:
        spans = closed_spans(root, agent, session_id, int(received), event, turn_id, env=job.env)
        return spans is None or _send(root, spans, endpoint, event, job.env)
    except Exception as exc:  # noqa: BLE001 - one job that fails is counted; the others still go
        count_outcome(root, "failed", f"{type(exc).__name__}: {exc}")
        return True


def closed_spans(root: str, agent: str, session_id: str, received_ns: int, event: str, turn_id: str,
                 env: Any = None) -> Any:
    """The ``ExportTrace`` holding the spans ``event`` closed, or ``None`` when there are none.

    The events are read from the session's mark (``livetail``), not from the start: the
    turns since the last one that ended.  The whole file is read when there is no mark
    (or it does not hold), or the tail does not find the event's spans."""
    from agentscan.hooks import store
    from agentscan.otlp import livetail

    path = store.session_path(root, agent, session_id)
    session = store.StoredSession(agent, session_id, path)
    mark = livetail.load_mark(root, agent, session_id)
    tail = livetail.read_tail(session, mark, MAX_EVENTS_BYTES)
    if tail is None:  # too much to read since the mark: the mark moves past it, or nothing would go out again
        moved = _move_past(root, session, mark)
        tail = None if moved is None else livetail.read_tail(session, moved, MAX_EVENTS_BYTES)
        if tail is None:
            if moved is not None:  # (a mark another sender moved, still too far back)
                count_outcome(root, "skipped", f"{path} has over {MAX_EVENTS_BYTES} bytes to read since its mark; "
                                               f"the span of {event} is not sent live")
            return None
        return _from_tail(root, agent, session_id, tail, received_ns, event, turn_id, env)
    found = _from_tail(root, agent, session_id, tail, received_ns, event, turn_id, env)
    if found is not None or tail.mark is None:
        return found
    tail = livetail.read_tail(session, None, MAX_EVENTS_BYTES)  # the tail did not find it: the whole file
    if tail is not None:
        return _from_tail(root, agent, session_id, tail, received_ns, event, turn_id, env)
    count_outcome(root, "skipped", f"{path}: the span of {event} belongs to a turn before the session's mark, and the "
                                   f"file has over {MAX_EVENTS_BYTES} bytes to read whole; not sent live")
    return None


def _move_past(root: str, session: Any, read: Any) -> Any:
    """The mark past what is over ``MAX_EVENTS_BYTES`` to read (``livetail.skip_mark``), saved,
    with the bytes it leaves behind counted (``skipped_bytes``); ``None`` when there is no
    line to mark yet.  Under a lock, so that the senders of one big turn, each finding too
    much, move the mark once and count those bytes once: the others read from it.  ``read``:
    the mark the caller read from."""
    from agentscan.otlp import livetail

    agent, session_id = session.agent, session.session_id
    make_private_dirs(os.path.join(root, SPOOL_DIR))
    with FileLock(os.path.join(root, SPOOL_DIR, "marks.lock")):
        mark = livetail.load_mark(root, agent, session_id)
        if mark is not None and mark != read:
            return mark  # another sender moved it meanwhile
        moved = livetail.skip_mark(session, mark, MAX_EVENTS_BYTES)
        if moved is not None:
            livetail.save_mark(root, agent, session_id, moved[0])
    message = f"{session.path} has over {MAX_EVENTS_BYTES} bytes to read since its last quiet turn"
    if moved is None:
        count_outcome(root, "skipped", f"{message}; not read for live spans")
        return None
    from agentscan.invocation import program_word

    # The command as the user runs this agentscan (a venv's by its path), as every hint names it.
    count_outcome(root, "skipped", f"{message}: live export goes on from a later prompt, {moved[1]} bytes of events "
                                   f"not sent live (`{program_word()} otlp` exports them)", extra={"skipped_bytes": moved[1]})
    return moved[0]


def _from_tail(root: str, agent: str, session_id: str, tail: Any, received_ns: int, event: str, turn_id: str,
               env: Any = None) -> Any:
    """``closed_spans`` from the events of ``tail``; after a turn's stop (or a whole read),
    a later mark for the next senders."""
    from agentscan.hooks import store
    from agentscan.hooks.tree import TreeBuilder, effective_ns
    from agentscan.otlp import livetail
    from agentscan.otlp.builder import SessionFacts
    from agentscan.otlp.from_hooks import hook_traces
    from agentscan.otlp.resource import resource_for
    from agentscan.otlp.semconv import Content
    from agentscan.otlp.spans import ExportTrace

    events = tail.events
    closing = [e for e in events if e.received_at_ns == received_ns and e.name == event]
    if not closing:
        return None
    at = effective_ns(closing[-1])
    path = store.session_path(root, agent, session_id)
    builder = TreeBuilder(agent, session_id, model=tail.mark.model if tail.mark is not None else None)
    builder.add_all(events)
    if closing[-1].seq in builder.repeats.skipped:
        return None  # a second delivery of an event (agentscan registered twice): its span went out with the first
    derived = tail.mark.derived if tail.mark is not None else 0
    trace = livetail.renumbered(builder.build(events_path=path), derived)
    # The root's attributes as a batch export gives them (``sources``), the workspace too: a
    # backend keeps whichever copy of the root came last.
    workspace = tail.mark.workspace if tail.mark is not None else trace.session.workspace
    facts = SessionFacts(provider=agent, native_id=session_id, source="hooks", content=Content(),
                         resource=resource_for(agent, os.environ if env is None else env), cwd=workspace)
    exported = hook_traces(trace, facts)

    def build(since: list[Any], derived_before: int, model: str | None) -> list[Any]:
        again = TreeBuilder(agent, session_id, model=model)
        again.add_all(since)
        return hook_traces(livetail.renumbered(again.build(events_path=path), derived_before), facts)

    if event in TURN_CLOSES or tail.mark is None:
        later = livetail.next_mark(tail, trace, exported, build)
        if later is not None:
            livetail.save_mark(root, agent, session_id, later)
    prompted = livetail.prompted_turns(agent, events) if tail.mark is not None else None
    for done in exported:
        wanted = [s for s in done.spans if _closed_by(s, done.spans[0], event, at, turn_id)]
        if not wanted:
            continue
        root_span = done.spans[0]
        if prompted is not None and not root_span.attributes.get("agentscan.turn.derived") \
                and root_span.attributes.get("agentscan.turn.id") not in prompted:
            return None  # a turn begun before the mark (a straggler's): the whole file says where it sits
        return ExportTrace(done.resource, wanted, done.session)
    return None


def _closed_by(span: Any, root: Any, event: str, at: int, turn_id: str) -> bool:
    from agentscan.otlp.semconv import UNFINISHED

    if event in TURN_CLOSES:  # the turn's own id; a derived turn (no id) is the one this stop ended
        matches = span.attributes.get("agentscan.turn.id") == turn_id if turn_id else span.end_ns == at
        return span is root and matches
    if span is root or span.end_ns != at:
        return False
    if UNFINISHED in (span.attributes.get("agentscan.tool.status"), span.attributes.get("agentscan.subagent.status")):
        return False  # it ends where its turn was last seen, which may be this event: not closed by it
    if event in TOOL_CLOSES:
        return span.name.startswith("execute_tool")
    if event in SUBAGENT_CLOSES:
        return span.name.startswith("invoke_agent")
    return span.name == "shell" or span.name.startswith("tools/call")


def _send(root: str, trace: Any, endpoint: str, event: str, env: Any = None) -> bool:
    """Whether the collector took the spans (the outcome counted either way)."""
    from agentscan.errors import SendFailed
    from agentscan.otlp.resource import env_headers
    from agentscan.otlp.sender import send

    try:
        # The hook has no --header: the standard variables are how a vendor gets its API key,
        # as for `agentscan otlp` (the agent's environment reaches this detached sender).
        send([trace], endpoint, timeout=SEND_TIMEOUT_S, retries=0, headers=env_headers(os.environ if env is None else env),
             timeout_option=None)
    except SendFailed as exc:
        count = len(trace.spans)
        count_outcome(root, "failed", f"{plural(count, 'span')} of {event}: {exc}")
        return False
    count_outcome(root, "sent", None, spans=len(trace.spans))
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
