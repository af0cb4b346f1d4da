"""The conversation tree: a session's stored hook events -> turns -> nodes.

Events are replayed in capture order (``received_at_ns``, then file order; a
payload's own ``timestamp`` wins when it has one).  That order decides only
where a node is *listed*; which events belong together is decided by ids and
evidence (pairing.py, inner.py, subagents.py), never by arrival: a completion
captured before its request (Claude runs hooks asynchronously) still pairs.

Turns: Cursor ``generation_id`` (the step-scoped form reduced to its guid),
Claude ``prompt_id``.  When an agent sends no usable turn id (Cursor's CLI
repeats the conversation id; older Claude builds send none) a prompt event
opens a derived turn ``derived-<n>`` and a stop event closes it; nodes placed
that way are ``inferred``.

An event identical to one captured just before it (same name, same payload:
agentscan registered twice, in user and project settings say) is a second
delivery of the same event and counts once (repeats.py has the rule).
"""

from __future__ import annotations

from typing import Any, Iterable

from agentscan.hooks import inner, pairing, waves
from agentscan.hooks.ids import canonical_generation_id
from agentscan.hooks.crosscheck import transcript_exists, transcript_session_id
from agentscan.hooks.repeats import Repeats
from agentscan.hooks.draft import Draft, TurnDraft, bounded
from agentscan.hooks.model import EVENT, NATIVE, RESPONSE, THOUGHT, HookEvent, SessionInfo, Trace, Turn
from agentscan.hooks.subagents import STARTS, STOPS, Subagents
from agentscan.hooks.summary import invalid_token_fields, reports_tokens, session_tokens, summarize, token_snapshot
from agentscan.timeutil import from_epoch, parse_iso

from agentscan.hooks.events import PROMPTS, SESSION_EVENTS, SESSION_STARTS, TOOL_COMPLETIONS, TOOL_REQUESTS, TURN_STOPS
from agentscan.hooks.events import SESSION_ENDS as ENDS


