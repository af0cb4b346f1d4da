"""``show`` of one Cursor session: which source its conversation is streamed from, and the
runs it delegated, listed.  Apart from ``provider`` (which wires the adapter together) and
from ``detail`` (a transcript session's stream): this chooses among every source's stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.detailmodel import SessionDetail
    from agentscan.model import SessionRef
    from agentscan.providers.cursor.discovery import TranscriptSet


#: ``ctx.memo``: (``shown_key``, ``Assembled``) of the session ``show`` just assembled while
#: the state DB could not be read, taken once by the row built next of it (``CursorProvider.row``)
SHOWN_ROW = "cursor.shown_row"


def shown_key(ref: SessionRef) -> tuple:
    """What ``SHOWN_ROW`` is taken for: the session and its files as they are (fresh stamps: a
    library's scanner may build the row again after a write)."""
    from agentscan.toolkit.fsutil import stamp_now

    return ref.native_id, tuple((path, stamp_now(path)) for path in ref.files)


def session_detail(ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
    """``show`` of one Cursor session (``CursorProvider.detail``): its conversation streamed
    from where it is kept (its transcripts, an Agent CLI store, a workspace's DB, its
    composer's ``agentKv`` rows or bubbles), then the delegated runs only ``state.vscdb`` or
    their own stores hold, and each run listed with its kind, tokens and model."""
    from agentscan.detailmodel import SubagentInfo
    from agentscan.providers.cursor.agentkv import conversation_events
    from agentscan.providers.cursor.assembly import assemble
    from agentscan.providers.cursor.children import family
    from agentscan.providers.cursor.row import child_model
    from agentscan.providers.cursor.standalone import stream_store, stream_workspace
    from agentscan.providers.cursor.statedb import state_db

    from agentscan.providers.cursor.detail import stream_events, stream_transcripts
    from agentscan.providers.cursor.ide import matched_turns, stream_composer
    from agentscan.providers.cursor.subchats import SubChats
    from agentscan.providers.cursor.subcomposers import SubComposers
    from agentscan.toolkit.detail import DetailCollector

    files: TranscriptSet | None = ref.hint.transcripts
    found = assemble(ref, ctx)
    info = found.facts.composer
    db = state_db(ctx)
    if db.unread() is not None:
        # ``show`` then takes the scanner's row (``scan.showing._as_kept``), which, kept for no
        # files as they are, is this one built again: handed over (``CursorProvider.row``).
        ctx.memo[SHOWN_ROW] = (shown_key(ref), found)
    collector = DetailCollector(bounds)
    delegations = {}
    # The runs only state.vscdb holds (no transcript): shown from their bubbles.
    with_transcript = {sub.agent_id for sub in files.subagents} if files else set()
    composers = SubComposers.of(found.children, with_transcript, found.usage, db)
    runs: dict[str, Path] = {}
    if files is not None and db.unread() is not None:
        # The DB (its bubbles) could not be read: a run with a top-level transcript of its own
        # is read from it, as a ``subagents/`` one is.  Its exchange was shown empty
        # (``prompts: []``) and ``show --full`` left its block out.
        own = family(ctx).run_transcripts
        runs = {child: own[child] for child in found.children
                if child in own and child not in with_transcript and child not in composers}
    if files is not None:
        # A reply's model (and a prompt's time) from its turn's bubbles, never the row's.
        turns = matched_turns(info, db, found.row.counts.prompts) if info is not None else ()
        streamed = stream_transcripts(files, ctx, collector, turns=turns, composers=composers, runs=runs)
        delegations = {d.subagent: d for d in streamed.delegations}
    elif ref.hint.store is not None:
        stream_store(ref.hint.store, ctx, collector)
    elif ref.hint.workspace is not None:
        stream_workspace(ref.hint.workspace, ctx, collector)
    elif info is not None and found.usage.own.textless:
        stream_events(conversation_events(found.usage.own.requests, db), collector)
    elif info is not None:
        stream_composer(info, db, collector, children=composers.take_timed())
    composers.stream_rest(collector)  # (after a CLI store's, an agentKv conversation)
    # CLI subagent chats with no transcript: from their own store.db (no times: after).
    chats = SubChats.of(found.children, with_transcript | runs.keys() | {c for c in found.children if c in composers}, ctx)
    chats.stream_all(collector)
    if info is not None:
        collector.plan = info.plan
    child_paths = {sub.agent_id: str(sub.path) for sub in files.subagents} if files else {}
    # The runs only the DB holds (their bubbles) while it could not be read: listed by the links
    # kept with its stamp (``keptfamily``), their tokens from the kept sums, their exchange not
    # known (it read as ``prompts: []``, a known empty exchange, and ``--full`` said nothing).
    unread = ({child for child in found.children if child not in with_transcript and child not in runs
               and child not in composers and chats.path(child) is None} if db.unread() is not None else set())
    subagents = tuple(
        SubagentInfo(
            id=child,
            agent_type=delegations[child].agent_type if child in delegations else chats.agent_type(child),
            path=child_paths.get(child) or chats.path(child),
            tokens=found.usage.children[child].tokens(),
            model=child_model(child, found.usage, db) or chats.model(child),
            exchange_unknown=child in unread,
        )
        for child in found.children
    )
    extra = {
        # A context-window snapshot, not spend: shown because current
        # builds record no per-bubble tokens (``tokens`` is then null).
        "context_tokens": info.context_tokens if info else None,
        "delegations": [d.to_json() for d in delegations.values()],
        "errors": collector.errors(),  # (a transcript's error lines: ``stream_transcripts``)
    }
    if files is None and ref.hint.store is None and ref.hint.workspace is None and db.unread() is not None:
        # A chat the DB alone holds, listed as its last read found it (``children``): its
        # prompts and replies are that DB's bubbles, not read.  The card said "1 prompt" (the
        # kept row's) over no prompt at all, and ``--json`` an empty exchange.
        extra["exchange_unknown"] = True
    detail = collector.build(found.row, subagents=subagents, extra=extra)
    if ref.hint.store is not None:
        # The Agent CLI keeps no tokens, in its store or the state DB (formats.md 4.2): with its
        # store locked (counts not known) the card said "tokens not known (could not be read)".
        from dataclasses import replace

        detail = replace(detail, records_no_usage=True)
    return detail
