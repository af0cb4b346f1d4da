"""A ``list`` row from bounded reads: header, head, last 1 MiB, and the index.

Tokens come from the latest cumulative ``total_token_usage`` in the tail of
each of the session's rollouts (its subagents' included): for one thread the
cumulative total equals the sum of its calls, and re-emitted counts cannot
inflate it.  A fork or a subagent that began with a copy of its parent's
history starts its cumulative count from the parent's, so the count the copy
ended with is subtracted (found within the first ``REPLAY_HEAD_BYTES``).

When the index row is newer than the rollout (by ``updated_at`` against the
rollout's last record and mtime), it wins for ordering and its values win
over the rollout's; otherwise the rollout's values win and the index only
fills gaps.  Token breakdowns always come from the rollout: the index's
``tokens_used`` has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from agentscan.context import ScanContext
from agentscan.model import SessionRow, TokenUsage, sum_usage
from agentscan.providers.codex.discovery import CodexSession, Thread
from agentscan.providers.codex.header import RolloutHeader, read_header
from agentscan.providers.codex.counters import minus, to_tokens
from agentscan.providers.codex.headtail import HeadSummary, TailSummary, head_summary, tail_summary
from agentscan.providers.codex.usage import read_replay_head
from agentscan.timeutil import from_epoch, newest, oldest

REPLAY_HEAD_BYTES = 1024 * 1024
PROVIDER = "codex"
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class ThreadFacts:
    thread: Thread
    header: RolloutHeader
    tail: TailSummary
    tokens: TokenUsage | None


def thread_header(thread: Thread, ctx: ScanContext) -> RolloutHeader:
    return thread.header or read_header(thread.rollout.path, ctx, thread.thread_id)


def _nonzero(usage: TokenUsage | None) -> TokenUsage | None:
    return usage if usage is not None and usage.total > 0 else None


def _thread_tokens(thread: Thread, header: RolloutHeader, tail: TailSummary, ctx: ScanContext) -> TokenUsage | None:
    if not header.link.replays_history:
        return _nonzero(to_tokens(tail.cumulative)) if tail.cumulative else None
    head = read_replay_head(thread.rollout.path, ctx, header.started_at, REPLAY_HEAD_BYTES)
    if head.complete:
        return _nonzero(head.own)
    if tail.cumulative is None:
        return None
    if head.baseline is not None:
        return _nonzero(to_tokens(minus(tail.cumulative, head.baseline)))
    # The copied history runs past the budget: the count may include the parent's
    # part (a documented limit of list; tokens and show are exact).
    return _nonzero(to_tokens(tail.cumulative))


def thread_facts(thread: Thread, ctx: ScanContext) -> ThreadFacts:
    header = thread_header(thread, ctx)
    tail = tail_summary(thread.rollout.path, ctx)
    return ThreadFacts(thread, header, tail, _thread_tokens(thread, header, tail, ctx))


def _pick(index_wins: bool, rollout_value: V | None, index_value: V | None) -> V | None:
    if index_wins:
        return index_value if index_value is not None else rollout_value
    return rollout_value if rollout_value is not None else index_value


def build_row(session: CodexSession, ctx: ScanContext) -> SessionRow:
    main = thread_facts(session.main, ctx) if session.main else None
    children = [thread_facts(child, ctx) for child in session.children]
    head = head_summary(session.main.rollout.path, ctx) if session.main else HeadSummary()
    return assemble_row(session, main, children, head)


def assemble_row(
    session: CodexSession,
    main: ThreadFacts | None,
    children: list[ThreadFacts],
    head: HeadSummary,
    *,
    tokens: TokenUsage | None = None,
    exact_tokens: bool = False,
) -> SessionRow:
    everyone = ([main] if main else []) + children
    # The newest time the rollouts recorded; their mtime only when they recorded none
    # (a copied home has every mtime at the copy time).
    recorded = newest(*(facts.tail.last_timestamp for facts in everyone))
    mtime = newest(*(from_epoch(facts.thread.rollout.mtime) for facts in everyone))
    updated = recorded or mtime
    if not exact_tokens:
        tokens = sum_usage(facts.tokens for facts in everyone)
    if main is None:
        first = children[0] if children else None
        return SessionRow(
            provider=PROVIDER,
            native_id=session.native_id,
            path=None,
            cwd=first.header.cwd if first else None,
            model=first.tail.model if first else None,
            git_branch=first.header.git_branch if first else None,
            started_at=oldest(*(facts.header.started_at for facts in children)),
            updated_at=updated,
            tokens=tokens,
            subagents=len(children),
        )
    row = main.thread.index
    rollout_fresh = newest(main.tail.last_timestamp, from_epoch(main.thread.rollout.mtime))
    index_wins = bool(row and row.updated_at and (rollout_fresh is None or row.updated_at > rollout_fresh))
    return SessionRow(
        provider=PROVIDER,
        native_id=session.native_id,
        path=str(main.thread.rollout.path),
        title=_pick(index_wins, head.title, row.title if row else None),
        cwd=_pick(index_wins, main.header.cwd, row.cwd if row else None),
        model=_pick(index_wins, main.tail.model, row.model if row else None),
        git_branch=_pick(index_wins, main.header.git_branch, row.git_branch if row else None),
        started_at=oldest(main.header.started_at, row.created_at if row else None),
        updated_at=newest(recorded, row.updated_at if row else None) or mtime,
        tokens=tokens,
        counts=main.tail.counts,
        subagents=len(children),
    )