class TreeBuilder:
    def __init__(self, agent: str, session_id: str, *, model: str | None = None) -> None:
        """``model``: the one the session named before the events given (the live sender's mark)."""
        self.agent = agent
        self.session_id = session_id
        self.session = TurnDraft(id=None)
        self.turns: dict[str, TurnDraft] = {}
        self.subagents = Subagents()
        self.active_derived: TurnDraft | None = None
        self.workspace: str | None = None
        self.transcript_path: str | None = None
        self.model = model  # the latest model an event named
        #: the latest session event was an end (a later start or prompt clears it: a resume)
        self.ended = False
        self.repeats = Repeats()
        #: per turn, completions captured before any request they could pair with (pairing.py)
        self.early_completions: dict[TurnDraft, list[Draft]] = {}
        #: payloads whose token fields could not be read, and those fields (warned once)
        self.bad_tokens: list[str] = []

    def add_all(self, events: Iterable[HookEvent], *, in_order: bool = False) -> None:
        """``in_order``: ``events`` come sorted already (``eventstream``), one at a time."""
        for event in events if in_order else sorted(events, key=lambda e: (effective_ns(e), e.seq)):
            self.add(event)

    def add(self, event: HookEvent) -> None:
        at = effective_ns(event)
        pending = self._still_waiting if event.name in inner.BEFORE_EXECUTIONS else None
        if event.name == inner.READ:
            pending = self._read_not_awaited(event)
        if self.repeats.is_repeat(event, at, twin_pending=pending):
            return
        self._note_session_facts(event)
        turn = self._turn_for(event)
        if event.name in TOOL_COMPLETIONS and (turn.derived or turn is self.session):
            turn = self._call_owner(turn, event)
        if turn.model is None and turn is not self.session:
            turn.model = self.model
        turn.touch(at)
        self.session.touch(at)
        container, placement = turn.nodes, turn.placement
        inside = self.subagents.container_for(event)
        if inside is not None:  # fired inside a subagent: under it, however that was told
            container = inside[0]
            placement = inside[1] if placement == NATIVE else placement
        name = event.name
        if name in PROMPTS and turn.prompted_ns is None:
            turn.prompted_ns = at
        if name in PROMPTS and turn.prompt is None:
            turn.prompt = _bounded(event.text("prompt"))
        elif name == "afterAgentThought":
            node = _instant(THOUGHT, "thought", {"text": _bounded(event.get("text"))}, at, placement)
            if isinstance(event.get("duration_ms"), (int, float)):
                node.detail["duration_ms"] = event.get("duration_ms")
            container.append(node)
        elif name == "afterAgentResponse":
            container.append(_instant(RESPONSE, "response", {"text": _bounded(event.get("text"))}, at, placement))
            if turn.tokens is None:  # a stop's snapshot, when it comes, replaces this one
                turn.tokens = self._snapshot(event)
        elif name in TOOL_REQUESTS:
            pairing.open_request(turn, container, event, at, placement, self.early_completions.setdefault(turn, []))
        elif name in TOOL_COMPLETIONS:
            closed = pairing.complete(turn, event, at, self.early_completions.setdefault(turn, []))
            self.subagents.call_completed(turn, closed, event)
        elif name in inner.INNER_EVENTS:
            inner.attach(turn, event, at)
        elif name in STARTS:
            self.subagents.start(turn, container, event, at)
        elif name in STOPS:
            self.subagents.stop(turn, container, event, at)
        elif name == "PermissionRequest":
            pairing.attach_permission_request(turn, container, event, at)
        elif name == "PreCompact":
            self.subagents.pre_compact(container, event, at, placement)
        elif name == "PostCompact":
            self.subagents.post_compact(container, event, at)
        else:
            node = _instant(EVENT, name or "?", pairing.event_input(event), at, placement)
            container.append(node)
            if name == "PostToolBatch":
                turn.batches.append(node)
            if name in TURN_STOPS:
                self._stop(turn, event, node)

    def _call_owner(self, turn: TurnDraft, event: HookEvent) -> TurnDraft:
        """The turn whose call a completion closes when its own turn is only inferred (a derived
        turn: the event names none) and has no open call with its id: the one turn that has
        (a late completion captured after the next prompt), else its own."""
        call_id = event.text("tool_use_id")
        if call_id is None or any(request.id == call_id for request in turn.in_flight()):
            return turn
        name, scope = event.text("tool_name"), event.text("agent_id")
        owners = [draft for draft in self.turns.values() if draft is not turn
                  for request in draft.in_flight() if (request.id, request.name, request.scope) == (call_id, name, scope)]
        return owners[0] if len(owners) == 1 else turn

    def _still_waiting(self, before: HookEvent) -> bool:
        """Whether the node ``before`` opened still waits for its ``after…`` (repeats.py)."""
        drafts = (*self.turns.values(), self.session)
        return any(node.opened_by is before for draft in drafts for queue in draft.open_inner.values() for node in queue)

    def _read_not_awaited(self, event: HookEvent) -> Any:
        """For a ``beforeReadFile`` the same as one just kept: a second delivery only if no call
        still waits for a read of that file.  Two parallel reads of one file (a big file read
        in chunks) send the same payload, and each is a read (repeats.py)."""
        turn_id = canonical_generation_id(event.text("generation_id")) or event.turn_id
        turn = self.turns.get(turn_id) if turn_id else None
        turn = turn or self.active_derived or self.session
        return lambda _twin: not inner.read_awaited(turn, event)

    def _stop(self, turn: TurnDraft, event: HookEvent, node: Draft) -> None:
        status = event.text("status") or ("error" if event.name == "StopFailure" else "completed")
        node.status, turn.stop_status = status, status
        snapshot = self._snapshot(event)
        # An aborted turn's stop reports zeros: they do not unsay a response's snapshot.
        if snapshot is not None and (reports_tokens(snapshot) or not reports_tokens(turn.tokens)):
            turn.tokens = snapshot

    def _snapshot(self, event: HookEvent) -> Any:
        bad = invalid_token_fields(event.payload)
        if bad:
            self.bad_tokens.extend(key for key in bad if key not in self.bad_tokens)
        return token_snapshot(event.payload)

    def _turn_for(self, event: HookEvent) -> TurnDraft:
        if event.name in SESSION_EVENTS:
            return self.session
        turn_id = turn_id_of(self.agent, self.session_id, event)
        if turn_id:
            if turn_id not in self.turns:
                self.turns[turn_id] = TurnDraft(id=turn_id)
                self.ended = False  # a new turn: the session is live again
            return self.turns[turn_id]
        if event.name in PROMPTS:
            derived = TurnDraft(id=f"derived-{sum(t.derived for t in self.turns.values()) + 1}", derived=True)
            self.turns[derived.id] = derived  # type: ignore[index]
            self.active_derived = derived
            self.ended = False
            return derived
        turn = self.active_derived or self.session
        if event.name in TURN_STOPS:
            self.active_derived = None
        return turn

    def _note_session_facts(self, event: HookEvent) -> None:
        if event.name in ENDS:
            self.ended = True
        elif event.name in SESSION_STARTS or event.name in PROMPTS:
            self.ended = False  # resumed
        if self.workspace is None:
            roots = event.get("workspace_roots")
            if isinstance(roots, list) and roots and isinstance(roots[0], str):
                self.workspace = roots[0]
            elif event.text("cwd"):
                self.workspace = event.text("cwd")
        self.model = event_model(event) or self.model
        path = event.text("transcript_path")
        if path and not under_subagents(path):  # a subagent's own transcript is never the session's
            self.transcript_path = path  # null on the first events: the latest one wins

    def build(self, *, events_path: str | None = None, warnings: Iterable[Any] = ()) -> Trace:
        turns = []
        interrupted = self._interrupted()
        for draft in self.turns.values():
            waves.form_waves(draft.nodes)
            waves.apply_batches(draft)
            nodes = tuple(node.freeze() for node in draft.nodes)
            status = INTERRUPTED if draft in interrupted else draft.stop_status
            summary = summarize(nodes, [draft.prompt], started_ns=draft.first_ns, ended_ns=draft.last_ns,
                                tokens=draft.tokens, status=status, agent=self.agent)
            turns.append(Turn(
                id=draft.id or "", prompt=draft.prompt, nodes=nodes, started_ns=draft.first_ns or 0,
                ended_ns=draft.last_ns or 0, derived=draft.derived, stop_status=draft.stop_status,
                tokens=draft.tokens, summary=summary, model=draft.model,
            ))
        waves.form_waves(self.session.nodes)
        session_nodes = tuple(node.freeze() for node in self.session.nodes)
        info = SessionInfo(
            agent=self.agent,
            native_id=self.session_id,
            workspace=self.workspace,
            status=self._status(),
            started_ns=self.session.first_ns,
            ended_ns=self.session.last_ns,
            transcript_path=self.transcript_path,
            transcript_session_id=transcript_session_id(self.agent, self.transcript_path),
            transcript_found=transcript_exists(self.transcript_path),
            nodes=session_nodes,
            events_path=events_path,
        )
        summary = summarize(
            [*session_nodes, *(n for t in turns for n in t.nodes)],
            [t.prompt for t in turns],
            started_ns=self.session.first_ns,
            ended_ns=self.session.last_ns,
            tokens=session_tokens([t.tokens for t in turns]),
            turns=len(turns),
            agent=self.agent,
        )
        noted = tuple(warnings)
        if self.repeats.count or self.bad_tokens:
            from agentscan.model import ScanWarning

            noted += tuple(ScanWarning(events_path or info.id, note) for note in self.repeats.notes())
        if self.bad_tokens:
            noted += (ScanWarning(events_path or info.id, (
                f"token counts that are not whole numbers of zero or more ({', '.join(self.bad_tokens)}) were "
                "ignored: those payloads' tokens are unknown, not counted as 0")),)
        return Trace(session=info, turns=tuple(turns), summary=summary, warnings=noted)

    def _interrupted(self) -> set[TurnDraft]:
        """Claude turns that a later prompt followed with no Stop between: Claude Code sends no
        Stop when the user interrupts a turn (Esc), so the next prompt is the only sign.  Not
        said of Cursor, which sends its ``stop`` with ``aborted``: one missing is a lost hook."""
        if self.agent != "claude":
            return set()
        found: set[TurnDraft] = set()
        later: int | None = None  # the latest prompt of the turns after this one
        for draft in reversed(self.turns.values()):
            if draft.stop_status is None and later is not None and later >= (draft.first_ns or 0):
                found.add(draft)
            if draft.prompted_ns is not None:
                later = draft.prompted_ns if later is None else max(later, draft.prompted_ns)
        return found

    def _status(self) -> str:
        """The state of the latest session event or turn, not of any earlier one: a stopped
        turn followed by a new prompt is active again, an end followed by a resume too."""
        if self.ended:
            return "ended"
        latest = next(reversed(self.turns.values()), self.session)
        return "stopped" if latest.stop_status is not None else "active"


