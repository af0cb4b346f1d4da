"""`agentscan hook`: turn one payload on stdin into one envelope line.

The agent runs this on every event and waits for it, so it must be quick and
must never fail the agent: Cursor treats exit 2 as "deny" and Claude feeds
stderr back to the model.  Hence every path ends in the agent's expected reply
and a normal return (exit 0); problems go to ``hook-errors.log``.  A payload
that is slow to arrive is read on by a detached child, so the agent is never
held longer than ``AGENT_SECONDS``.  Imports are stdlib only (``json``,
``os``, ``time``), plus ``select`` where it works on pipes.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any, Sequence

from agentscan.hooks import store
from agentscan.hooks.arguments import has_unknown, unknown_arguments
from agentscan.hooks.diagnostics import log_once, log_problem
from agentscan.hooks.payloads import (
    REDACTED_CONTENT_EVENTS,
    VIA,
    detect_agent,
    encode_line,
    identify,
    is_cursor_payload,
    redact,
)
from agentscan.hooks.sanitize import sanitize

MAX_PAYLOAD = 8 * 1024 * 1024
# The agent waits for the hook, so it gets its reply within AGENT_SECONDS.  A
# payload still arriving then (a writer starved of CPU: 50 hooks at once on 2
# cores) is not dropped: a detached child (POSIX) reads on until READ_SECONDS
# in all, then stores it, or logs the drop to hook-errors.log (doctor shows it).
AGENT_SECONDS = 0.7
READ_SECONDS = 5.0
#: Cursor and Gemini CLI parse stdout as JSON (Gemini: "must not print any plain text to stdout
#: other than the final JSON"); Claude wants nothing
REPLIES = {"cursor": b"{}\n", "gemini": b"{}\n"}
#: the agents ``--agent`` may name; any other name writes nothing at all
AGENTS = ("cursor", "claude", "gemini")
#: an ``--agent`` value plain enough to quote in the log (anything else may be a pasted secret)
_PLAIN = re.compile(r"[a-z][a-z0-9_.-]{0,23}")
ENVELOPE_VERSION = 1


def run(agent: str | None, otlp_endpoint: str | None = None, arguments: Sequence[str] = ()) -> None:
    """The whole command.  Never raises (short of the interpreter dying).

    ``arguments``: the command line after ``hook`` (or what Typer left of it); those the hook
    does not know are ignored, each said in ``hook-errors.log`` (``hooks.arguments``).
    With ``otlp_endpoint``, once the agent has its reply, an event that
    closes a span starts a detached sender (``agentscan.otlp.live``); the
    network is never touched in this process.
    """
    received_at_ns = time.time_ns()
    name = (agent or "").strip().lower()
    if name and name not in AGENTS:
        # A misspelt --agent must not fill the store with events no tree can read;
        # `agentscan doctor` shows the installed command and its --agent.  A command wired
        # by hand into another agent's config (Codex's) is in no config doctor
        # reads: said once in the log (which doctor and `hooks status` show), or every event
        # would vanish without a word.
        try:
            shown = repr(name) if _PLAIN.fullmatch(name) else "(not quoted)"
            log_once(store.data_dir(), name if _PLAIN.fullmatch(name) else "unknown",
                     f"unknown --agent {shown}: the hook captures only {', '.join(AGENTS[:-1])} and {AGENTS[-1]}; "
                     "nothing stored")
        except Exception:  # noqa: BLE001 - an observer must never break the agent
            pass
        return
    root = None
    stored = None
    detached = replied = False
    try:
        root = store.data_dir()
        relative = store.ignored_setting()
        if relative is not None:  # stored all the same, where trace and doctor look
            log_once(root, name, f"{store.ENV_VAR} is a relative path ({relative}), ignored: stored in {root}")
        if has_unknown(arguments):
            ignored = unknown_arguments(list(arguments))
            for message in ignored:  # said once while nothing else is logged, not on every event
                log_once(root, name, message, recent=len(ignored))
        reader = StdinReader()
        raw, problem = reader.read(AGENT_SECONDS)
        if problem == _STILL_OPEN:
            role = _detach(name)
            if role == "parent":
                replied = True
                return  # the agent has its reply; the child finishes the read
            detached, replied = role == "child", role is not None
            raw, problem = reader.read(READ_SECONDS)
        if problem:
            log_problem(root, name, problem + _whose(reader.head()))
        if raw:
            stored_as, stored = capture_envelope(root, name, raw, received_at_ns, cut=reader.cut_bytes)
            # The reply is the configured agent's: Cursor running Claude Code's hook reads a Claude reply
            name = name or stored_as
        elif not problem:  # stdin closed with nothing on it: said, as any payload not stored is
            log_problem(root, name, "empty payload (stdin held nothing); nothing stored")
    except Exception as exc:  # noqa: BLE001 - an observer must never break the agent
        if root is not None:
            log_problem(root, name, f"{type(exc).__name__}: {exc}")
    finally:
        if not replied:
            reply(name)
    if otlp_endpoint and stored is not None and root is not None:
        try:
            from agentscan.otlp.live import dispatch

            dispatch(root, stored, otlp_endpoint)
        except Exception as exc:  # noqa: BLE001 - live export is best effort
            log_problem(root, name, f"otlp: cannot start the live sender: {type(exc).__name__}: {exc}")
    if detached:
        os._exit(0)  # the child: nothing of the parent's (buffers, atexit) may run twice


def _detach(agent: str) -> str | None:
    """Fork so that the agent gets its reply now while a child keeps reading stdin.

    Returns ``"parent"`` (reply given: return at once), ``"child"`` (in a new
    session, stdout and stderr on /dev/null so the agent sees them close with
    the parent), ``"unforked"`` (replied, but the fork failed: read on here),
    or ``None`` where there is no fork (Windows): this process reads on and
    replies after.
    """
    if not hasattr(os, "fork"):
        return None
    reply(agent)  # before the fork: the child must never write to the agent
    try:
        sys.stdout.flush()
        pid = os.fork()
    except OSError:
        return "unforked"
    if pid:
        return "parent"
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
    return "child"


def capture(root: str, agent: str, raw: bytes, received_at_ns: int) -> str:
    """Parse, wrap and append one payload; returns the agent name that was used.

    Bad input is logged (not stored) and is not an error for the caller.
    """
    return capture_envelope(root, agent, raw, received_at_ns)[0]


def capture_envelope(root: str, agent: str, raw: bytes, received_at_ns: int,
                     cut: int | None = None) -> tuple[str, dict[str, Any] | None]:
    """``capture``, also returning the envelope that was stored (``None`` when nothing was).
    ``cut``: the bytes of the payload's ``"content"`` string the reader left out (``contentcut``)."""
    try:
        payload = json.loads(raw.decode("utf-8-sig", errors="replace"))
    except ValueError as exc:
        log_problem(root, agent, f"payload is not JSON ({len(raw)} bytes): {exc}")
        return agent, None
    except RecursionError:
        log_problem(root, agent, f"payload nested too deep to read ({len(raw)} bytes); dropped")
        return agent, None
    if not isinstance(payload, dict):
        from agentscan.toolkit.jsonkinds import json_kind

        log_problem(root, agent, f"payload is {json_kind(payload)}, not a JSON object")
        return agent, None
    payload = sanitize(payload)  # depth and number bounds: what the readers can hold
    configured = agent
    agent = agent or detect_agent(payload)
    if agent == "claude" and is_cursor_payload(payload):
        # Cursor's "third-party hooks" setting makes Cursor run the hooks configured for Claude
        # Code too, with Cursor's own payload: a Cursor event, never a Claude session of its own.
        agent = "cursor"
    event, session_id, turn_id = identify(agent, payload)
    if cut is not None:
        # Kept only where the content would not be stored anyway: any other payload lost a part of itself.
        if event not in REDACTED_CONTENT_EVENTS or payload.get("content") != "":
            log_problem(root, agent, f"payload larger than {MAX_PAYLOAD} bytes, dropped" + _whose(raw[:HEAD_BYTES]))
            return agent, None
        log_problem(root, agent, f"payload larger than {MAX_PAYLOAD} bytes: the file content of {event} "
                                 f"({cut} bytes) was left out and the event stored" + _whose(raw[:HEAD_BYTES]))
    envelope: dict[str, Any] = {"v": ENVELOPE_VERSION, "received_at_ns": received_at_ns}
    if configured and configured != agent:
        # Right after the time (``eventcounts`` compares what follows it): the hook installed for
        # that agent stored it, so a twin from Cursor's own hook is a known double delivery.
        envelope[VIA] = configured
    envelope.update({
        "agent": agent,
        "event": event,
        "session_id": session_id,
        "turn_id": turn_id,
        "payload": redact(event, payload, cut),
    })
    try:
        store.append_event(root, agent, session_id, encode_line(envelope))
    except OSError as exc:
        log_problem(root, agent, f"cannot store {event or 'an event'}: {exc}")
        return agent, None
    return agent, envelope