#: the summary status of a Claude turn that a new prompt interrupted (no Stop came)
INTERRUPTED = "interrupted"


def build_trace(agent: str, session_id: str, events: Iterable[HookEvent], *, in_order: bool = False,
                **kwargs: Any) -> Trace:
    builder = TreeBuilder(agent, session_id)
    builder.add_all(events, in_order=in_order)
    return builder.build(**kwargs)


def trace_session(query: str, *, root: str | None = None, demo: bool = False) -> Trace:
    """Resolve ``query`` in the events store (``root``; ``demo``: the demo's) and rebuild
    that session's tree."""
    from agentscan.errors import NoHookEvents
    from agentscan.hooks import store, storedids

    if root is None:
        from agentscan.datadir import check

        root = store.data_dir()
        check(root)  # a file: said so, not as a store with no events yet
    try:
        stored = storedids.resolve(query, store.stored_sessions(root), demo=demo)
    except NoHookEvents as missing:
        from agentscan.hooks.unlisted import unlisted_folders

        # A folder that could not be listed may hold it: said, not "no hook events captured yet".
        unlisted = unlisted_folders(root)
        if not unlisted:
            raise
        said = NoHookEvents(query, store_empty=False, demo=demo,
                            unlisted=tuple(f"{w.path}: {w.message}" for w in unlisted))
        said.details = (*said.details, *missing.details)  # (a capture under another agent, offered)
        raise said from None
    return stored_trace(stored, root)