_STILL_OPEN = "still open"


class StdinReader:
    """All of stdin (never line by line: Cursor ids can hold a newline), bounded in size and time.

    ``read(seconds)`` can be called again with a later deadline (``seconds``
    counts from the reader's creation); what came before is kept.
    """

    def __init__(self, limit: int = MAX_PAYLOAD) -> None:
        self.limit = limit
        self.started = time.monotonic()
        self.chunks: list[bytes] = []
        self.size = 0
        #: reading past the limit inside the payload's ``"content"`` string (``contentcut``)
        self.cut: Any = None
        self.key_waits = 0  # reads taken on since the limit passed inside a "content" key

    @property
    def cut_bytes(self) -> int | None:
        """How many bytes of the ``"content"`` string were left out; ``None``: none were."""
        return None if self.cut is None else self.cut.skipped

    def head(self) -> bytes:
        """The start of what was read (of a payload dropped, the part that names its session)."""
        return self.chunks[0][:HEAD_BYTES] if self.chunks else b""

    def read(self, seconds: float) -> tuple[bytes, str | None]:
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        if stream is None:
            return b"", "no stdin"
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None  # an in-memory stream (tests, embedding): it cannot block
        if fd is None:
            data = stream.read(self.limit + 1) or b""
            if isinstance(data, str):  # a text stream without .buffer
                data = data.encode("utf-8", "surrogateescape")
            if len(data) > self.limit:
                self.chunks = [data[:HEAD_BYTES]]  # for ``head``: whose payload was dropped
                return b"", f"payload larger than {self.limit} bytes, dropped"
            return data, None
        if os.isatty(fd):
            return b"", "stdin is a terminal, not a payload; nothing stored"
        waiting = os.name != "nt"  # select() works on pipes only off Windows
        if waiting:
            import select
        deadline = self.started + seconds
        while True:
            if waiting:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                    if seconds < READ_SECONDS:
                        return b"", _STILL_OPEN
                    return b"", f"stdin still open after {seconds:g}s; payload of {self.size} bytes so far dropped"
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                if self.cut is None and self.size <= self.limit:
                    return b"".join(self.chunks), None
                payload = None if self.cut is None else self.cut.payload()  # (None: it ended in a key cut short)
                return (payload, None) if payload is not None else (b"", f"payload larger than {self.limit} bytes, dropped")
            self.size += len(chunk)
            if self.cut is not None:
                if not self.cut.feed(chunk):
                    return b"", f"payload larger than {self.limit} bytes, dropped"
                continue
            self.chunks.append(chunk)
            if self.size > self.limit:
                from agentscan.hooks.contentcut import KEY_WAITS, begin, key_cut_short

                # Past the limit inside a file's content (a Cursor beforeReadFile): read on
                # without it; ``capture_envelope`` decides whether the event may be stored so.
                data = b"".join(self.chunks)
                cut = begin(data, REDACTED_CONTENT_EVENTS, self.limit)  # the limit's byte: where it passed
                if (cut is None or cut.after is not None) and key_cut_short(data) and self.key_waits < KEY_WAITS:
                    # Ended inside a ``"content"`` key (a cut found is an earlier string's): read on.
                    self.key_waits += 1
                    self.chunks = [data]
                    continue
                self.chunks = [data[:HEAD_BYTES]]  # for ``head``
                self.cut = cut
                if self.cut is None:
                    return b"", f"payload larger than {self.limit} bytes, dropped"