def stored_trace(stored: Any, root: str, warnings: list[Any] | None = None) -> Trace:
    """The tree of a stored session (``store.StoredSession``) in the store at ``root``, for
    ``trace`` and ``otlp`` alike: its events read one payload at a time (200 MB is not held
    whole), and the payloads the hook dropped unread said (``--strict`` fails on them).
    ``warnings``, when given, gets those of its lines as they are read: kept should the tree
    fail to build."""
    from agentscan.hooks.dropped import dropped_warnings
    from agentscan.hooks.eventstream import in_capture_order

    events, warnings = in_capture_order(stored, effective_ns, warnings)
    warnings += dropped_warnings(root, stored.session_id)
    return build_trace(stored.agent, stored.session_id, events, in_order=True, events_path=stored.path,
                       warnings=warnings)


def turn_id_of(agent: str, session_id: str, event: HookEvent) -> str | None:
    """The turn an event names, as the tree reads it; ``None`` when it names none it can use
    (Cursor's CLI repeats the conversation id): then a prompt opens a derived turn."""
    turn_id = event.turn_id
    if agent == "cursor":
        turn_id = canonical_generation_id(event.text("generation_id")) or turn_id
    return turn_id if turn_id and turn_id != session_id else None


def opens_derived(agent: str, session_id: str, event: HookEvent) -> bool:
    """Whether the tree opens a derived turn for ``event`` (unless it is a second delivery)."""
    return event.name in PROMPTS and event.name not in SESSION_EVENTS and turn_id_of(agent, session_id, event) is None


def under_subagents(path: str) -> bool:
    """A subagent's own transcript (``…/<session>/subagents/<agent>.jsonl``, Claude's and
    Cursor's): events fired inside a subagent may carry it as their ``transcript_path``."""
    return "subagents" in path.replace("\\", "/").split("/")[:-1]


def event_model(event: HookEvent) -> str | None:
    """The model an event names: Cursor's ``model_id`` (the API's id), else its ``model``
    (Claude's ``SessionStart`` has that one)."""
    return event.text("model_id") or event.text("model")


def effective_ns(event: HookEvent) -> int:
    """A payload's own timestamp (VS Code ISO, Copilot epoch ms) when present, else capture time."""
    stamp = event.get("timestamp")
    parsed = parse_iso(stamp) if isinstance(stamp, str) else from_epoch(stamp)
    if parsed is None:
        return event.received_at_ns
    return int(parsed.timestamp() * 1_000_000) * 1000


def _instant(kind: str, name: str, shown: Any, at_ns: int, provenance: str) -> Draft:
    """A node for one moment: a thought, a response, a lifecycle event."""
    return Draft(kind=kind, name=name, input=shown, provenance=provenance, started_ns=at_ns, ended_ns=at_ns)


def _bounded(text: Any) -> str | None:
    return bounded(text) if isinstance(text, str) else None