#: how much of a dropped payload's start is searched for its session and event
HEAD_BYTES = 64 * 1024


def _whose(head: bytes) -> str:
    """`` (session ID, event NAME)`` for the log line of a payload dropped unread, found in its
    first bytes (the agents send the ids first), so that ``trace`` can say the session lost
    an event; ``""`` when they are not there."""
    if not head:
        return ""
    import re

    found: dict[str, str] = {}
    for key, value in re.findall(rb'"(session_id|conversation_id|hook_event_name)"\s*:\s*"([A-Za-z0-9._:-]{1,128})"', head):
        # the first of either id: a tool's output further on may quote another session's
        found.setdefault("event" if key == b"hook_event_name" else "session", value.decode())
    if "session" not in found:
        return ""
    return f" ({SESSION_MARK}{found['session']}, event {found.get('event', '?')})"


#: how a log line names the session of a payload it dropped (``dropped.dropped_payloads`` looks for it)
SESSION_MARK = "session "


def read_stdin(limit: int = MAX_PAYLOAD, seconds: float = READ_SECONDS) -> tuple[bytes, str | None]:
    """Read stdin in this process alone, within ``seconds``."""
    return StdinReader(limit).read(seconds)


def reply(agent: str) -> None:
    """What the agent reads on stdout; a closed stdout must not turn into exit 120."""
    answer = REPLIES.get(agent)
    if answer is None:
        return
    try:
        out = sys.stdout
        out.buffer.write(answer)
        out.flush()
    except (AttributeError, OSError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass
